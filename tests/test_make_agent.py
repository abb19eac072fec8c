"""The chains that make the shipped agents: their commands in order, the budget the cards state,
a tiny chain really run (then resumed), and a failure that stops the chain."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from training.make_agent import ChainError, known_agents, load_chain, main

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = sorted(p.stem for p in (ROOT / "checkpoints").glob("*.json"))
TILES = 11.3 + 30.5 + 34.5 + 21.0
"""sniff-2p-tiles' own steps, after sniff-2p-large's chain, as its card states them."""


def test_every_shipped_agent_has_a_chain() -> None:
    assert SHIPPED and set(SHIPPED) <= set(known_agents())


def _dry_run(agent: str, capsys: pytest.CaptureFixture[str]) -> tuple[str, list[str]]:
    """What ``make_agent.py AGENT --dry-run`` prints, and the commands among it, in order."""
    assert main([agent, "--dry-run"]) == 0
    out = capsys.readouterr().out
    return out, [line for line in out.splitlines() if line.startswith("python ")]


def test_sniff_2p_dry_run_prints_its_seven_stages_in_order_and_the_cards_budget(capsys: pytest.CaptureFixture[str]) -> None:
    out, commands = _dry_run("sniff-2p", capsys)
    configs = [c.split("--config ")[1].split()[0].removeprefix("configs/training/") for c in commands if "--config" in c]
    assert configs == [
        "imitation-sniff-2p.toml", "sniff-2p-finetune.toml", "sniff-2p-finetune-2.toml", "sniff-2p-selfplay.toml",
        "imitation-sniff-2p-search-values.toml", "imitation-sniff-2p-search-values-2.toml",
        "imitation-sniff-2p-search-values-3.toml",
    ]
    assert commands[-1] == "python -m training.export runs/sniff-2p.pt runs/sniff-2p.onnx --force"
    assert "# total: 180.3 minutes" in out  # the card: 180 minutes in all


def test_the_large_agent_records_three_rounds_then_trains_two_wide_networks(capsys: pytest.CaptureFixture[str]) -> None:
    out, commands = _dry_run("sniff-2p-large", capsys)
    assert commands[0] == "python -m training.make_agent configs/chains/sniff-2p.toml"
    recordings = [c for c in commands if "--epochs 0" in c]
    assert len(recordings) == 3 and all("--actor runs/" in c for c in recordings)  # on the chain's own networks
    configs = [c.split("--config ")[1].split()[0] for c in commands if "--config" in c]
    assert [c for c in configs if "wide" in c] == [
        "configs/training/imitation-sniff-2p-wide.toml", "configs/training/imitation-sniff-2p-wide-2.toml"]
    assert commands[-1] == "python -m training.export runs/sniff-2p-large.pt runs/sniff-2p-large.onnx --force"
    assert "# total: 260.2 minutes" in out  # the card: 260 minutes in all


def test_the_tiles_agent_grows_from_a_mobility_network_on_cleaner_values(capsys: pytest.CaptureFixture[str]) -> None:
    out, commands = _dry_run("sniff-2p-tiles", capsys)
    assert commands[0] == "python -m training.make_agent configs/chains/sniff-2p-large.toml"
    recordings = [c for c in commands if "--epochs 0" in c]
    assert [c.split("--actor ")[1].split()[0] for c in recordings] == ["runs/sniff-2p-large.pt", "runs/sniff-2p-mobility.pt"]
    assert "--teacher rollouts:samples=128" in recordings[1]
    configs = [c.split("--config ")[1].split()[0] for c in commands if "--epochs 0" not in c and "--config" in c]
    assert configs == ["configs/training/imitation-sniff-2p-mobility.toml", "configs/training/imitation-sniff-2p-tiles.toml"]
    assert 'init = "runs/sniff-2p-mobility.pt"' in (ROOT / configs[1]).read_text()  # grown from step 3's network
    assert commands[-1] == "python -m training.export runs/sniff-2p-tiles.pt runs/sniff-2p-tiles.onnx --force"
    assert f"# total: {260.2 + TILES:.1f} minutes" in out


@pytest.mark.parametrize("agent", SHIPPED)
def test_chains_never_write_over_the_shipped_files(agent: str) -> None:
    for step in load_chain(agent).steps:
        assert not step.output.startswith("checkpoints/")
        if step.config and 'export = "checkpoints/' in (ROOT / step.config).read_text():
            assert step.args[step.args.index("--export") + 1].startswith("runs/")


def test_the_cards_minutes_add_up(capsys: pytest.CaptureFixture[str]) -> None:
    total = 0.0
    for agent in SHIPPED:
        assert main([agent, "--dry-run"]) == 0
        total += load_chain(agent).minutes
    assert "# total:" in capsys.readouterr().out
    large = 13.6 + 11.9 + 22.7 + 9.7 + 22.0  # sniff-2p-large's own steps, after sniff-2p's chain
    # the generalist's chain and sniff-2p-large's run sniff-2p's; sniff-2p-tiles' runs sniff-2p-large's
    partnership = 14.4 + 14.3 + 15.3 + 9.9 + 31.9  # three recordings of the search's values, two wide trainings
    assert total == pytest.approx(180.3 + 34.5 + partnership + (180.3 + 29.6) + 25.5 + 22.3 + (180.3 + large)
                                  + (180.3 + large + TILES))
    own = sum(step.minutes for agent in SHIPPED for step in load_chain(agent).steps if step.trainer != "chain")
    assert own == pytest.approx(180.3 + 34.5 + partnership + 29.6 + 25.5 + 22.3 + large + TILES)  # each chain made once


def test_bad_chains_are_refused_before_any_step(tmp_path: Path) -> None:
    with pytest.raises(ChainError, match="no chain.*sniff-2p"):
        load_chain("no-such-agent")
    bad = tmp_path / "bad.toml"
    bad.write_text('[[steps]]\nname = "x"\ntrainer = "dqn"\nconfig = "a.toml"\noutput = "o"\nminutes = 1\n')
    with pytest.raises(ChainError, match="unknown trainer 'dqn'"):
        load_chain(str(bad))
    bad.write_text('[[steps]]\nname = "x"\ntrainer = "ppo"\nconfig = "no/such.toml"\noutput = "o"\nminutes = 1\n')
    with pytest.raises(ChainError, match="does not exist"):
        load_chain(str(bad))


def _tiny_chain(tmp_path: Path, ppo_args: list[str]) -> Path:
    out = tmp_path / "runs"
    imitation = tmp_path / "imitation.toml"
    imitation.write_text('exp_name = "im"\ngames = 4\nepochs = 1\neval_opponents = ""\nworkers = 1\n'
                         f'progress = false\nout_dir = "{out}"\n')
    ppo = tmp_path / "ppo.toml"
    ppo.write_text('exp_name = "ft"\ntotal_steps = 256\nnum_envs = 4\nnum_steps = 32\neval_every = 0\n'
                   f'progress = false\ntensorboard = false\nout_dir = "{out}"\ninit = "{out}/im/checkpoint.pt"\n')
    chain = tmp_path / "tiny.toml"
    chain.write_text(
        'agent = "tiny"\n'
        f'[[steps]]\nname = "imitation"\ntrainer = "imitation"\nconfig = "{imitation}"\n'
        f'output = "{out}/im/checkpoint.pt"\nminutes = 0.5\n'
        f'[[steps]]\nname = "ppo"\ntrainer = "ppo"\nconfig = "{ppo}"\nargs = {json.dumps(ppo_args)}\n'
        f'output = "{tmp_path}/tiny.pt"\nminutes = 1\n'
    )
    return chain


def test_a_tiny_chain_runs_in_order_then_resumes(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    chain = _tiny_chain(tmp_path, ["--export", str(tmp_path / "tiny.pt"), "--device", "cpu"])
    assert main([str(chain)]) == 0
    made = tmp_path / "tiny.pt"
    assert made.is_file() and (tmp_path / "runs" / "ft" / "checkpoint.pt").is_file()
    out = capfd.readouterr().out
    assert "trained" in out and "# total: 1.5 minutes" in out
    stamp = made.stat().st_mtime_ns
    assert main([str(chain)]) == 0  # every output exists: nothing runs again
    assert capfd.readouterr().out.count("done, skipped") == 2
    assert made.stat().st_mtime_ns == stamp


def test_the_first_failure_stops_the_chain(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    chain = _tiny_chain(tmp_path, ["--export", str(tmp_path / "tiny.pt")])
    (tmp_path / "runs" / "im").mkdir(parents=True)
    (tmp_path / "runs" / "im" / "checkpoint.pt").write_bytes(b"not a checkpoint")  # step 1 counts as done
    assert main([str(chain)]) != 0
    err = capfd.readouterr().err
    assert "step 2 (ppo) failed" in err and "not a readable training checkpoint" in err
    assert not (tmp_path / "tiny.pt").exists()


def test_a_chain_step_runs_another_agents_chain_first(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """A generalist starts from another agent's network: its chain runs that agent's chain as a step."""
    inner = _tiny_chain(tmp_path, ["--export", str(tmp_path / "tiny.pt"), "--device", "cpu"])
    outer = tmp_path / "outer.toml"
    outer.write_text(
        'agent = "outer"\n'
        f'[[steps]]\nname = "the tiny agent"\ntrainer = "chain"\nconfig = "{inner}"\noutput = "{tmp_path}/tiny.pt"\n'
        'minutes = 1.5\n'
        f'[[steps]]\nname = "export"\ntrainer = "export"\nargs = ["{tmp_path}/tiny.pt", "{tmp_path}/tiny.onnx"]\n'
        f'output = "{tmp_path}/tiny.onnx"\nminutes = 0\n'
    )
    assert main([str(outer), "--dry-run"]) == 0
    assert f"python -m training.make_agent {inner}\n" in capfd.readouterr().out
    assert main([str(outer)]) == 0
    out = capfd.readouterr().out
    assert "# tiny: 2 steps" in out and "# total: 1.5 minutes" in out  # the inner chain ran, then the export
    assert (tmp_path / "tiny.onnx").is_file()
