"""Exported policy files: ONNX loading to the contract, refusing mismatches and malformed
networks, masked argmax one at a time and in batches; TorchScript refused by the players and
loaded by the training tools only when trusted."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import play_out_legally

from sniff_env import make_rules
from sniff_env.actions import action_codec
from sniff_env.game import Phase, new_game
from sniff_env.infostate import info_state
from sniff_env.observation import Observer
from sniff_env.players import load
from sniff_env.players.policy import META_FILE, PolicyError, load_network
from sniff_env.rules import Rules


def policy_meta(rules: Rules, **changes: Any) -> dict[str, Any]:
    meta = {
        "rules": rules.to_dict(), "num_players": rules.num_players, "observation_version": Observer(rules).version,
        "num_actions": action_codec(rules.max_pip).num_actions, "training_steps": 0,
    }
    return meta | changes


def onnx_file(path: Path, rules: Rules, outputs: int | None = None, obs_size: int | None = None,
              meta: dict[str, Any] | None = None, **changes: Any) -> Path:
    """An ONNX policy whose logits rise with the action index (``outputs`` of them, default the
    action count), reading observations of ``obs_size``; ``meta=None`` writes no metadata."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    size = obs_size or Observer(rules).size
    width = outputs or action_codec(rules.max_pip).num_actions
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["obs", "zero"], ["h"]), helper.make_node("Add", ["h", "rise"], ["logits"])],
        "prefer", [helper.make_tensor_value_info("obs", TensorProto.FLOAT, ["batch", size])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", width])],
        [numpy_helper.from_array(np.zeros((size, width), np.float32), "zero"),
         numpy_helper.from_array(np.arange(width, dtype=np.float32), "rise")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 10
    if meta is not None or changes:
        helper.set_model_props(model, {META_FILE: json.dumps((meta or policy_meta(rules)) | changes)})
    onnx.save_model(model, str(path))
    return path


def torchscript_file(path: Path, rules: Rules, outputs: int | None = None, obs_size: int | None = None,
                     meta: dict[str, Any] | None = None, **changes: Any) -> Path:
    """:func:`onnx_file` as a TorchScript archive."""
    torch = pytest.importorskip("torch")
    width, size = outputs or action_codec(rules.max_pip).num_actions, obs_size or Observer(rules).size

    class Prefer(torch.nn.Module):  # type: ignore[misc,name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.zero = torch.nn.Linear(size, width, bias=False)
            torch.nn.init.zeros_(self.zero.weight)
            self.register_buffer("rise", torch.arange(width, dtype=torch.float32))

        def forward(self, obs: Any) -> Any:
            return self.zero(obs) + self.rise

    extra = {META_FILE: json.dumps((meta or policy_meta(rules)) | changes)} if meta is not None or changes else {}
    with warnings.catch_warnings():  # the old format, written on purpose
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.jit.save(torch.jit.trace(Prefer(), torch.zeros(1, size)), str(path), _extra_files=extra)
    return path


def test_policy_plays_masked_argmax(tmp_path: Path) -> None:
    rules = make_rules("sniff", 2)
    player = load(str(onnx_file(tmp_path / "p", rules, meta=policy_meta(rules))), rules=rules)
    obs = Observer(rules)
    game = new_game(rules, seed=1, record=False)
    for _ in range(10):
        if game.phase is not Phase.PLAY:
            break
        state = info_state(game, game.turn)
        action = player.act({"observation": obs.encode(state), "action_mask": obs.mask(state)}, {"info_state": state})
        assert action == max(game.legal_actions())
        game.step(action)


def test_policy_refuses_mismatches(tmp_path: Path) -> None:
    rules, write = make_rules("sniff", 2), onnx_file
    good = write(tmp_path / "good", rules, meta=policy_meta(rules))
    with pytest.raises(PolicyError, match="other rules"):
        load(str(good), rules=make_rules("muggins", 2))
    with pytest.raises(PolicyError, match="layout"):
        load(str(write(tmp_path / "v", rules, observation_version="sniff-obs-v0")), rules=rules)
    with pytest.raises(PolicyError, match="176 actions|3 actions"):
        load(str(write(tmp_path / "a", rules, num_actions=3)), rules=rules)
    with pytest.raises(PolicyError, match="players"):
        load(str(write(tmp_path / "n", rules, num_players=3)), rules=rules)
    with pytest.raises(PolicyError, match="lacks rules"):
        load(str(write(tmp_path / "r", rules, meta={"num_players": 2})), rules=rules)
    with pytest.raises(PolicyError, match=META_FILE):
        load(str(write(tmp_path / "bare", rules)), rules=rules)


def test_network_of_the_wrong_shape_is_refused_at_load(tmp_path: Path) -> None:
    rules = make_rules("sniff", 2)
    short = onnx_file(tmp_path / "short", rules, outputs=3, meta=policy_meta(rules))
    with pytest.raises(PolicyError, match=r"wrong shape: expected logits of shape \[2, 176\].*got \[2, 3\]"):
        load(str(short), rules=rules)
    narrow = onnx_file(tmp_path / "narrow", rules, obs_size=10, meta=policy_meta(rules))
    with pytest.raises(PolicyError, match=rf"fails on observations of shape \[2, {Observer(rules).size}\]"):
        load(str(narrow), rules=rules)


def test_files_of_neither_format_are_refused(tmp_path: Path) -> None:
    rules = make_rules("sniff", 2)
    with pytest.raises(PolicyError, match="does not exist"):
        load(str(tmp_path / "missing.onnx"), rules=rules)
    for name, content in [("text.onnx", b"not a policy"), ("empty.onnx", b""), ("pickle.pt", b"\x80\x02}q\x00.")]:
        (tmp_path / name).write_bytes(content)
        with pytest.raises(PolicyError, match="is not a sniff ONNX policy file"):
            load(str(tmp_path / name), rules=rules)
    (tmp_path / "zip.pt").write_bytes(b"PK\x03\x04 truncated")
    with pytest.raises(PolicyError, match="is a TorchScript file"):
        load(str(tmp_path / "zip.pt"), rules=rules)
    assert issubclass(PolicyError, ValueError)


def test_onnx_graph_with_another_signature_is_refused(tmp_path: Path) -> None:
    onnx = pytest.importorskip("onnx")
    rules = make_rules("sniff", 2)
    model = onnx.load(str(onnx_file(tmp_path / "p.onnx", rules, meta=policy_meta(rules))))
    model.graph.output.append(onnx.helper.make_tensor_value_info("h", onnx.TensorProto.FLOAT, ["batch", 176]))
    onnx.save_model(model, str(tmp_path / "two.onnx"))
    with pytest.raises(PolicyError, match="one float input .* and one output"):
        load(str(tmp_path / "two.onnx"), rules=rules)


def test_batched_actions_are_the_masked_argmax_of_each_row(tmp_path: Path) -> None:
    rules = make_rules("sniff", 2)
    network, _, _ = load_network(onnx_file(tmp_path / "p", rules, meta=policy_meta(rules)), rules)
    gen = np.random.default_rng(0)
    obs = gen.random((64, Observer(rules).size), dtype=np.float32)
    mask = gen.random((64, 176)) < 0.05
    mask[np.arange(64), gen.integers(0, 176, 64)] = True
    assert network.actions(obs, mask).tolist() == [int(np.flatnonzero(row).max()) for row in mask]
    with pytest.raises(ValueError, match="shape"):
        network.actions(obs, mask[:, :10])
    mask[5] = False
    with pytest.raises(ValueError, match="observation 5 .* no legal action"):
        network.actions(obs, mask)


@pytest.mark.parametrize("name", ["p.pt", "p.onnx"])
def test_players_refuse_torchscript_whatever_its_name(tmp_path: Path, name: str) -> None:
    rules = make_rules("sniff", 2)
    path = torchscript_file(tmp_path / name, rules, meta=policy_meta(rules))
    for attempt in (lambda: load(str(path), rules=rules), lambda: load_network(path)):
        with pytest.raises(PolicyError) as info:
            attempt()
        assert "TorchScript files are programs" in str(info.value)
        onnx = path.with_suffix(".converted.onnx" if path.suffix == ".onnx" else ".onnx")  # never the file itself
        assert f"python -m training.export {path} {onnx} --trust-code" in str(info.value) and onnx != path


def test_training_tools_load_torchscript_only_when_trusted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("torch")
    from training.lib.torchscript import UntrustedCodeError, load_checked, load_player, record_trusted

    monkeypatch.setenv("SNIFF_TRUST_FILE", str(tmp_path / "trust" / "list.txt"))
    rules = make_rules("sniff", 2)
    path = torchscript_file(tmp_path / "mine.pt", rules, meta=policy_meta(rules))
    with pytest.raises(UntrustedCodeError, match="neither a shipped agent's nor written by this machine's .*--trust-code"):
        load_checked(path, rules)
    assert load_checked(path, rules, trust_code=True)[1]["num_players"] == 2  # vouched for
    digest = record_trusted(path)  # what the training tools do with a file they write
    assert (tmp_path / "trust" / "list.txt").read_text().split()[0] == digest
    player = load_player(path, rules)
    assert play_out_legally(player, rules, seed=1, max_hands=1) > 0
    with pytest.raises(PolicyError, match="other rules"):
        load_checked(path, make_rules("muggins", 2))
    short = torchscript_file(tmp_path / "short.pt", rules, outputs=3, meta=policy_meta(rules))
    with pytest.raises(PolicyError, match=r"wrong shape: expected logits of shape \[2, 176\].*got \[2, 3\]"):
        load_checked(short, rules, trust_code=True)
    with pytest.raises(PolicyError, match="training tools need the TorchScript export"):
        load_checked(onnx_file(tmp_path / "p.onnx", rules, meta=policy_meta(rules)), rules, trust_code=True)
    assert load_checked("checkpoints/sniff-2p.pt")[2] == rules  # shipped: trusted by its card's hash
