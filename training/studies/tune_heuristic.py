"""Tune the heuristic player's weights by play: a coordinate search on duplicate deals.

Each round proposes, for every tuned weight, the incumbent with that weight multiplied and
divided by ``step`` (a weight at 0 is moved by +/- ``zero_step`` instead). The incumbent and
every proposal play the same duplicate deals against the opponents (common random deals, so
the comparison is paired); the best proposal, if it screens better than the incumbent, plays
the incumbent again on fresh deals and replaces it only if it wins there too. A round without
a replacement shrinks ``step`` (to its square root); the search ends after ``rounds`` rounds,
when ``step`` falls below ``min_step``, or when ``time_budget_s`` is spent. Everything depends
only on ``seed`` (the time budget aside). The best weights are confirmed on ``final_games``
fresh games, printed as a player spec and written to ``out`` (TOML or JSON).

    python -m training.studies.tune_heuristic --rounds 8 --screen-games 300 --out runs/heuristic-tuned.toml
"""

from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sniff_env.atomic import atomic_path, write_json_atomic
from sniff_env.evaluation.ratings import wilson_interval
from sniff_env.evaluation.tournament import derive_seed, run_tournament
from sniff_env.players.heuristic import Weights
from sniff_env.rules import Rules
from sniff_env.workers import max_workers
from training.lib.config import parse_config, rules_for, run_script

DEFAULT_FIELDS = "reply,follow_up,pip,pip_late,double,variety,playable,block,counter"


@dataclass
class Args:
    preset: str = field(default="sniff", metadata={"help": "rules preset"})
    num_players: int = field(default=2, metadata={"min": 2, "help": "players at the table"})
    rules: str = field(default="", metadata={"help": "rules overrides, e.g. 'partnership=true,scoring=threes'"})
    seed: int = field(default=1, metadata={"min": 0, "help": "seed of every deal the search plays"})
    opponents: str = field(default="heuristic", metadata={"help": "players the candidates are scored against"})
    fields: str = field(default=DEFAULT_FIELDS, metadata={"help": "the weights to tune, comma-separated"})
    start: str = field(default="", metadata={"help": "a TOML or JSON file of this script's to start from"})
    rounds: int = field(default=8, metadata={"min": 0, "help": "search rounds at most"})
    screen_games: int = field(default=300, metadata={"min": 1, "help": "duplicate games per candidate and opponent"})
    confirm_games: int = field(default=1000, metadata={"min": 1, "help": "fresh games to confirm a round's best"})
    final_games: int = field(default=1000, metadata={"min": 0, "help": "fresh games to measure the result (0: skip)"})
    step: float = field(default=1.5, metadata={"above": 1, "help": "initial multiplicative step"})
    min_step: float = field(default=1.05, metadata={"above": 1, "help": "stop when the step falls below this"})
    zero_step: float = field(default=0.3, metadata={"above": 0, "help": "additive step of a weight that is 0"})
    time_budget_s: float = field(default=0.0, metadata={"min": 0, "help": "start no round after this many seconds (0: none)"})
    workers: int = field(default=1, metadata={"min": 1, "max": max_workers(), "help": "processes that play the games"})
    max_hands: int = field(default=40, metadata={"min": 1, "help": "a game ends after this many hands at most"})
    out: str = field(default="", metadata={"help": "write the best weights to this .toml or .json file"})


def spec_of(weights: Weights, names: list[str]) -> str:
    """The player spec of ``weights``: the fields in ``names`` and any other that is not its default."""
    default = Weights()
    keep = [n for n in Weights.field_names() if n in names or getattr(weights, n) != getattr(default, n)]
    return "heuristic:" + ",".join(f"{n}={_fmt(getattr(weights, n))}" for n in keep)


def _fmt(x: float) -> str:
    return repr(float(x))


def _round(x: float) -> float:
    """Four significant digits, so that a spec names the weights exactly."""
    return float(f"{x:.4g}")


def proposals(weights: Weights, names: list[str], step: float, zero_step: float) -> list[tuple[str, Weights]]:
    """For each field, the weights with that field moved up and down by one step."""
    out = []
    for n in names:
        v = getattr(weights, n)
        moves = (zero_step, -zero_step) if v == 0.0 else (v * step, v / step)
        for new in moves:
            new = _round(new)
            if new != v:
                out.append((f"{n} {v:g}->{new:g}", dataclasses.replace(weights, **{n: new})))
    return out


class Scorer:
    """Plays candidate weights against the opponents and remembers what it measured."""

    def __init__(self, args: Args, rules: Rules, names: list[str]) -> None:
        self.args, self.rules, self.names = args, rules, names
        self.opponents = [s.strip() for s in args.opponents.split(",") if s.strip()]
        if not self.opponents:
            raise ValueError("--opponents names no player")
        self.games_played = 0
        self.last_games = 0

    def score(self, weights: Weights, games: int, seed: int) -> float:
        """Mean win rate (draws half) over the opponents, ``games`` duplicate games each (rounded up
        to whole deals); :attr:`last_games` is how many were played in all."""
        spec = spec_of(weights, self.names)
        rates = []
        self.last_games = 0
        for opp in self.opponents:
            if opp == spec:  # a player may not meet itself; the same weights score one half
                rates.append(0.5)
                continue
            result = run_tournament([spec, opp], self.rules, games, seed=derive_seed(seed, opp),
                                    workers=self.args.workers, max_hands=self.args.max_hands)
            pair = result.pairs()[0]
            self.games_played += pair.games
            self.last_games += pair.games
            rates.append(pair.score_a)
        return sum(rates) / len(rates)


