"""Players from exported policy files (TorchScript).

The contract with the training code: a file written by
``torch.jit.save(module, path, _extra_files={"sniff_meta.json": json.dumps(meta)})`` where the
module maps a float32 observation batch ``[B, obs_size]`` to logits ``[B, num_actions]`` and
``meta`` holds:

* ``rules``: :meth:`Rules.to_dict` of the rules it was trained for;
* ``num_players``;
* ``observation_version``: :attr:`Observer.version` of the layout it reads;
* ``num_actions``: the size of the action space;
* ``training_steps`` (informative).

Loading refuses a missing or corrupt file, missing metadata, or a policy made for other rules,
another layout or another action count, with a :class:`PolicyError`. The player takes the
masked argmax of the logits over the legal actions, or samples from them (``sample=True``,
seeded). torch is imported only here.
"""

from __future__ import annotations

import json
import random
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from ..actions import action_codec
from ..observation import Observer
from ..rules import Rules
from ._base import legal_actions

META_FILE = "sniff_meta.json"
REQUIRED_META = ("rules", "num_players", "observation_version", "num_actions")


class PolicyError(ValueError):
    """A policy file cannot be used: missing, corrupt, or made for other rules or layouts."""


class PolicyPlayer:
    """Plays the masked argmax (or a seeded sample) of an exported policy's logits."""

    def __init__(self, module: Any, meta: dict[str, Any], rules: Rules, name: str, sample: bool = False,
                 seed: int | None = None) -> None:
        self.name = name
        self.meta = meta
        self.rules = rules
        self.sample = sample
        self._module = module
        self._observer = Observer(rules)
        self._rng = random.Random(seed)

    def reset(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def act(self, observation: Any, info: dict[str, Any]) -> int:
        import torch

        state = info.get("info_state") if isinstance(info, dict) else None
        if state is not None and state.rules != self.rules:
            raise PolicyError(f"policy {self.name!r} was made for other rules than the game's ({state.rules.name})")
        if isinstance(observation, dict) and "observation" in observation:
            vec = np.asarray(observation["observation"], dtype=np.float32)
        elif state is not None:
            vec = self._observer.encode(state)
        else:
            raise ValueError("a policy player needs observation['observation'] or info['info_state']")
        legal = legal_actions(observation, info)
        with torch.no_grad():
            logits = self._module(torch.from_numpy(vec).reshape(1, -1))[0].double().numpy()
        scores = logits[legal]
        if not self.sample:
            return legal[int(np.argmax(scores))]
        p = np.exp(scores - scores.max())
        return self._rng.choices(legal, weights=list(p / p.sum()))[0]


def read_meta(path: str | Path) -> tuple[Any, dict[str, Any]]:
    """Load the module and its metadata, or raise :class:`PolicyError`."""
    path = Path(path)
    if not path.is_file():
        raise PolicyError(f"policy file {str(path)!r} does not exist")
    import torch

    extra = {META_FILE: ""}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # TorchScript is the agreed format
            module = torch.jit.load(str(path), map_location="cpu", _extra_files=extra)  # type: ignore[no-untyped-call]
    except Exception as exc:  # torch raises RuntimeError and others for a bad archive
        raise PolicyError(f"{str(path)!r} is not a readable TorchScript policy file: {exc}") from exc
    if not extra[META_FILE]:
        raise PolicyError(f"{str(path)!r} has no {META_FILE}: it was not exported as a sniff policy")
    try:
        meta = json.loads(extra[META_FILE])
    except json.JSONDecodeError as exc:
        raise PolicyError(f"{str(path)!r}: {META_FILE} is not valid JSON ({exc})") from exc
    missing = [k for k in REQUIRED_META if k not in meta]
    if missing:
        raise PolicyError(f"{str(path)!r}: {META_FILE} lacks {', '.join(missing)}")
    module.eval()
    return module, meta


def load_policy(path: str | Path, rules: Rules | None = None, sample: bool = False, seed: int | None = None,
                name: str | None = None) -> PolicyPlayer:
    """A player from an exported policy file, checked against ``rules`` (default: its own)."""
    module, meta, rules = load_checked(path, rules)
    return PolicyPlayer(module, meta, rules, name or Path(path).stem, sample, seed)


def load_checked(path: str | Path, rules: Rules | None = None) -> tuple[Any, dict[str, Any], Rules]:
    """The module, metadata and rules of an exported policy file, after checking that it was made
    for ``rules`` (default: its own), this observation layout and this action count."""
    module, meta = read_meta(path)
    try:
        own = Rules.from_dict(dict(meta["rules"]))
    except (TypeError, ValueError) as exc:
        raise PolicyError(f"{str(path)!r}: its rules cannot be read ({exc})") from exc
    rules = rules or own
    if own != rules:
        diff = {k: (v, rules.to_dict()[k]) for k, v in own.to_dict().items() if k != "name" and rules.to_dict()[k] != v}
        raise PolicyError(f"{str(path)!r} was trained for other rules: (policy, asked) {diff}")
    if meta["num_players"] != rules.num_players:
        raise PolicyError(f"{str(path)!r} is for {meta['num_players']} players; asked for {rules.num_players}")
    version = Observer(rules).version
    if meta["observation_version"] != version:
        raise PolicyError(
            f"{str(path)!r} reads observation layout {meta['observation_version']!r}; this engine builds {version!r}"
        )
    num_actions = action_codec(rules.max_pip).num_actions
    if meta["num_actions"] != num_actions:
        raise PolicyError(f"{str(path)!r} has {meta['num_actions']} actions; these rules have {num_actions}")
    return module, meta, rules
