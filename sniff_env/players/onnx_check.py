"""What an ONNX policy file may hold, checked before onnxruntime reads it.

A policy file is data: a graph of the operators the project's own exports use, weights, and the
policy's metadata. :func:`checked_model` parses the bytes with the ``onnx`` package and refuses,
with a :class:`~.policy.PolicyError` naming what it found:

* a file over :data:`MAX_BYTES` (the shipped ones hold 1 to 3 MB), or whose weights take more than
  :data:`MAX_BYTES` once expanded (a sparse weight counts at its dense size: onnxruntime expands it);
* a graph of more than :data:`MAX_NODES` nodes (building the session takes time with their count);
* a node, anywhere (the main graph, a graph held by an attribute, a model-local function), of a
  domain other than the default ONNX one or of an operator outside :data:`ALLOWED_OPS`, the
  operators of every shipped file and of the export of every network architecture of the training
  code: no control flow (``Loop``, ``Scan``, ``If``), no custom operators, and none of the
  operators that make a tensor as large as a number read at run time (``ConstantOfShape``,
  ``Tile``, ``Range``, ``Pad``, ``Resize``, ``OneHot``...); also model-local functions, graphs in
  attributes and training information, which no export holds;
* weights kept in other files (external data);
* sizes that could depend on the data or grow faster than the batch (:mod:`.onnx_shapes`).

Memory: the size of every tensor is then a product of sizes the graph already holds (its
weights, bounded by the file's size; the batch; counts bounded by the observation), except for
``Expand``, which the exports use to broadcast to the batch and the legal-move count, and which
can be asked for any shape. :func:`guard_expands` bounds it: before each ``Expand`` the graph
checks its target shape, and one of more than :data:`EXPAND_ELEMENTS_PER_ROW` elements per
observation of the batch is replaced by sizes of -1, which onnxruntime refuses ("invalid expand
shape", as it refuses any negative size): the run fails instead of allocating. Whatever passes
these checks still runs in a process of its own under a time limit and a memory cap
(:mod:`.policy_process`), and onnxruntime's constant folding, which would run the graph's
constant parts while building the session, is turned off.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sniff_env.players.onnx_shapes import check_shapes
from sniff_env.players.policy_file import PolicyError

if TYPE_CHECKING:
    from onnx import ModelProto, NodeProto

MAX_BYTES = 64 * 2**20
"""The largest policy file read (the shipped ones hold 1 to 3 MB)."""
ALLOWED_OPS = frozenset({
    "Add", "Cast", "Clip", "Concat", "Div", "Einsum", "Equal", "Expand", "Floor", "Gather", "GatherElements",
    "GatherND", "Gemm", "Greater", "MatMul", "Mul", "NonZero", "Not", "ReduceMax", "ReduceMean", "ReduceSum",
    "Relu", "Reshape", "Round", "ScatterElements", "ScatterND", "Shape", "Slice", "Softmax", "Split", "Squeeze",
    "Sub", "Tanh", "TopK", "Transpose", "Unsqueeze", "Where",
})
"""The operators of every shipped policy file and of the ONNX export of every architecture of
``training/lib/network.py`` (and of the SB3 trainer's ``Tanh`` policy); see the module."""
DEFAULT_DOMAINS = ("", "ai.onnx")
OPSETS = range(13, 100)
"""Versions of the default operator set a policy may be written for (the exports use 18)."""
MAX_NODES = 4096
"""The most nodes of a policy graph (the shipped ones hold at most 354)."""
EXPAND_ELEMENTS_PER_ROW = 2**18
"""The most elements an ``Expand`` may make per observation of the batch (the exports make at
most a few tens of thousands)."""
GUARD = "sniff_guard"
"""The prefix of the names of the nodes and values :func:`guard_expands` adds."""


def _nodes(nodes: Iterable[NodeProto], where: str) -> Iterator[tuple[NodeProto, str]]:
    """Every node of ``nodes`` and of the graphs their attributes hold, with where it is."""
    for node in nodes:
        yield node, where
        for attr in node.attribute:
            inner = [attr.g] if attr.HasField("g") else []
            for sub in [*inner, *attr.graphs]:
                yield from _nodes(sub.node, f"a graph inside its {node.op_type} node {node.name!r}")


def _tensors(model: ModelProto) -> Iterator[Any]:
    """Every tensor the model stores: initializers and tensors held by attributes."""
    graphs = [model.graph]
    while graphs:
        graph = graphs.pop()
        yield from graph.initializer
        for sparse in graph.sparse_initializer:
            yield sparse.values
            yield sparse.indices
        for node in graph.node:
            for attr in node.attribute:
                yield from ([attr.t] if attr.HasField("t") else [])
                yield from attr.tensors
                graphs.extend([attr.g] if attr.HasField("g") else [])
                graphs.extend(attr.graphs)


def _elements(dims: Iterable[int]) -> int:
    count = 1
    for d in dims:
        count *= max(int(d), 0)
    return count


def dense_bytes(model: ModelProto) -> int:
    """The bytes the model's weights take once expanded: every initializer and tensor attribute,
    a sparse one at its dense size."""
    from onnx import helper

    def itemsize(kind: int) -> int:
        try:
            return int(helper.tensor_dtype_to_np_dtype(kind).itemsize)
        except (KeyError, ValueError, TypeError):
            return 8

    total, graphs = 0, [model.graph]
    while graphs:
        graph = graphs.pop()
        total += sum(_elements(t.dims) * itemsize(t.data_type) for t in graph.initializer)
        total += sum(_elements(t.dims) * itemsize(t.values.data_type) for t in graph.sparse_initializer)
        for node in graph.node:
            for attr in node.attribute:
                tensors = [*([attr.t] if attr.HasField("t") else []), *attr.tensors]
                total += sum(_elements(t.dims) * itemsize(t.data_type) for t in tensors)
                sparse = [*([attr.sparse_tensor] if attr.HasField("sparse_tensor") else []), *attr.sparse_tensors]
                total += sum(_elements(t.dims) * itemsize(t.values.data_type) for t in sparse)
                graphs.extend([*([attr.g] if attr.HasField("g") else []), *attr.graphs])
    return total


def parse_model(path: str | Path, data: bytes) -> ModelProto:
    """The ONNX model in ``data`` (the bytes of ``path``), or :class:`PolicyError`."""
    try:
        import onnx
        from google.protobuf.message import DecodeError
    except ImportError as exc:
        raise PolicyError(f"reading {str(path)!r} needs the onnx package (pip install onnx)") from exc
    if len(data) > MAX_BYTES:
        raise PolicyError(f"policy file {str(path)!r} is {len(data):,} bytes; a policy file holds at most "
                          f"{MAX_BYTES:,} (the shipped ones hold 1 to 3 MB)")
    try:
        model = onnx.ModelProto.FromString(data)
    except (DecodeError, RuntimeError, ValueError) as exc:  # protobuf's parse errors
        raise PolicyError(f"{str(path)!r} is not a sniff ONNX policy file: its bytes are no ONNX model ({exc})") from None
    if not model.HasField("graph") or not model.graph.node:
        raise PolicyError(f"{str(path)!r} is not a sniff ONNX policy file: it holds no ONNX graph")
    return model


def check_model(path: str | Path, model: ModelProto) -> None:
    """:class:`PolicyError` unless ``model`` holds only what a policy file may (see the module)."""
    name = str(path)
    allowed = ", ".join(sorted(ALLOWED_OPS))
    if len(model.graph.node) > MAX_NODES:
        raise PolicyError(f"{name!r} is refused: its graph holds {len(model.graph.node):,} nodes; a policy graph holds "
                          f"at most {MAX_NODES:,} (the shipped ones a few hundred)")
    weights = dense_bytes(model)
    if weights > MAX_BYTES:
        raise PolicyError(f"{name!r} is refused: its weights take {weights:,} bytes once expanded (sparse ones at their "
                          f"dense size); a policy's weights take at most {MAX_BYTES:,}")
    walks = [_nodes(model.graph.node, "its graph")]
    walks += [_nodes(f.node, f"its function {f.name!r}") for f in model.functions]
    for node, where in (item for walk in walks for item in walk):
        if node.domain not in DEFAULT_DOMAINS:
            raise PolicyError(
                f"{name!r} is refused: {where} has a node {node.op_type!r} of the operator domain {node.domain!r}; "
                f"a policy file uses only the default ONNX domain and these operators: {allowed}"
            )
        if node.op_type not in ALLOWED_OPS:
            raise PolicyError(
                f"{name!r} is refused: {where} uses the operator {node.op_type!r}, which policy files do not "
                f"use; the operators allowed are: {allowed}"
            )
    nested = next((n for n in model.graph.node for a in n.attribute if a.HasField("g") or len(a.graphs)), None)
    if nested is not None:
        raise PolicyError(f"{name!r} is refused: its {nested.op_type} node {nested.name!r} holds a graph; policy "
                          f"files hold none")
    if len(model.functions):
        raise PolicyError(f"{name!r} is refused: it defines functions ({model.functions[0].name!r}...); "
                          f"policy files hold none")
    if len(model.training_info):
        raise PolicyError(f"{name!r} is refused: it holds training information; policy files hold none")
    for opset in model.opset_import:
        if opset.domain in DEFAULT_DOMAINS and opset.version not in OPSETS:
            raise PolicyError(f"{name!r} is refused: it is written for ONNX operator set {opset.version}; "
                              f"policy files use {OPSETS.start} or later")
    if any(t.data_location == 1 or len(t.external_data) for t in _tensors(model)):  # TensorProto.EXTERNAL
        raise PolicyError(f"{name!r} refers to external data files; a policy file must hold all its weights")


def graph_input(model: ModelProto) -> str:
    """The name of the graph's one input that no initializer feeds (the observations)."""
    fed = {t.name for t in model.graph.initializer}
    inputs = [i.name for i in model.graph.input if i.name not in fed]
    return inputs[0] if len(inputs) == 1 else ""


def guard_expands(model: ModelProto) -> ModelProto:
    """``model`` with each ``Expand``'s target shape checked first: one of more than
    :data:`EXPAND_ELEMENTS_PER_ROW` elements per observation becomes sizes of -1, which the
    runtime refuses (see the module). A graph without ``Expand`` is returned as it is."""
    from onnx import TensorProto, helper, numpy_helper

    if not any(n.op_type == "Expand" for n in model.graph.node) or not graph_input(model):
        return model
    import numpy as np

    taken = {v for n in model.graph.node for v in (*n.input, *n.output)}
    taken |= {t.name for t in model.graph.initializer} | {i.name for i in model.graph.input}
    prefix = GUARD
    while any(v.startswith(prefix) for v in taken):
        prefix += "_"
    per_row, zero, one = f"{prefix}_per_row", f"{prefix}_zero", f"{prefix}_one_int"
    batch = f"{prefix}_batch"
    head = [
        helper.make_node("Shape", [graph_input(model)], [f"{batch}_shape"]),
        helper.make_node("Gather", [f"{batch}_shape", zero], [f"{batch}_rows"], axis=0),
        helper.make_node("Cast", [f"{batch}_rows"], [f"{batch}_d"], to=TensorProto.DOUBLE),
        helper.make_node("Max", [f"{batch}_d", f"{prefix}_one"], [batch]),
        helper.make_node("Mul", [batch, per_row], [f"{prefix}_limit"]),
    ]
    nodes: list[Any] = []
    for i, node in enumerate(model.graph.node):
        if node.op_type == "Expand" and len(node.input) == 2:
            g, target = f"{prefix}_{i}", node.input[1]
            nodes += [
                helper.make_node("Cast", [target], [f"{g}_d"], to=TensorProto.DOUBLE),
                helper.make_node("ReduceProd", [f"{g}_d"], [f"{g}_size"], keepdims=0),
                helper.make_node("Greater", [f"{g}_size", f"{prefix}_limit"], [f"{g}_big"]),
                helper.make_node("Mul", [target, zero], [f"{g}_zeros"]),
                helper.make_node("Sub", [f"{g}_zeros", one], [f"{g}_refused"]),
                helper.make_node("Where", [f"{g}_big", f"{g}_refused", target], [f"{g}_target"]),
            ]
            node = helper.make_node("Expand", [node.input[0], f"{g}_target"], list(node.output), name=node.name)
        nodes.append(node)
    guarded = type(model)()
    guarded.CopyFrom(model)
    del guarded.graph.node[:]
    guarded.graph.node.extend(head + nodes)
    guarded.graph.initializer.extend([
        numpy_helper.from_array(np.array(float(EXPAND_ELEMENTS_PER_ROW)), per_row),
        numpy_helper.from_array(np.array(0, np.int64), zero),
        numpy_helper.from_array(np.array(1, np.int64), one),
        numpy_helper.from_array(np.array(1.0), f"{prefix}_one"),
    ])
    return guarded


def checked_model(path: str | Path, data: bytes) -> ModelProto:
    """The model in ``data`` (the bytes of the policy file ``path``), checked (:func:`check_model`,
    :func:`.onnx_shapes.check_shapes`) and with its ``Expand`` nodes guarded (:func:`guard_expands`); :class:`PolicyError` if refused."""
    model = parse_model(path, data)
    check_model(path, model)
    check_shapes(path, model, graph_input(model))
    return guard_expands(model)
