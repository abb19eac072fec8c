"""The ``sniff`` command: bad input gets a one-line message and exit status 2, not a traceback."""

from __future__ import annotations

import pytest

from sniff_env.cli import main


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["eval", "greedy"], "at least two players"),
        (["eval", "greedy", "nosuch", "--games", "2"], "unknown player 'nosuch'"),
        (["eval", "sniff-2p", "greedy", "--preset", "muggins"], "sniff-2p was trained for other rules"),
        (["eval", "search", "greedy", "--engine", "batched"], "search has no batched form"),
        (["agents", "nosuch"], "installed agents: generalist-2p, generalist-3p, generalist-4p, muggins-2p, sniff-2p-large, sniff-2p-tiles, sniff-2p, sniff-4p-partnership"),
        (["rules", "--rule", "bogus=1"], "unknown rules field"),
        (["rules", "--players", "9"], "num_players=9 is not allowed"),
        (["demo", "--rule", "max_pip=7"], "max_pip"),
    ],
)
def test_bad_input_is_a_clear_message(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_rules_and_demo_run(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "--all"]) == 0
    assert main(["demo", "--preset", "muggins", "--seed", "3"]) == 0
    assert "scores:" in capsys.readouterr().out


def test_warmup_compiles_every_kernel_family_stage_by_stage(capsys: pytest.CaptureFixture[str]) -> None:
    from sniff_env.cli.warmup import STAGES

    assert main(["warmup"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(("compiling the batched engine's kernels", "loading the batched engine's kernels"))
    assert [line.split(" ...")[0] for line in out[1:-1]] == [f"[{i}/{len(STAGES)}] {label}"
                                                              for i, (label, _) in enumerate(STAGES, 1)]
    assert out[-1].startswith("ready in ")


def test_version_names_the_package(capsys: pytest.CaptureFixture[str]) -> None:
    from sniff_env import __version__

    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0 and capsys.readouterr().out.strip() == f"sniff-env {__version__}"
