"""Players from exported policy files: ONNX, a graph of data, never a program.

A policy file holds a network that maps a float32 observation batch ``[B, obs_size]`` to logits
``[B, num_actions]``, and its metadata, a JSON object stored under ``sniff_meta.json`` (an entry
of the ONNX model's ``metadata_props``):

* ``rules``: :meth:`Rules.to_dict` of the rules it was trained for;
* ``rules_family`` (optional, a generalist's): the list of every rule set it was trained for; it
  plays any of them (and what each allows, :func:`.compat.best_fit`);
* ``num_players``;
* ``observation_version``: :attr:`~sniff_env.observation.Observer.version` of the layout it reads;
* ``num_actions``: the size of the action space;
* ``training_steps``, ``trainer``, ``args`` (informative).

ONNX files play through onnxruntime and need no torch (:mod:`.onnx_policy`), after a check of
what the graph holds (:mod:`.onnx_check`). A TorchScript file (the training tools' ``.pt``
export, recognised by its content whatever its name) is a program that can read and write the
user's files: players refuse it, saying how to convert it once with the training tools.
Loading refuses, with a :class:`PolicyError`, a missing file, one that is no regular file or too
large, one that is not an ONNX policy, missing metadata, a policy made for other rules, another
layout or another action count, and a network whose output for a batch of observations has the
wrong shape or does not come within :data:`CHECK_SECONDS` (one forward pass at load time). While
it plays, each call of the network is bounded too (:mod:`.policy_process`): one that runs past
its time limit or memory allowance is stopped with a :class:`PolicyLimitError`, and one that
fails raises a :class:`PolicyError`, each a line saying which file did what.
The player takes the masked argmax of the logits over the legal actions, or samples from them
(``sample=True``, seeded).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from sniff_env.actions import action_codec
from sniff_env.observation import observer_for
from sniff_env.players._base import found_info_state, legal_actions
from sniff_env.players.compat import best_fit, trained_rules
from sniff_env.players.onnx_check import MAX_BYTES
from sniff_env.players.onnx_policy import read_onnx
from sniff_env.players.policy_file import (
    META_FILE,
    REQUIRED_META,
    PolicyError,
    PolicyLimitError,
    PolicyNetwork,
    parse_meta,
    read_file,
)
from sniff_env.rules import Rules

ZIP_MAGIC = b"PK\x03\x04"
"""How a TorchScript archive (a zip file) begins; an ONNX file is a protobuf message."""
CHECK_SECONDS = 5.0
"""The time limit of the load-time forward pass (a policy answers in milliseconds)."""
CONVERT = "python -m training.export {path} {onnx} --trust-code"
"""The command that converts a TorchScript policy file to ONNX, once, trusting it."""


class PolicyPlayer:
    """Plays the masked argmax (or a seeded sample) of an exported policy's logits."""

    def __init__(self, network: PolicyNetwork, meta: dict[str, Any], rules: Rules, name: str,
                 sample: bool = False, seed: int | None = None, follow: bool = False) -> None:
        self.name = name
        self.meta = meta
        self.rules = rules
        self.sample = sample
        self.network = network
        self.follow = follow
        """Whether the player takes up the rules of the game it is handed, where its training
        rules allow them (:func:`check_meta`): a generalist loaded without ``rules=`` plays each
        rule set its card lists."""
        self._observer = observer_for(rules)
        self._rng = random.Random(seed)

    def _take_rules(self, rules: Rules) -> None:
        """Play under ``rules`` from now on, or :class:`PolicyError` where the policy cannot."""
        if not self.follow:
            raise PolicyError(f"policy {self.name!r} was made for other rules than the game's ({rules.name})")
        self.rules = check_meta(self.name, self.meta, rules)
        self._observer = observer_for(rules)

    def reset(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def act(self, observation: Any, info: dict[str, Any]) -> int:
        state = found_info_state(observation, info)
        if state is not None and state.rules != self.rules:
            self._take_rules(state.rules)
        if isinstance(observation, dict) and "observation" in observation:
            vec = np.asarray(observation["observation"], dtype=np.float32)
        elif state is not None:
            vec = self._observer.encode(state)
        else:
            raise ValueError("a policy player needs observation['observation'] or info['info_state']")
        legal = legal_actions(observation, info)
        scores = self.network.logits(vec.reshape(1, -1))[0].astype(np.float64)[legal]
        if not self.sample:
            return legal[int(np.argmax(scores))]
        p = np.exp(scores - scores.max())
        return self._rng.choices(legal, weights=list(p / p.sum()))[0]


def check_meta(path: str | Path, meta: dict[str, Any], rules: Rules | None = None) -> Rules:
    """The rules a policy is played under, after checking that its metadata was made for
    ``rules`` (default: its own; rules that differ only in what the policy can read, such as the
    target, are allowed; for a generalist, the closest of its rule sets: :func:`.compat.best_fit`),
    this observation layout and this action count."""
    try:
        family = trained_rules(meta)
    except (TypeError, ValueError, KeyError) as exc:
        raise PolicyError(f"{str(path)!r}: its rules cannot be read ({exc!r})") from exc
    rules = rules or family[0]
    fit = best_fit(family, rules)
    if not fit.ok:
        raise PolicyError(f"{fit.refusal(Path(path).stem)} ({str(path)!r})")
    if meta["num_players"] != rules.num_players:
        raise PolicyError(f"{str(path)!r} is for {meta['num_players']} players; asked for {rules.num_players}")
    version = observer_for(rules).version
    if meta["observation_version"] != version:
        raise PolicyError(
            f"{str(path)!r} reads observation layout {meta['observation_version']!r}; this engine builds {version!r}"
        )
    num_actions = action_codec(rules.max_pip).num_actions
    if meta["num_actions"] != num_actions:
        raise PolicyError(f"{str(path)!r} has {meta['num_actions']} actions; these rules have {num_actions}")
    return rules


PROBE_BATCH = 2
"""Observations in the load-time forward pass: more than one, so a fixed batch of one fails too."""


def check_output(path: str | Path, network: PolicyNetwork, rules: Rules) -> None:
    """One forward pass on zero observations of the layout's size, within :data:`CHECK_SECONDS`:
    the network must answer logits of shape ``[batch, num_actions]``, none of them NaN."""
    size, num_actions = observer_for(rules).size, action_codec(rules.max_pip).num_actions
    expected = [PROBE_BATCH, num_actions]
    try:
        out = np.asarray(network.checked_logits(np.zeros((PROBE_BATCH, size), np.float32), CHECK_SECONDS))
    except PolicyLimitError as exc:
        raise PolicyLimitError(f"{exc}; a policy answers in milliseconds") from None
    except Exception as exc:  # the runtimes raise their own types for a graph that cannot run on this input
        raise PolicyError(
            f"{str(path)!r}: its network fails on observations of shape {[PROBE_BATCH, size]}: {exc}"
        ) from exc
    if list(out.shape) != expected:
        raise PolicyError(
            f"{str(path)!r}: its network's output has the wrong shape: expected logits of shape {expected} "
            f"for {PROBE_BATCH} observations of size {size}, got {list(out.shape)}"
        )
    if np.isnan(out).any():
        raise PolicyError(f"{str(path)!r}: its network answers NaN logits for a zero observation")


def torchscript_refusal(path: str | Path) -> str:
    """Why a player refuses the TorchScript file ``path``, and how to convert it (to a file of
    its name with the suffix ``.onnx``, or ``.converted.onnx`` where it already ends so)."""
    onnx = Path(path).with_suffix(".onnx")
    if onnx == Path(path):
        onnx = Path(path).with_suffix(".converted.onnx")
    return (
        f"{str(path)!r} is a TorchScript file; TorchScript files are programs that can read and write your "
        f"files, so players load ONNX policy files only. If you trust it, convert it once with the training "
        f"tools: {CONVERT.format(path=path, onnx=onnx)}"
    )


def load_network(path: str | Path, rules: Rules | None = None) -> tuple[PolicyNetwork, dict[str, Any], Rules]:
    """The network, metadata and rules of an ONNX policy file, checked against ``rules`` (default:
    its own); :class:`PolicyError` on any mismatch, and for a TorchScript file."""

    data = read_file(path, MAX_BYTES)
    if data.startswith(ZIP_MAGIC):
        raise PolicyError(torchscript_refusal(path))
    network, meta = read_onnx(path, data)
    rules = check_meta(path, meta, rules)
    check_output(path, network, rules)
    return network, meta, rules


def load_policy(path: str | Path, rules: Rules | None = None, sample: bool = False, seed: int | None = None,
                name: str | None = None) -> PolicyPlayer:
    """A player from an exported policy file, checked against ``rules``; without ``rules`` it
    plays its own, and takes up those of any game it is handed that it can play (a generalist:
    each rule set it was trained for)."""
    network, meta, checked = load_network(path, rules)
    return PolicyPlayer(network, meta, checked, name or Path(path).stem, sample, seed, follow=rules is None)


__all__ = [  # with the policy file's own names (policy_file), found here by users of this module
    "CHECK_SECONDS", "CONVERT", "META_FILE", "REQUIRED_META", "PolicyError", "PolicyLimitError", "PolicyNetwork",
    "PolicyPlayer", "check_meta", "check_output", "load_network", "load_policy", "parse_meta", "read_file",
    "torchscript_refusal",
]


def policy_actions(network: Any, engine: Any, games: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """The masked argmax of ``network`` (a :class:`PolicyNetwork`) for
    the seat to act in each of ``games`` of ``engine`` (a
    :class:`~sniff_env.vector.engine.VectorEngine`); a forced move is played without asking it."""
    out: npt.NDArray[np.int64] = engine.legal[games, 0].astype(np.int64)
    several = engine.num_legal[games] > 1
    if several.any():
        choice = games[several]
        out[several] = network.actions(engine.obs[choice], engine.mask[choice])
    return out
