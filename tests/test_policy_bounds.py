"""A policy is bounded while it loads and while it plays: graphs that could grow with the data or
faster than the batch are refused at load, and every call runs in the policy's own process under
a time limit and a memory cap that stop it mid-operation, with one line naming the file."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

import hostile_graphs as graphs
from hostile import deadline  # noqa: F401  (a time limit per test: a hang fails the test)

from sniff_env.cli import main as sniff_main
from sniff_env.players import load
from sniff_env.players.onnx_check import MAX_NODES
from sniff_env.players.policy import PolicyError, PolicyLimitError
from sniff_env.players.policy_process import call_limits

RULES = graphs.RULES


def refused_fast(path: Path, says: str) -> None:
    start = time.monotonic()
    with pytest.raises(PolicyError, match=says):
        load(str(path), rules=RULES)
    assert time.monotonic() - start < 5


def test_sparse_weights_count_at_their_dense_size(tmp_path: Path) -> None:
    path = graphs.sparse_square(tmp_path / "sparse.onnx")
    assert path.stat().st_size < 2**20
    refused_fast(path, "its weights take 1,024,385,088 bytes once expanded .*at most 67,108,864")


def test_a_slice_sized_by_the_data_is_refused(tmp_path: Path) -> None:
    refused_fast(graphs.data_sliced(tmp_path / "sliced.onnx"), "Slice node takes its bounds from the observations' values")


def test_a_graph_growing_faster_than_the_batch_is_refused(tmp_path: Path) -> None:
    refused_fast(graphs.batch_squared(tmp_path / "square.onnx"),
                 r"'pairs', made by a MatMul node, grows faster than the batch \(shape \['batch', 'batch'\]\)")


def test_node_count_is_capped_before_anything_is_built(tmp_path: Path) -> None:
    refused_fast(graphs.many_nodes(tmp_path / "many.onnx", 100_000), "holds 100,003 nodes; .* at most 4,096")
    start = time.monotonic()
    player = load(str(graphs.many_nodes(tmp_path / "most.onnx", MAX_NODES - 3)), rules=RULES)
    assert time.monotonic() - start < 10 and player.network.logits(np.zeros((1, graphs.SIZE), np.float32)).shape


def test_deep_metadata_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = graphs.deep_metadata(tmp_path / "deep.onnx")
    assert sniff_main(["eval", str(path), "random", "--games", "2", "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "sniff_meta.json nests too deeply" in err and "Traceback" not in err


def test_a_policy_failing_in_play_ends_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = graphs.fails_in_play(tmp_path / "fails.onnx")
    load(str(path), rules=RULES)  # the load-time check passes: zero observations
    assert sniff_main(["eval", str(path), "random", "--games", "2", "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert f"policy file {str(path)!r} failed on 1 observation: " in err and "Gather" in err


def test_a_single_long_operation_is_stopped_at_its_time_limit(tmp_path: Path) -> None:
    network = load(str(graphs.long_product(tmp_path / "long.onnx")), rules=RULES).network
    obs = np.ones((8, graphs.SIZE), np.float32)
    start = time.monotonic()
    network.checked_logits(obs, 60.0)  # the control: one MatMul of 8 x 1024³ takes this long uninterrupted
    whole = time.monotonic() - start
    limit = whole / 4
    start = time.monotonic()
    with pytest.raises(PolicyLimitError, match=f"long.onnx' was stopped: it ran past its time limit of {limit:g} s "
                                               f"on 8 observations"):
        network.checked_logits(obs, limit)
    assert time.monotonic() - start < limit + 0.5 * whole
    with pytest.raises(PolicyLimitError, match="was stopped earlier: it ran past its time limit"):
        network.logits(obs[:1])
    again = load(str(tmp_path / "long.onnx"), rules=RULES).network  # loading it anew starts a new process
    assert again.logits(obs[:1]).shape == (1, graphs.WIDTH)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the address-space cap is enforced on Linux")
def test_a_call_beyond_its_memory_allowance_is_stopped(tmp_path: Path) -> None:
    network = load(str(graphs.long_product(tmp_path / "long.onnx")), rules=RULES).network
    rows = 64  # 2 x 256 MB of products, over the allowance of 64 rows
    with pytest.raises(PolicyLimitError, match=f"it needed more than its memory allowance of "
                                               f"{call_limits(rows)[1] / 2**20:,.0f} MB on 64 observations"):
        network.logits(np.ones((rows, graphs.SIZE), np.float32))


def test_limits_grow_with_the_rows_and_a_shipped_agent_runs_a_large_batch() -> None:
    one, many = call_limits(1), call_limits(4096)
    assert many[0] > 20 * one[0] and many[1] > 10 * one[1]
    player = load("sniff-2p")
    obs = np.zeros((4096, graphs.SIZE), np.float32)
    assert player.network.logits(obs).shape == (4096, graphs.WIDTH)
