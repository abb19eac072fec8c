"""No loader runs code carried by a file: checkpoints are read as weights only and checked before
a network is built; the players load ONNX only, checked before onnxruntime sees it (allowed
operators, a size cap, a guarded Expand, a time limit on the load-time forward pass); TorchScript
loads in the training tools only when trusted. Each hostile file is refused with a clear error,
its payload never run."""

from __future__ import annotations

import json
import os
import pathlib
import pickle
import random
import subprocess
import sys
import time
import warnings
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")
onnx = pytest.importorskip("onnx")

from hostile import deadline  # noqa: F401  (a time limit per test: a hang fails the test)
from onnx import TensorProto, helper, numpy_helper
from test_players_policy import onnx_file, policy_meta

from sniff_env import make_rules
from sniff_env.cli import main as sniff_main
from sniff_env.envs.gym_vector import SniffGymVectorEnv
from sniff_env.observation import Observer
from sniff_env.players import load
from sniff_env.players import policy as policy_module
from sniff_env.players.onnx_check import ALLOWED_OPS, MAX_BYTES, check_model
from sniff_env.players.policy import META_FILE, PolicyError, PolicyLimitError, load_network
from training.export import main as export_main
from training.imitation import main as imitation_main
from training.lib.config import ConfigError
from training.lib.init_weights import init_from
from training.lib.network import CheckpointError, load_checkpoint, make_net, save_atomic
from training.lib.torchscript import UntrustedCodeError, load_checked
from training.ppo import main as ppo_main

ROOT = Path(__file__).resolve().parent.parent
RULES = make_rules("sniff", 2)


