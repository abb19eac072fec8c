"""``infos="full"``: plain dicts of events and the information state, read from the one live game."""

from __future__ import annotations

import pickle
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np

from sniff_env import raw_env
from sniff_env.infostate import info_state


def _play(env: raw_env, seed: int, read_now: bool) -> tuple[list[Any], list[Any]]:
    """Random play to the end of one game; the infos handed out, read at once or kept unread."""
    env.reset(seed=seed)
    rng = random.Random(seed)
    kept: list[Any] = []
    read: list[Any] = []
    while env.agents:
        agent = env.agent_selection
        _, _, term, trunc, info = env.last()
        (read.append(dict(info)) if read_now else kept.append(info))
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(env.observe(agent)["action_mask"])
        env.step(int(legal[rng.randrange(len(legal))]))
    return read, kept


def test_infos_read_late_are_the_infos_of_their_decision() -> None:
    now, _ = _play(raw_env("sniff", 3, infos="full"), 11, read_now=True)
    env = raw_env("sniff", 3, infos="full")
    _, kept = _play(env, 11, read_now=False)
    env.reset(seed=12)  # the infos of the finished game still read that game
    late = [dict(info) for info in kept]
    assert late == now
    kinds = {e.kind for info in late for e in info["events"]}
    assert {"play", "hand_end", "game_end"} <= kinds


def test_an_info_is_a_plain_dict_of_its_decision() -> None:
    env = raw_env("sniff", 2, infos="full")
    env.reset(seed=5)
    mover = env.agent_selection
    info = env.infos[mover]
    assert type(info) is dict and sorted(info) == ["events", "info_state"]
    assert pickle.loads(pickle.dumps(info)) == info
    state = info["info_state"]
    assert state == info_state(env.game, env.agents.index(mover)) and info["events"] == env.events(mover)
    legal = np.flatnonzero(env.observe(mover)["action_mask"])
    assert list(state.legal) == legal.tolist()
    env.step(int(legal[0]))
    assert info["info_state"] is state and state != env.info_state(mover)  # it stays that of its decision
    nxt = env.agent_selection
    assert env.infos[nxt] == {"events": env.events(nxt), "info_state": env.info_state(nxt)}
    assert env.events(mover)[0].player == env.agents.index(mover)  # from its own decision on
    assert env.full_info(mover) == {"events": env.events(mover)}  # no information state while waiting


def test_the_env_runs_without_numba() -> None:
    """Where numba cannot be imported, the env encodes through the observer in Python and hands
    out the same observations as with the compiled encoder."""
    play = ("env = sniff_env.raw_env()\nenv.reset(seed=1)\nseen = []\n"
            "for agent in env.agent_iter(50):\n    obs, _, term, trunc, _ = env.last()\n"
            "    seen.append(obs['observation'].tobytes().hex() + obs['action_mask'].tobytes().hex())\n"
            "    env.step(None if term or trunc else int(obs['action_mask'].argmax()))\n"
            "import hashlib\nprint(hashlib.sha256(''.join(seen).encode()).hexdigest(), 'numba' in sys.modules)")
    blocked = ("import importlib.abc, sys\n"
               "class NoNumba(importlib.abc.MetaPathFinder):\n"
               "    def find_spec(self, name, path=None, target=None):\n"
               "        if name == 'numba' or name.startswith('numba.'):\n"
               "            raise ImportError(f'{name} is blocked')\n"
               "sys.meta_path.insert(0, NoNumba())\n")
    root = Path(__file__).resolve().parent.parent
    runs = [subprocess.run([sys.executable, "-c", f"{prefix}import sys, sniff_env\n{play}"], cwd=root,
                           capture_output=True, text=True, check=True, timeout=300).stdout.split()
            for prefix in (blocked, "")]
    assert runs[0][1] == "False" and runs[1][1] == "True"
    assert runs[0][0] == runs[1][0]
