"""What the hostile-input tables share: a time limit per test (a hang fails the test instead of
the run) and a finished game's log to spoil."""

from __future__ import annotations

import copy
import json
import signal
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Any

import numpy as np
import pytest

from sniff_env.gamelog import game_log
from sniff_env.play.session import Session
from sniff_env.presets import make_rules

LIMIT_S = 60
RULES = make_rules("sniff", 2, target=30)


@pytest.fixture(autouse=True)
def deadline() -> Iterator[None]:
    """Fail the test that runs longer than ``LIMIT_S`` seconds (POSIX main thread only)."""
    if not hasattr(signal, "SIGALRM"):
        yield
        return

    def expire(_signum: int, _frame: FrameType | None) -> None:
        raise TimeoutError(f"the test ran over {LIMIT_S} s: something hangs")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(LIMIT_S)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def started(seed: int = 8) -> Session:
    """A game against ``random``, the human to move (or the hand over)."""
    session = Session.start(RULES, ["random"], seed=seed)
    session.advance()
    return session


def finished(seed: int = 8) -> Session:
    """A game played to its end, the human always playing its first legal move."""
    session = started(seed)
    while session.game.phase.name != "GAME_OVER":
        if session.game.phase.name == "HAND_OVER":
            session.next_hand()
        else:
            session.play(session.game.legal_actions()[0])
    return session


SESSION = finished()
LOG: dict[str, Any] = game_log(SESSION.game, [p.spec for p in SESSION.seats], SESSION.meta)


def edited(**changes: Any) -> str:
    """:data:`LOG` as JSON text with ``changes``: ``hands__0__result=[1, 2]`` sets
    ``log["hands"][0]["result"]``."""
    log = copy.deepcopy(LOG)
    for path, value in changes.items():
        *keys, last = path.split("__")
        node: Any = log
        for k in keys:
            node = node[int(k)] if isinstance(node, list) else node[k]
        node[int(last) if isinstance(node, list) else last] = value
    return json.dumps(log)


def spinning_policy(path: Path) -> Path:
    """An ONNX file shaped like a 2-player ``sniff`` policy (input, output, metadata) whose logits
    wait on a ``Loop`` of 2**62 trips: run, it would spin for ever."""
    from onnx import TensorProto, helper, numpy_helper, save_model

    from sniff_env.observation import Observer
    from sniff_env.players.policy import META_FILE

    observer = Observer(RULES)
    scalar = [helper.make_tensor_value_info(n, t, []) for n, t in
              (("cond", TensorProto.BOOL), ("acc", TensorProto.FLOAT))]
    body = helper.make_graph([helper.make_node("Identity", ["cond"], ["cond_out"]),
                              helper.make_node("Identity", ["acc"], ["acc_out"])], "body",
                             [helper.make_tensor_value_info("i", TensorProto.INT64, []), *scalar],
                             [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
                              helper.make_tensor_value_info("acc_out", TensorProto.FLOAT, [])])
    graph = helper.make_graph(
        [helper.make_node("Loop", ["trips", "yes", "start"], ["spun"], body=body),
         helper.make_node("MatMul", ["obs", "zero"], ["h"]), helper.make_node("Add", ["h", "spun"], ["logits"])],
        "spin", [helper.make_tensor_value_info("obs", TensorProto.FLOAT, ["batch", observer.size])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", observer.codec.num_actions])],
        [numpy_helper.from_array(np.array(2**62, np.int64), "trips"), numpy_helper.from_array(np.array(True), "yes"),
         numpy_helper.from_array(np.array(0.0, np.float32), "start"),
         numpy_helper.from_array(np.zeros((observer.size, observer.codec.num_actions), np.float32), "zero")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 10
    meta = {"rules": RULES.to_dict(), "num_players": 2, "observation_version": observer.version,
            "num_actions": observer.codec.num_actions}
    helper.set_model_props(model, {META_FILE: json.dumps(meta)})
    save_model(model, str(path))
    return path