class Payload:
    """Unpickling this touches ``marker``: what a hostile file would do instead."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, tuple[Path]]:
        return pathlib.Path.touch, (self.marker,)


def hostile_checkpoint(path: Path, marker: Path) -> Path:
    """A file shaped like a training checkpoint whose weights are a payload."""
    torch.save({"model": Payload(marker), "args": {}, "rules": {}, "observation_version": "", "global_step": 0}, path)
    return path


def live(path: Path, marker: Path) -> bool:
    """Whether the payload in ``path`` really runs when unpickled freely (a control; removes the marker)."""
    torch.load(path, weights_only=False)
    ran = marker.exists()
    marker.unlink(missing_ok=True)
    return ran


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    return tmp_path / "payload-ran"


def test_checkpoint_with_a_payload_is_refused_by_every_loader(tmp_path: Path, marker: Path) -> None:
    evil = hostile_checkpoint(tmp_path / "evil.pt", marker)
    assert live(evil, marker)
    with pytest.raises(CheckpointError, match="not a sniff training checkpoint: it holds objects other than"):
        load_checkpoint(evil)
    assert export_main([str(evil), str(tmp_path / "out.onnx")]) == 2
    assert not (tmp_path / "out.onnx").exists()
    common = ["--out-dir", str(tmp_path), "--progress", "false", "--init", str(evil)]
    with pytest.raises(ValueError, match="objects other than tensors"):
        ppo_main([*common, "--exp-name", "ppo", "--tensorboard", "false", "--total-steps", "64"])
    with pytest.raises(ValueError, match="objects other than tensors"):
        imitation_main([*common, "--exp-name", "im", "--games", "2", "--workers", "1", "--eval-games", "2"])
    assert not marker.exists()


def test_policy_file_with_a_payload_is_refused(tmp_path: Path, marker: Path) -> None:
    rules = make_rules("sniff", 2)
    # a checkpoint-shaped archive dressed as an exported policy (it holds our metadata entry)
    dressed = hostile_checkpoint(tmp_path / "dressed.pt", marker)
    assert live(dressed, marker)
    with zipfile.ZipFile(dressed, "a") as archive:
        archive.writestr(f"{archive.namelist()[0].split('/')[0]}/extra/{META_FILE}", "{}")
    # a real TorchScript archive whose pickles are replaced by the payload
    scripted = tmp_path / "scripted.pt"
    with warnings.catch_warnings():  # the old format, written on purpose
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.jit.save(torch.jit.trace(torch.nn.Linear(4, 2), torch.zeros(1, 4)), str(scripted),
                       _extra_files={META_FILE: "{}"})
    swapped = tmp_path / "swapped.pt"
    payload = pickle.dumps(Payload(marker), protocol=2)
    with zipfile.ZipFile(scripted) as src, zipfile.ZipFile(swapped, "w") as dst:
        for info in src.infolist():
            dst.writestr(info, payload if info.filename.endswith(".pkl") else src.read(info.filename))
    for path in (dressed, swapped):
        with pytest.raises(PolicyError, match="is a TorchScript file"):
            load(str(path), rules=rules)
        with pytest.raises(ValueError, match="--trust-code"):
            init_from(make_net(rules, 16), str(path), rules, "")
        with pytest.raises(ValueError, match="not a readable sniff TorchScript"):  # even trusted: no pickle runs
            init_from(make_net(rules, 16), str(path), rules, "", trust_code=True)
    assert not marker.exists()


def test_checkpoints_of_the_trainers_still_load(tmp_path: Path) -> None:
    net = make_net(make_rules("sniff", 2), 16)
    optimizer = torch.optim.Adam(net.parameters())
    net(torch.zeros(2, net.obs_size))[0].sum().backward()
    optimizer.step()
    saved = {
        "model": net.state_dict(), "optimizer": optimizer.state_dict(), "args": {"hidden": 16, "arch": "mlp"},
        "rules": make_rules("sniff", 2).to_dict(), "observation_version": "v", "global_step": 3, "iteration": 1,
        "pool": [net.state_dict()], "random_state": random.Random(1).getstate(),
        "sampler_state": torch.Generator().manual_seed(2).get_state(), "torch_state": torch.get_rng_state(),
        "imitation": {"win_rate_vs_greedy": 0.5},
    }
    save_atomic(saved, tmp_path / "checkpoint.pt")
    loaded = load_checkpoint(tmp_path / "checkpoint.pt")
    assert loaded["random_state"] == saved["random_state"]
    assert torch.equal(loaded["model"]["trunk.0.weight"], saved["model"]["trunk.0.weight"])
    assert loaded["optimizer"]["state"][0]["step"] == saved["optimizer"]["state"][0]["step"]
    (tmp_path / "partial.pt").write_bytes(b"not a checkpoint")
    with pytest.raises(CheckpointError, match="not a readable training checkpoint"):
        load_checkpoint(tmp_path / "partial.pt")
    (tmp_path / "junk.pt").write_bytes(b"junk\n")  # the unpickler meets these bytes with a KeyError
    with pytest.raises(CheckpointError, match="junk.pt is not a readable training checkpoint: its bytes are not a pickle"):
        load_checkpoint(tmp_path / "junk.pt")
    torch.save({"model": {}}, tmp_path / "other.pt")
    with pytest.raises(CheckpointError, match="lacks model, args"):
        load_checkpoint(tmp_path / "other.pt")


def test_onnx_policy_reading_other_files_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rules = make_rules("sniff", 2)
    model = onnx.load(str(onnx_file(tmp_path / "p.onnx", rules, meta=policy_meta(rules))))
    weights = model.graph.initializer[1]  # the logits' bias, [num_actions] floats
    (tmp_path / "secret.bin").write_bytes(weights.raw_data)
    weights.ClearField("raw_data")
    weights.data_location = onnx.TensorProto.EXTERNAL
    for key, value in {"location": "secret.bin", "offset": "0", "length": str(4 * 176)}.items():
        weights.external_data.add(key=key, value=value)
    onnx.save_model(model, str(tmp_path / "reads.onnx"))
    monkeypatch.chdir(tmp_path)  # where onnxruntime looks by default for a model given as bytes
    with pytest.raises(PolicyError, match="refers to external data files"):
        load(str(tmp_path / "reads.onnx"), rules=rules)


# -- TorchScript programs: a forward() or a __setstate__ that writes a file ---------------------


class WritesOnForward(torch.nn.Module):
    """Logits of the right shape; each forward pass writes ``path`` (any file the user can write)."""

    def __init__(self, path: str, width: int) -> None:
        super().__init__()
        self.path, self.width = path, width

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        wrote = torch.from_file(self.path, shared=True, size=8, dtype=torch.uint8).fill_(65)
        return obs[:, : self.width] * 0.0 + wrote.sum().float() * 0.0


class WritesOnLoad(torch.nn.Module):
    """Harmless logits; unpickling it (``torch.jit.load``) runs ``__setstate__``, which writes ``path``."""

    def __init__(self, path: str, width: int) -> None:
        super().__init__()
        self.path, self.width = path, width
        self.seen = torch.zeros(1)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return obs[:, : self.width] * 0.0 + self.seen

    @torch.jit.export
    def __getstate__(self) -> tuple[str, int, bool]:
        return self.path, self.width, self.training

    @torch.jit.export
    def __setstate__(self, state: tuple[str, int, bool]) -> None:
        self.path, self.width, self.training = state
        self.seen = torch.from_file(self.path, shared=True, size=1, dtype=torch.uint8).fill_(66).float()


def program_files(folder: Path, marker: Path) -> list[Path]:
    """Both programs, each with a sniff policy's metadata, named ``.pt`` and ``.onnx``."""
    width = Observer(RULES).codec.num_actions
    files = []
    for cls in (WritesOnForward, WritesOnLoad):
        with warnings.catch_warnings():  # the old format, written on purpose
            warnings.simplefilter("ignore", DeprecationWarning)
            scripted = torch.jit.script(cls(str(marker), width))
            for suffix in (".pt", ".onnx"):
                path = folder / f"{cls.__name__}{suffix}"
                torch.jit.save(scripted, str(path), _extra_files={META_FILE: json.dumps(policy_meta(RULES))})
                files.append(path)
    assert not marker.exists()
    return files


