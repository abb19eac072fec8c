"""No loader runs code carried by a file: checkpoints are read as weights only, and policy files
that hide a pickled payload are refused with a clear error, the payload never run."""

from __future__ import annotations

import pathlib
import pickle
import random
import warnings
import zipfile
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")

from sniff_env import make_rules
from sniff_env.players import load
from sniff_env.players.policy import META_FILE, PolicyError
from training.export import main as export_main
from training.imitation import main as imitation_main
from training.network import CheckpointError, load_checkpoint, make_net, save_atomic
from training.ppo import init_from
from training.ppo import main as ppo_main


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
        with pytest.raises(PolicyError, match="neither a sniff ONNX nor a readable sniff TorchScript"):
            load(str(path), rules=rules)
        with pytest.raises(ValueError):
            init_from(make_net(rules, 16), str(path), rules, "")
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
    onnx = pytest.importorskip("onnx")
    from test_players_policy import onnx_file, policy_meta

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
