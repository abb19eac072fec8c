"""Small ONNX files shaped like a 2-player ``sniff`` policy (input, output, metadata) that would blow
up if run freely: each a few kilobytes to a few megabytes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
from onnx import TensorProto, helper, numpy_helper, save_model

from sniff_env.observation import Observer
from sniff_env.players.policy import META_FILE
from sniff_env.presets import make_rules

RULES = make_rules("sniff", 2)
SIZE, WIDTH = Observer(RULES).size, Observer(RULES).codec.num_actions


def meta() -> dict[str, Any]:
    observer = Observer(RULES)
    return {"rules": RULES.to_dict(), "num_players": 2, "observation_version": observer.version,
            "num_actions": observer.codec.num_actions}


def policy_file(path: Path, nodes: list[Any], weights: dict[str, np.ndarray], sparse: list[Any] | None = None,
                metadata: str | None = None) -> Path:
    """``nodes`` computing a scalar ``extra``, added to zero logits of the right shape."""
    graph = helper.make_graph(
        [*nodes, helper.make_node("MatMul", ["obs", "zero"], ["h"]), helper.make_node("Add", ["h", "extra"], ["logits"])],
        "hostile", [helper.make_tensor_value_info("obs", TensorProto.FLOAT, ["batch", SIZE])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", WIDTH])],
        [numpy_helper.from_array(v, k) for k, v in (weights | {"zero": np.zeros((SIZE, WIDTH), np.float32)}).items()],
        sparse_initializer=sparse or [],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 10
    helper.set_model_props(model, {META_FILE: metadata if metadata is not None else json.dumps(meta())})
    save_model(model, str(path))
    return path


def sparse_square(path: Path, side: int = 16_000) -> Path:
    """One sparse weight of ``side``² float32 holding a single value (1 GB for 16,000² once expanded)."""
    values = numpy_helper.from_array(np.ones(1, np.float32), "big")
    indices = numpy_helper.from_array(np.zeros((1, 2), np.int64), "big_indices")
    sparse = helper.make_sparse_tensor(values, indices, [side, side])
    return policy_file(path, [helper.make_node("ReduceSum", ["big"], ["extra"], keepdims=0)], {}, [sparse])


def data_sliced(path: Path, length: int = 20_000) -> Path:
    """A slice of a weight vector whose end is read from the observation, squared into a matrix:
    nothing on zero observations, ``length``² elements on a real one."""
    nodes = [
        helper.make_node("ReduceSum", ["obs"], ["total"], keepdims=0),
        helper.make_node("Mul", ["total", "scale"], ["scaled"]),
        helper.make_node("Cast", ["scaled"], ["end_scalar"], to=TensorProto.INT64),
        helper.make_node("Reshape", ["end_scalar", "one"], ["end"]),
        helper.make_node("Slice", ["long", "start", "end"], ["part"]),
        helper.make_node("Unsqueeze", ["part", "axis"], ["column"]),
        helper.make_node("Mul", ["column", "part"], ["square"]),
        helper.make_node("ReduceSum", ["square"], ["extra"], keepdims=0),
    ]
    return policy_file(path, nodes, {"scale": np.array(1e6, np.float32), "one": np.array([1], np.int64),
                                     "start": np.array([0], np.int64), "axis": np.array([1], np.int64),
                                     "long": np.ones(length, np.float32)})


def batch_squared(path: Path, depth: int = 16) -> Path:
    """Every observation against every other, ``depth`` times over: batch² × ``depth`` elements."""
    nodes = [
        helper.make_node("Transpose", ["obs"], ["columns"]),
        helper.make_node("MatMul", ["obs", "columns"], ["pairs"]),
        helper.make_node("Unsqueeze", ["pairs", "axis"], ["deep"]),
        helper.make_node("Mul", ["deep", "layers"], ["cube"]),
        helper.make_node("ReduceSum", ["cube"], ["extra"], keepdims=0),
    ]
    return policy_file(path, nodes, {"axis": np.array([2], np.int64), "layers": np.ones(depth, np.float32)})


def many_nodes(path: Path, count: int = 100_000) -> Path:
    """A chain of ``count`` additions (about 2.5 MB for 100,000)."""
    nodes = [helper.make_node("Add", ["obs" if i == 0 else f"x{i - 1}", "one"], [f"x{i}"]) for i in range(count)]
    nodes.append(helper.make_node("ReduceSum", [f"x{count - 1}"], ["extra"], keepdims=0))
    return policy_file(path, nodes, {"one": np.ones(1, np.float32)})


def deep_metadata(path: Path, depth: int = 100_000) -> Path:
    """A harmless graph whose metadata nests ``depth`` lists deep."""
    nodes = [helper.make_node("ReduceSum", ["obs"], ["extra"], keepdims=0)]
    return policy_file(path, nodes, {}, metadata="[" * depth + "]" * depth)


def fails_in_play(path: Path) -> Path:
    """Fine on zero observations (the load-time check); an index out of range on a real one."""
    nodes = [
        helper.make_node("ReduceSum", ["obs"], ["total"], keepdims=0),
        helper.make_node("Mul", ["total", "scale"], ["scaled"]),
        helper.make_node("Cast", ["scaled"], ["index"], to=TensorProto.INT64),
        helper.make_node("Gather", ["few", "index"], ["extra"], axis=0),
    ]
    return policy_file(path, nodes, {"scale": np.array(1000.0, np.float32), "few": np.zeros(4, np.float32)})


def long_product(path: Path, side: int = 1024) -> Path:
    """One ``MatMul`` per call, of a ``side`` × ``side`` matrix per observation by a ``side`` × ``side``
    weight: within every size bound, but ``side``³ multiply-adds per observation (about 1 s for
    1,024 on one core), all in a single operation."""
    nodes = [
        helper.make_node("MatMul", ["obs", "wide"], ["row"]),
        helper.make_node("Unsqueeze", ["row", "axis"], ["column"]),
        helper.make_node("Mul", ["column", "ones"], ["plane"]),
        helper.make_node("MatMul", ["plane", "square"], ["product"]),
        helper.make_node("ReduceSum", ["product"], ["extra"], keepdims=0),
    ]
    gen = np.random.default_rng(0)
    return policy_file(path, nodes, {"wide": gen.random((SIZE, side), np.float32), "axis": np.array([2], np.int64),
                                     "ones": np.ones((1, side), np.float32),
                                     "square": gen.random((side, side), np.float32) / side})
