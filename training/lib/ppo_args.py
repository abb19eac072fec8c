"""The groups of ``training/ppo.py``'s arguments: the network, PPO's update (its loss shared with
the other PPO trainers), the league of opponents and the evaluations.

``ppo.Args`` extends each group (and :class:`training.lib.run_args.RunArgs`), so that the config
loader and the command line fill every field by its own flat name (``hidden = 256`` in a TOML
file, ``--hidden 256``) and code reads ``args.hidden`` as before; a function that needs one group
alone (:func:`training.ppo.update` reads :class:`UpdateArgs`) is typed by it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sniff_env.players.specs import MAX_THREADS
from training.lib.network import ARCHITECTURES
from training.lib.privileged import CRITICS


@dataclass
class NetworkArgs:
    """The network: its shape and its training-only critic."""

    hidden: int = field(default=256, metadata={"min": 1, "help": "hidden units per layer"})
    arch: str = field(default="mlp", metadata={"choices": ARCHITECTURES, "help": "network: 'mlp' (one output per action), 'move' (a shared move scorer), 'move-mobility' (with who can still play after each move) or 'move-tiles' (and attention over the tiles)"})
    critic: str = field(default="seat", metadata={"choices": CRITICS, "help": "'seat': the value head reads the seat's observation; 'full': a training-only critic also reads every hidden tile (the other hands, the boneyard); not with the deprecated --engine python or --collector reference"})
    move_hidden: int = field(
        default=64, metadata={"min": 1, "help": "with --arch move: units per layer of the shared move scorer"}
    )
    fix_tiles: bool = field(
        default=False,
        metadata={"help": "with --arch move-tiles: keep the tile attention's weights as the start has them (the "
                          "projection that reads its pool still learns), so that each batch pools every move's tiles "
                          "once instead of recomputing and differentiating the attention in every minibatch"},
    )
    points_prior: float = field(
        default=5.0, metadata={"help": "initial weight of each move's own points in its logit (0: uniform start)"}
    )


@dataclass
class PpoLossArgs:
    """PPO's advantages and clipped loss, as every PPO trainer here has them (``training/ppo.py``,
    ``training/libraries/torchrl_mappo.py`` and ``rllib_selfplay.py``)."""

    gamma: float = field(default=0.99, metadata={"min": 0, "max": 1, "help": "discount per own decision"})
    gae_lambda: float = field(default=0.95, metadata={"min": 0, "max": 1, "help": "GAE lambda"})
    clip_coef: float = field(default=0.2, metadata={"above": 0, "help": "PPO clip coefficient"})
    ent_coef: float = field(default=0.01, metadata={"min": 0, "help": "entropy bonus"})
    vf_coef: float = field(default=0.5, metadata={"min": 0, "help": "value loss weight"})
    max_grad_norm: float = field(default=0.5, metadata={"above": 0, "help": "gradient clip norm"})


@dataclass
class UpdateArgs(PpoLossArgs):
    """PPO's update: the optimiser, its batches and the loss (with the tile-guessing head's weight)."""

    learning_rate: float = field(default=3e-4, metadata={"min": 0, "help": "Adam learning rate"})
    anneal_lr: bool = field(default=True, metadata={"help": "anneal the learning rate linearly to 0"})
    num_minibatches: int = field(default=4, metadata={"min": 1, "help": "minibatches per epoch"})
    update_epochs: int = field(default=4, metadata={"min": 1, "help": "epochs per batch"})
    aux_tiles: float = field(default=0.0, metadata={"min": 0, "help": "weight of a training-only head on the trunk that guesses where each unseen tile is (0: none); --arch mlp, not with the deprecated --engine python or --collector reference"})


@dataclass
class LeagueArgs:
    """The opponents of the learner's games: its past snapshots and the built-in players."""

    selfplay_prob: float = field(default=0.5, metadata={"min": 0, "max": 1, "help": "share of games where every seat is the learner"})
    pool_size: int = field(default=8, metadata={"min": 0, "help": "past snapshots kept as opponents (0: none, nor the "
                                                                 "--init network: the opponents are the built-ins alone)"})
    snapshot_every: int = field(default=10, metadata={"min": 1, "help": "iterations between snapshots"})
    builtin_opponents: str = field(default="greedy,heuristic", metadata={"help": "built-in players in the pool (the batched engine plays random, greedy, heuristic and the search, rollouts:samples=N, and policies: a shipped agent's name or an ONNX file, their masked argmax)"})
    alternate_seats: bool = field(
        default=False,
        metadata={"help": "seat every game against an opponent from the first one on, the "
                          "learner's side alternating game by game in each table (default: a side drawn at random, "
                          "and every table's first game self-play)"},
    )
    search_threads: int = field(
        default=0,
        metadata={"min": 0, "max": MAX_THREADS, "help": "the compiled search's threads, among the built-in opponents and in "
                          "evaluations against it: 0, one stream of draws on the calling thread (and an evaluation "
                          "plays the reference search, game by game); N, each game its own stream of draws, the games "
                          "spread over N threads (the same moves for any N), evaluations on the batched engine"},
    )


@dataclass
class EvalArgs:
    """The evaluations during the run, and the policy selected by them."""

    eval_every: int = field(default=25, metadata={"min": 0, "help": "iterations between evaluations (0: never)"})
    eval_games: int = field(default=100, metadata={"min": 1, "help": "duplicate games per evaluation opponent"})
    eval_opponents: str = field(default="greedy,heuristic", metadata={"help": "evaluation opponents"})
    select_on: str = field(
        default="",
        metadata={"help": "an eval opponent: each time the win rate against it beats every earlier evaluation, "
                          "the policy is exported to <out_dir>/<exp_name>/best.pt"},
    )
