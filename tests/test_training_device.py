"""The trainers' ``--device``: auto picks what is here, a missing device is refused before any
work, and naming the CPU changes nothing; checkpoints and exports hold CPU tensors."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from training import imitation, ppo
from training.lib.device import DeviceError, cpu_module, cpu_state, host_view, resolve_device
from training.libraries import sb3_maskable

TRAINERS: dict[str, Callable[[list[str]], int]] = {
    "ppo": ppo.main, "imitation": imitation.main, "sb3": sb3_maskable.main,
}
PPO_TINY = ["--total-steps", "256", "--num-envs", "4", "--num-steps", "32", "--eval-every", "0",
            "--snapshot-every", "1", "--progress", "false", "--tensorboard", "false"]
IMITATION_TINY = ["--games", "4", "--epochs", "1", "--eval-opponents", "", "--workers", "1", "--progress", "false"]


def test_auto_is_cuda_when_present_else_cpu() -> None:
    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert resolve_device("auto").type == expected
    assert resolve_device("CPU") == torch.device("cpu")


@pytest.mark.parametrize("spec", ["tpu", "cuda:x", "gpu", ""])
def test_unknown_devices_are_refused_with_the_choices(spec: str) -> None:
    with pytest.raises(DeviceError, match="unknown device.*'auto'.*'cuda:N'"):
        resolve_device(spec)


def test_missing_cuda_device_is_refused() -> None:
    with pytest.raises(DeviceError, match="cuda:99"):
        resolve_device("cuda:99")
    if not torch.cuda.is_available():
        with pytest.raises(DeviceError, match="CUDA is not available"):
            resolve_device("cuda")


@pytest.mark.parametrize("trainer", sorted(TRAINERS))
@pytest.mark.parametrize("spec", ["tpu", "cuda:99"])
def test_every_trainer_refuses_a_bad_device_before_any_work(trainer: str, spec: str, tmp_path: Path) -> None:
    if trainer == "sb3":
        pytest.importorskip("sb3_contrib")
    with pytest.raises(DeviceError, match=spec):
        TRAINERS[trainer](["--device", spec, "--out-dir", str(tmp_path), "--progress", "false"])
    assert not any(tmp_path.iterdir()), "nothing was written"


def _ppo_state(tmp_path: Path, name: str, extra: list[str]) -> dict[str, torch.Tensor]:
    assert ppo.main([*PPO_TINY, "--out-dir", str(tmp_path), "--exp-name", name, *extra]) == 0
    ckpt = torch.load(tmp_path / name / "checkpoint.pt", weights_only=True)
    return {"model": ckpt["model"], "pool": ckpt["pool"], "optimizer": ckpt["optimizer"]}


def _assert_equal_tensors(a: object, b: object) -> None:
    if isinstance(a, torch.Tensor):
        assert isinstance(b, torch.Tensor) and a.device.type == "cpu" and torch.equal(a, b)
    elif isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys()
        for key in a:
            _assert_equal_tensors(a[key], b[key])
    elif isinstance(a, (list, tuple)):
        assert isinstance(b, (list, tuple)) and len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            _assert_equal_tensors(x, y)
    else:
        assert a == b


@pytest.mark.parametrize("engine", ["python", "vector"])
def test_ppo_on_the_cpu_device_is_bit_identical_to_the_default(engine: str, tmp_path: Path) -> None:
    default = _ppo_state(tmp_path, "default", ["--engine", engine])
    cpu = _ppo_state(tmp_path, "cpu", ["--engine", engine, "--device", "cpu"])
    _assert_equal_tensors(default, cpu)


def test_imitation_on_the_cpu_device_is_bit_identical_to_the_default(tmp_path: Path) -> None:
    states = []
    for name, extra in (("default", []), ("cpu", ["--device", "cpu"])):
        assert imitation.main([*IMITATION_TINY, "--out-dir", str(tmp_path), "--exp-name", name, *extra]) == 0
        states.append(torch.load(tmp_path / name / "checkpoint.pt", weights_only=True)["model"])
    _assert_equal_tensors(states[0], states[1])


def test_cpu_helpers_leave_cpu_work_alone_and_snapshots_are_copies() -> None:
    net = torch.nn.Linear(3, 2)
    assert host_view(net, torch.device("cpu")) is net
    assert cpu_module(net) is net
    live = torch.ones(2)
    state = cpu_state({"a": [live], "b": (1, torch.zeros(1)), "c": "x"})
    live += 1  # a later update must not reach the snapshot
    assert state["c"] == "x" and isinstance(state["b"], tuple) and torch.equal(state["a"][0], torch.ones(2))


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_ppo_on_cuda_writes_cpu_checkpoints_and_exports(tmp_path: Path) -> None:
    from sniff_env import make_rules
    from training.lib.torchscript import load_player

    policy = tmp_path / "policy.pt"
    state = _ppo_state(tmp_path, "gpu", ["--engine", "vector", "--device", "cuda", "--export", str(policy)])
    for tensor in [*state["model"].values(), *(t for snap in state["pool"] for t in snap.values())]:
        assert tensor.device.type == "cpu"
    player = load_player(policy, make_rules("sniff", 2))
    assert player.meta["training_steps"] > 0


@pytest.mark.parametrize(("script", "argv", "message"), [
    ("training.ppo", ["--device", "tpu"], "error: unknown device 'tpu'"),
    ("training.imitation", ["--device", "tpu"], "error: unknown device 'tpu'"),
    ("training.libraries.sb3_maskable", ["--device", "tpu"], "error: unknown device 'tpu'"),
    ("training.speed.training_speed", ["--device", "tpu"], "error: unknown device 'tpu'"),
    ("training.make_agent", ["no-such-agent"], "error: no chain"),
    ("training.ppo", ["--init", "no-such-file.pt", "--out-dir", "no-such-dir"],
     "error: --init no-such-file.pt is not a readable training checkpoint"),
])
def test_a_script_ends_on_bad_input_with_its_message_not_a_traceback(script: str, argv: list[str],
                                                                      message: str) -> None:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", script, *argv], capture_output=True, text=True, check=False, timeout=120)
    assert done.returncode == 2 and done.stderr.startswith(message), done.stderr[-500:]
    assert "Traceback" not in done.stderr
