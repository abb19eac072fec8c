"""How large a policy graph's tensors can grow, as far as it is known before it runs.

:func:`check_shapes` infers every tensor's shape with the ``onnx`` package, the batch size named
:data:`BATCH` (the file's own shape annotations are dropped first: a file could claim what it
likes), and refuses, with a :class:`~.policy_file.PolicyError` naming the tensor and the node
that makes it:

* a graph whose shapes cannot be inferred;
* a ``Slice`` whose starts, ends, axes or steps are computed from the observations' values (from
  their *shape* is fine): its size would depend on the data it is given;
* a tensor that grows faster than the batch (a shape holding the batch size twice, such as an
  observation times each other observation);
* a tensor of more than :data:`MAX_ROW_ELEMENTS` elements per observation, or one independent of
  the batch of more than :data:`MAX_FIXED_ELEMENTS`, counting the sizes inference knows.

Some sizes of the exports are counts read from the data (the ``k`` of a ``TopK``, the legal moves
of the batch, and what is reshaped and broadcast to it), which inference leaves unknown: those are
bounded while the graph runs, by the limits of the process that runs it (:mod:`.policy_process`),
which grow with the batch.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING

from sniff_env.players.policy_file import PolicyError

if TYPE_CHECKING:
    from onnx import ModelProto, NodeProto

BATCH = "sniff_batch"
"""The name given to the batch size (the observations' first dimension) during inference."""
MAX_ROW_ELEMENTS = 2**20
"""The most elements a tensor may hold per observation of the batch (the exports hold at most a
few thousand)."""
MAX_FIXED_ELEMENTS = 2**24
"""The most elements of a tensor whose size does not depend on the batch (64 MB of float32: as much
as a policy file may hold)."""


def _data_fed(model: ModelProto, observations: str) -> set[str]:
    """The values computed from the observations' values (not only from their shape)."""
    fed = {observations}
    for node in model.graph.node:
        if node.op_type != "Shape" and any(i in fed for i in node.input):
            fed.update(node.output)
    return fed


def _inferred(path: str | Path, model: ModelProto, observations: str) -> ModelProto:
    """``model`` with the shapes the ``onnx`` package infers, the batch named :data:`BATCH`."""
    import onnx

    bare = type(model)()
    bare.CopyFrom(model)
    del bare.graph.value_info[:]
    for value in bare.graph.input:
        if value.name == observations and value.type.tensor_type.shape.dim:
            value.type.tensor_type.shape.dim[0].Clear()
            value.type.tensor_type.shape.dim[0].dim_param = BATCH
    for value in bare.graph.output:
        value.type.tensor_type.ClearField("shape")
    try:
        return onnx.shape_inference.infer_shapes(bare, check_type=True, strict_mode=True, data_prop=True)
    except (onnx.shape_inference.InferenceError, onnx.checker.ValidationError, RuntimeError, ValueError) as exc:
        lines = str(exc).strip().splitlines() or [type(exc).__name__]
        raise PolicyError(f"{str(path)!r} is refused: the shapes of its graph cannot be worked out ({lines[-1]})") from None


def _where(node: NodeProto) -> str:
    article = "an" if node.op_type[:1] in "AEIOU" else "a"
    return f"its {node.op_type} node {node.name!r}" if node.name else f"{article} {node.op_type} node"


def check_shapes(path: str | Path, model: ModelProto, observations: str) -> None:
    """:class:`PolicyError` unless the tensors of ``model``'s graph (observations in
    ``observations``) have sizes bounded as the module says."""
    name = str(path)
    fed = _data_fed(model, observations)
    for node in model.graph.node:
        if node.op_type == "Slice" and any(i in fed for i in node.input[1:]):
            raise PolicyError(
                f"{name!r} is refused: {_where(node)} takes its bounds from the observations' values, so its "
                f"output's size depends on the data it is given; a policy slices by its weights and the "
                f"observations' shape only")
    inferred = _inferred(path, model, observations)
    made = {out: node for node in model.graph.node for out in node.output}
    for value in [*inferred.graph.value_info, *inferred.graph.output]:
        node = made.get(value.name)
        tensor = value.type.tensor_type
        if node is None or not tensor.HasField("shape"):
            continue
        dims = [d.dim_value if d.HasField("dim_value") else d.dim_param for d in tensor.shape.dim]
        shape = [d if isinstance(d, int) else "batch" if d == BATCH else "?" for d in dims]
        rows = dims.count(BATCH)
        if rows > 1:
            raise PolicyError(
                f"{name!r} is refused: {value.name!r}, made by {_where(node)}, grows faster than the batch (shape "
                f"{shape}); a policy's tensors grow in proportion to the batch")
        known = math.prod(d for d in dims if isinstance(d, int))
        limit = MAX_ROW_ELEMENTS if rows else MAX_FIXED_ELEMENTS
        if known > limit:
            per = " per observation" if rows else ""
            raise PolicyError(
                f"{name!r} is refused: {value.name!r}, made by {_where(node)}, holds {known:,} elements{per} (shape "
                f"{shape}); a policy's tensors hold at most {limit:,}{per}")
