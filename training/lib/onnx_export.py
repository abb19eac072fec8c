"""Export of a policy module to an ONNX file that ``sniff_env`` plays without torch.

The graph: input ``obs`` float32 ``[batch, obs_size]`` (free batch size), output ``logits``
``[batch, num_actions]``; opset :data:`OPSET`; the policy's metadata as the JSON value of the
``metadata_props`` entry ``sniff_meta.json``. Written by torch's ``torch.export``-based exporter
(it needs ``onnxscript``); the file is read back through ``sniff_env``'s loader and checked
against the module on real positions before it replaces ``path``.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from sniff_env.atomic import atomic_path
from sniff_env.game import Phase, new_game
from sniff_env.infostate import info_state
from sniff_env.observation import observer_for
from sniff_env.players.policy import META_FILE, load_network
from sniff_env.rules import Rules

OPSET = 18
INPUT, OUTPUT = "obs", "logits"
CHECK_POSITIONS = 16
TOLERANCE = 1e-4
"""Largest difference allowed between the module's logits and the exported graph's."""


class ExportError(RuntimeError):
    """The exported graph does not compute what the module computes."""


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Hold back the exporter's progress lines, log records and warnings about torch internals."""
    logger = logging.getLogger("torch.onnx")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()), \
                contextlib.redirect_stderr(io.StringIO()):
            warnings.simplefilter("ignore")
            yield
    finally:
        logger.setLevel(level)


def sample_observations(rules: Rules, count: int = CHECK_POSITIONS, seed: int = 0) -> np.ndarray:
    """``count`` observations of one seeded game, the first legal move played each time."""
    observer = observer_for(rules)
    game = new_game(rules, seed=seed, record=False)
    out = []
    while len(out) < count and game.phase is not Phase.GAME_OVER:
        if game.phase is Phase.HAND_OVER:
            game.start_hand()
            continue
        info = info_state(game, game.turn)
        out.append(observer.encode(info))
        game.step(info.legal[0])
    return np.stack(out).astype(np.float32)


def export_onnx(module: nn.Module, path: str | Path, meta: dict[str, Any]) -> Path:
    """Write ``module`` (observations -> logits, traceable: no shape may depend on the data)
    as an ONNX policy file with ``meta``, atomically; :class:`ExportError` if the graph read
    back disagrees with the module."""
    import onnx

    rules = Rules.from_dict(dict(meta["rules"]))
    module = module.eval()
    example = torch.zeros(2, observer_for(rules).size)
    with _quiet():
        program = torch.onnx.export(
            module, (example,), dynamo=True, input_names=[INPUT], output_names=[OUTPUT], opset_version=OPSET,
            dynamic_shapes=({0: torch.export.Dim("batch", min=1)},), verbose=False,
        )
    model = program.model_proto
    model.doc_string = "sniff-env policy: observations [batch, obs_size] -> logits [batch, num_actions]"
    kept = [p for p in model.metadata_props if p.key != META_FILE]
    del model.metadata_props[:]
    model.metadata_props.extend(kept)
    model.metadata_props.add(key=META_FILE, value=json.dumps(meta, sort_keys=True))
    onnx.checker.check_model(model)
    with atomic_path(path, suffix=".tmp.onnx") as tmp:
        onnx.save_model(model, str(tmp))
        network, _, _ = load_network(tmp, rules)
        obs = sample_observations(rules)
        with torch.no_grad():
            want = module(torch.from_numpy(obs)).numpy()
        gap = float(np.abs(network.logits(obs) - want).max())
        if not gap <= TOLERANCE:
            raise ExportError(f"the ONNX graph's logits differ from the module's by {gap:.3g} (> {TOLERANCE})")
    return Path(path)