def search(args: Args, rules: Rules, start: Weights, names: list[str]) -> tuple[Weights, list[dict[str, Any]]]:
    """The coordinate search; returns the best weights and one record per round."""
    scorer = Scorer(args, rules, names)
    best, step, history = start, args.step, []
    t0 = time.time()
    for r in range(args.rounds):
        if args.time_budget_s and time.time() - t0 > args.time_budget_s:
            print(f"time budget spent after {r} rounds")
            break
        if step < args.min_step:
            print(f"step {step:.3f} below {args.min_step}: done")
            break
        seed = derive_seed(args.seed, "screen", r)
        base = scorer.score(best, args.screen_games, seed)
        print(f"round {r + 1}: step {step:.3f}, incumbent {base:.4f} on {args.screen_games} games")
        scored = []
        for label, cand in proposals(best, names, step, args.zero_step):
            s = scorer.score(cand, args.screen_games, seed)
            scored.append((s, label, cand))
            print(f"  {label:<28} {s:.4f} ({s - base:+.4f})", flush=True)
        record: dict[str, Any] = {"round": r + 1, "step": step, "incumbent_screen": base, "accepted": None}
        top = max(scored, key=lambda x: x[0], default=None)
        if top is not None and top[0] > base:
            s, label, cand = top
            cseed = derive_seed(args.seed, "confirm", r)
            new, old = scorer.score(cand, args.confirm_games, cseed), scorer.score(best, args.confirm_games, cseed)
            print(f"  confirm {label}: {new:.4f} against incumbent {old:.4f} on {args.confirm_games} fresh games")
            record.update(candidate=label, confirm=new, incumbent_confirm=old)
            if new > old:
                best = cand
                record["accepted"] = label
                print(f"  accepted: {spec_of(best, names)}")
        if record["accepted"] is None:
            step = math.sqrt(step)
            print("  no change; step shrinks")
        record["elapsed_s"] = round(time.time() - t0, 1)
        record["games_played"] = scorer.games_played
        history.append(record)
    return best, history


def load_weights(path: str | Path) -> Weights:
    """The weights of a file this script wrote (a ``weights`` table, TOML or JSON)."""
    import json
    import tomllib

    text = Path(path).read_text()
    data = json.loads(text) if Path(path).suffix == ".json" else tomllib.loads(text)
    return Weights.from_kwargs(**data.get("weights", {}))


def write_result(path: str | Path, weights: Weights, names: list[str], meta: dict[str, Any]) -> Path:
    """Write the weights, their spec and ``meta`` atomically; TOML unless ``path`` ends in .json."""
    data: dict[str, Any] = {"spec": spec_of(weights, names), "weights": dataclasses.asdict(weights), "result": meta}
    if Path(path).suffix == ".json":
        return write_json_atomic(path, data)
    lines = [f"spec = {_toml(data['spec'])}", "", "[weights]"]
    lines += [f"{k} = {_toml(v)}" for k, v in data["weights"].items()]
    lines += ["", "[result]"] + [f"{k} = {_toml(v)}" for k, v in meta.items()]
    with atomic_path(path) as tmp:
        tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return Path(path)


def _toml(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml(x) for x in v) + "]"
    return '"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"'


def main(argv: list[str] | None = None) -> int:
    args = parse_config(Args, argv, __doc__.splitlines()[0] if __doc__ else "")
    names = [s.strip() for s in args.fields.split(",") if s.strip()]
    unknown = sorted(set(names) - set(Weights.field_names()))
    if unknown or not names:
        raise SystemExit(f"--fields: unknown {unknown or 'none given'}; allowed: {', '.join(Weights.field_names())}")
    rules = rules_for(args.preset, args.num_players, args.rules)
    start = load_weights(args.start) if args.start else Weights()
    t0 = time.time()
    best, history = search(args, rules, start, names)
    spec = spec_of(best, names)
    meta: dict[str, Any] = {
        "preset": args.preset, "num_players": args.num_players, "rules": args.rules, "seed": args.seed,
        "opponents": args.opponents, "rounds": len(history),
        "accepted": [h["accepted"] for h in history if h["accepted"]],
        "games_played": history[-1]["games_played"] if history else 0,
    }
    if args.final_games:
        scorer = Scorer(args, rules, names)
        rate = scorer.score(best, args.final_games, derive_seed(args.seed, "final"))
        games = scorer.last_games
        lo, hi = wilson_interval(rate * games, games)
        meta.update(final_games=games, final_win_rate=round(rate, 4), final_ci95=[round(lo, 4), round(hi, 4)])
        print(f"final: {rate:.4f} [{lo:.4f}, {hi:.4f}] against {args.opponents} on {games} fresh games")
    meta["wall_s"] = round(time.time() - t0, 1)
    print(f"best weights ({meta['wall_s']:.0f} s): {spec}")
    if args.out:
        print(f"written to {write_result(args.out, best, names, meta)}")
    return 0


if __name__ == "__main__":
    run_script(main)