def programs_run(files: list[Path], marker: Path) -> bool:
    """Whether both programs really write the marker when loaded and run freely (a control)."""
    ran = []
    for path in files[::2]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            torch.jit.load(str(path))(torch.zeros(1, Observer(RULES).size))
        ran.append(marker.exists())
        marker.unlink(missing_ok=True)
    return all(ran)


def test_torchscript_programs_are_refused_by_every_player_path(tmp_path: Path, marker: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    files = program_files(tmp_path, marker)
    assert programs_run(files, marker)
    attempts: list[Callable[[Path], Any]] = [
        lambda p: load(str(p), rules=RULES), lambda p: load_network(p), lambda p: load(f"guided:agent={p}"),
        lambda p: SniffGymVectorEnv(2, opponents=str(p)),
    ]
    for path in files:
        for attempt in attempts:
            with pytest.raises(ValueError, match="TorchScript files are programs.*python -m training.export .* --trust-code"):
                attempt(path)  # a PolicyError, or the spec's PlayerSpecError carrying its message
        assert sniff_main(["eval", str(path), "random", "--games", "2", "--no-progress"]) == 2
        assert "TorchScript files are programs" in capsys.readouterr().err
    run = subprocess.run([sys.executable, "-m", "sniff_env.cli", "eval", str(files[1]), "random", "--games", "2"],
                         capture_output=True, text=True, timeout=60, cwd=ROOT, check=False)
    assert run.returncode == 2 and "TorchScript files are programs" in run.stderr and "Traceback" not in run.stderr
    assert not marker.exists()


def test_torchscript_programs_need_trust_in_the_training_tools(tmp_path: Path, marker: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    files = program_files(tmp_path, marker)
    for path in files:
        assert export_main([str(path), str(tmp_path / "out.onnx")]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and "--trust-code" in err and "can read and write your files" in err
        with pytest.raises(ConfigError, match="--init .*give --trust-code"):
            init_from(make_net(RULES, 16), str(path), RULES, "")
        with pytest.raises(UntrustedCodeError):
            load_checked(path)
    with pytest.raises(ConfigError, match="--trust-code"):
        ppo_main(["--init", str(files[1]), "--out-dir", str(tmp_path / "runs"), "--progress", "false",
                  "--tensorboard", "false", "--total-steps", "64"])
    assert not marker.exists() and not (tmp_path / "out.onnx").exists()


# -- ONNX graphs: operators, size, Expand, time --------------------------------------------------


def graph_file(path: Path, nodes: list[Any], weights: dict[str, np.ndarray], opsets: dict[str, int] | None = None,
               functions: list[Any] | None = None) -> Path:
    """A policy-shaped ONNX file (``obs`` in, ``logits`` out, the metadata) of ``nodes``."""
    size, width = Observer(RULES).size, Observer(RULES).codec.num_actions
    graph = helper.make_graph(
        nodes, "hostile", [helper.make_tensor_value_info("obs", TensorProto.FLOAT, ["batch", size])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", width])],
        [numpy_helper.from_array(v, k) for k, v in weights.items()],
    )
    imports = [helper.make_opsetid(domain, version) for domain, version in ({"": 18} | (opsets or {})).items()]
    model = helper.make_model(graph, opset_imports=imports, functions=functions or [])
    model.ir_version = 10
    helper.set_model_props(model, {META_FILE: json.dumps(policy_meta(RULES))})
    onnx.save_model(model, str(path))
    return path


def logits_of(extra: str) -> tuple[list[Any], dict[str, np.ndarray]]:
    """Nodes computing legal-shaped logits plus the scalar ``extra``, and their weights."""
    size, width = Observer(RULES).size, Observer(RULES).codec.num_actions
    nodes = [helper.make_node("MatMul", ["obs", "zero"], ["h"]), helper.make_node("Add", ["h", extra], ["logits"])]
    return nodes, {"zero": np.zeros((size, width), np.float32)}


def test_onnx_operators_outside_the_allow_list_are_refused_before_running(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]), helper.make_node("Identity", ["acc_in"], ["acc_out"])],
        "body", [helper.make_tensor_value_info("i", TensorProto.INT64, []),
                 helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
                 helper.make_tensor_value_info("acc_in", TensorProto.FLOAT, [])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_out", TensorProto.FLOAT, [])],
    )
    nodes, weights = logits_of("spun")
    loop = helper.make_node("Loop", ["trips", "yes", "start"], ["spun"], body=body)
    weights |= {"trips": np.array(2**62, np.int64), "yes": np.array(True), "start": np.array(0.0, np.float32)}
    spin = graph_file(tmp_path / "spin.onnx", [loop, *nodes], weights)
    nodes, weights = logits_of("odd")
    custom = graph_file(tmp_path / "custom.onnx", [helper.make_node("Relu", ["one"], ["odd"], domain="com.evil"), *nodes],
                        weights | {"one": np.ones(1, np.float32)}, {"com.evil": 1})
    then = helper.make_graph([helper.make_node("Evil", [], ["x"], domain="com.evil")], "then", [],
                             [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])])
    nodes, weights = logits_of("chosen")
    branch = graph_file(tmp_path / "branch.onnx", [helper.make_node("If", ["yes"], ["chosen"], then_branch=then,
                                                                    else_branch=then), *nodes],
                        weights | {"yes": np.array(True)}, {"com.evil": 1})
    nodes, weights = logits_of("called")
    function = helper.make_function("local", "Twice", ["a"], ["b"], [helper.make_node("Add", ["a", "a"], ["b"])],
                                    [helper.make_opsetid("", 18)])
    local = graph_file(tmp_path / "local.onnx", [helper.make_node("Twice", ["one"], ["called"], domain="local"), *nodes],
                       weights | {"one": np.ones(1, np.float32)}, {"local": 1}, [function])
    start = time.monotonic()
    for path, says in [(spin, "uses the operator 'Loop'"), (custom, "of the operator domain 'com.evil'"),
                       (branch, "uses the operator 'If'"), (local, "of the operator domain 'local'")]:
        with pytest.raises(PolicyError, match=says) as info:
            load(str(path), rules=RULES)
        assert "Add, Cast, Clip" in str(info.value)  # the allowed operators are named
    assert time.monotonic() - start < 10  # refused unread by onnxruntime: no 2**62 trips
    monkeypatch.setattr("sniff_env.players.onnx_check.ALLOWED_OPS", ALLOWED_OPS | {"If"})  # the graphs inside too
    with pytest.raises(PolicyError, match="a graph inside its If node .* of the operator domain 'com.evil'"):
        check_model(branch, onnx.load(str(branch)))
    model = onnx.load(str(branch))
    for branch_attr in model.graph.node[0].attribute:  # both branches: an allowed operator of the default domain
        branch_attr.g.node[0].domain, branch_attr.g.node[0].op_type = "", "Relu"
    with pytest.raises(PolicyError, match="its If node .* holds a graph; policy files hold none"):
        check_model(branch, model)


def test_oversized_and_odd_files_are_refused_before_reading(tmp_path: Path) -> None:
    big = tmp_path / "big.onnx"
    with open(big, "wb") as fh:
        fh.truncate(MAX_BYTES + 1)  # sparse: nothing written
    with pytest.raises(PolicyError, match=f"policy file .* holds {MAX_BYTES + 1:,} bytes, more than the {MAX_BYTES:,}"):
        load(str(big), rules=RULES)
    fifo = tmp_path / "fifo.onnx"
    os.mkfifo(fifo)  # no writer: opening it to read would wait forever
    for path, kind in [(fifo, "a pipe"), (tmp_path, "a folder"), (Path("/dev/zero"), "a character device")]:
        with pytest.raises(PolicyError, match=f"it is {kind}, not a regular file"):
            load_network(path)
        with pytest.raises(CheckpointError, match=f"it is {kind}, not a regular file"):
            load_checkpoint(path)
    run = subprocess.run([sys.executable, "-m", "training.export", str(fifo), str(tmp_path / "out.onnx")], cwd=ROOT,
                         capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 2 and "it is a pipe, not a regular file" in run.stderr and "Traceback" not in run.stderr


def test_expand_beyond_its_bound_fails_instead_of_allocating(tmp_path: Path) -> None:
    def expanding(name: str, shape: list[int]) -> Path:
        nodes, weights = logits_of("total")
        grow = [helper.make_node("Expand", ["one", "shape"], ["grown"]),
                helper.make_node("ReduceSum", ["grown"], ["total"], keepdims=0)]
        return graph_file(tmp_path / name, [*grow, *nodes],
                          weights | {"one": np.ones(1, np.float32), "shape": np.array(shape, np.int64)})

    assert load(str(expanding("small.onnx", [4, 176])), rules=RULES).network.logits(np.zeros((1, 547), np.float32)).shape
    with pytest.raises(PolicyError, match="'grown', made by an Expand node, holds 67,108,864 elements"):
        load(str(expanding("huge.onnx", [2**13, 2**13])), rules=RULES)  # 256 MB, far over its bound


def test_a_graph_that_would_allocate_beyond_its_bound_is_refused_before_it_runs(tmp_path: Path) -> None:
    """Allowed operators only: each observation times a weight vector of 200,000 (875 MB for two)."""
    import resource

    nodes, weights = logits_of("total")
    outer = [helper.make_node("Unsqueeze", ["obs", "axis"], ["column"]), helper.make_node("Mul", ["column", "long"], ["big"]),
             helper.make_node("ReduceSum", ["big"], ["total"], keepdims=0)]
    weights |= {"axis": np.array([2], np.int64), "long": np.ones(200_000, np.float32)}
    path = graph_file(tmp_path / "outer.onnx", [*outer, *nodes], weights)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(PolicyError, match="'big', made by a Mul node, holds 109,400,000 elements per observation"):
        load(str(path), rules=RULES)
    assert (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) * 1024 < 600 * 2**20


def test_the_load_time_forward_pass_is_stopped_at_its_time_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Allowed operators only, but slow: 200 products of 1024 x 1024 matrices."""
    nodes, weights = logits_of("mean")
    slow = [helper.make_node("MatMul", ["obs", "wide"], ["x0"]), helper.make_node("Transpose", ["x0"], ["t0"]),
            helper.make_node("MatMul", ["t0", "x0"], ["a0"])]
    slow += [helper.make_node("MatMul", [f"a{i}", "square"], [f"a{i + 1}"]) for i in range(200)]
    slow.append(helper.make_node("ReduceMean", ["a200"], ["mean"], keepdims=0))
    gen = np.random.default_rng(0)
    weights |= {"wide": gen.random((547, 1024), np.float32), "square": gen.random((1024, 1024), np.float32) / 1024}
    path = graph_file(tmp_path / "slow.onnx", [*slow, *nodes], weights)
    monkeypatch.setattr(policy_module, "CHECK_SECONDS", 0.2)
    start = time.monotonic()
    with pytest.raises(PolicyLimitError, match="was stopped: it ran past its time limit of 0.2 s on 2 observations"):
        load(str(path), rules=RULES)
    assert time.monotonic() - start < 15


def test_shipped_files_hold_only_allowed_operators_and_their_cards_record_the_torchscript() -> None:
    import hashlib

    for card in sorted((ROOT / "checkpoints").glob("*.json")):
        model = onnx.load(str(card.with_suffix(".onnx")))
        check_model(card.with_suffix(".onnx"), model)
        assert {n.op_type for n in model.graph.node} <= ALLOWED_OPS
        recorded = json.loads(card.read_text())["torchscript_sha256"]
        assert hashlib.sha256(card.with_suffix(".pt").read_bytes()).hexdigest() == recorded, card.name
    assert load_checked(ROOT / "checkpoints" / "sniff-2p.pt")[2] == RULES  # so the training tools trust it


# -- hostile weights-only checkpoints: one line from export.py, nothing allocated -----------------


def base_checkpoint(**changes: Any) -> dict[str, Any]:
    net = make_net(RULES, 16)
    ckpt = {"model": net.state_dict(), "args": {"hidden": 16, "arch": "mlp"}, "rules": RULES.to_dict(),
            "observation_version": Observer(RULES).version, "global_step": 3}
    return ckpt | changes


def _model(**edits: Any) -> dict[str, Any]:
    state = dict(make_net(RULES, 16).state_dict())
    for key, value in edits.items():
        key = key.replace("__", ".")
        if value is None:
            del state[key]
        else:
            state[key] = value
    return state


CHECKPOINTS: list[tuple[str, dict[str, Any], str]] = [
    ("rules-text", {"rules": "sniff"}, "its rules must be a rules object; got str"),
    ("rules-bad", {"rules": {"num_players": 9}}, "its rules cannot be read: num_players=9 is not allowed"),
    ("family-text", {"rules_family": "all"}, "its rules_family must be a list of rules"),
    ("args-list", {"args": [1, 2]}, "its args must be a dictionary"),
    ("hidden-huge", {"args": {"hidden": 10**6}}, "its hidden must be a whole number from 1 to 4096; got 1000000"),
    ("hidden-6gb", {"args": {"hidden": 40_000}}, "its hidden must be a whole number from 1 to 4096"),
    ("hidden-bool", {"args": {"hidden": True}}, "its hidden must be a whole number"),
    ("move-hidden-huge", {"args": {"arch": "move", "move_hidden": 10**9}}, "its move_hidden must be a whole number"),
    ("arch-unknown", {"args": {"arch": "transformer"}}, "architecture 'transformer' is unknown"),
    ("step-text", {"global_step": "3"}, "its global_step must be a whole number from 0"),
    ("model-list", {"model": [1]}, "its model must map parameter names to tensors"),
    ("model-text-value", {"model": {"trunk.0.weight": "x"}}, "its model must map parameter names to tensors"),
    ("weight-missing", {"model": _model(trunk__0__weight=None)}, "missing ['trunk.0.weight']"),
    ("weight-extra", {"model": _model(evil=torch.zeros(1))}, "unexpected ['evil']"),
    ("weight-shape", {"model": _model(trunk__0__weight=torch.zeros(3, 3))},
     "its weight 'trunk.0.weight' is float32 [3, 3]; its network (from its args) has float32 [16, 547]"),
    ("weight-dtype", {"model": _model(pi__bias=torch.zeros(176, dtype=torch.int64))}, "'pi.bias' is int64 [176]"),
    ("layout", {"observation_version": "sniff-obs-v0"}, "reads layout 'sniff-obs-v0'"),
    ("missing-keys", {"args": None}, "lacks model, args, rules"),
]


@pytest.mark.parametrize(("name", "changes", "says"), CHECKPOINTS, ids=[c[0] for c in CHECKPOINTS])
def test_hostile_checkpoints_get_one_line_from_export(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                      name: str, changes: dict[str, Any], says: str) -> None:
    ckpt = base_checkpoint(**changes)
    torch.save({k: v for k, v in ckpt.items() if v is not None}, tmp_path / "ckpt.pt")
    start = time.monotonic()
    assert export_main([str(tmp_path / "ckpt.pt"), str(tmp_path / "out.onnx")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("error: ") and says in err, err
    assert not (tmp_path / "out.onnx").exists() and time.monotonic() - start < 5


# -- writing over earlier results needs --force -------------------------------------------------


def test_exports_and_run_folders_are_replaced_only_with_force(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    save_atomic(base_checkpoint(), tmp_path / "ckpt.pt")
    out = tmp_path / "old.pt"
    out.write_text("keep me")
    assert export_main([str(tmp_path / "ckpt.pt"), str(out)]) == 2
    assert "old.pt already exists; give another name, or --force to overwrite it" in capsys.readouterr().err
    assert out.read_text() == "keep me"
    assert export_main([str(tmp_path / "ckpt.pt"), str(out), "--force"]) == 0 and out.read_bytes()[:4] == b"PK\x03\x04"

    def no_training(*_: Any) -> None:
        raise AssertionError("the run started before its outputs were checked")

    monkeypatch.setattr("training.ppo.train", no_training)
    monkeypatch.setattr("training.imitation.train", no_training)
    (tmp_path / "runs" / "old").mkdir(parents=True)
    (tmp_path / "runs" / "old" / "checkpoint.pt").write_text("an earlier run")
    common = ["--out-dir", str(tmp_path / "runs"), "--exp-name", "old"]
    for trainer in (ppo_main, imitation_main):
        with pytest.raises(ConfigError, match="already holds an earlier run's checkpoint.pt; .* --force"):
            trainer(common)
        with pytest.raises(ConfigError, match="--export: .*old.pt already exists; .* --force"):
            trainer([*common, "--exp-name", "new", "--export", str(out)])
        with pytest.raises(AssertionError, match="before its outputs were checked"):
            trainer([*common, "--export", str(out), "--force"])
    with pytest.raises(AssertionError, match="before its outputs were checked"):  # resuming goes on in its folder
        ppo_main([*common, "--resume", str(tmp_path / "runs" / "old" / "checkpoint.pt")])
