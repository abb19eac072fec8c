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


def test_warmup_says_what_it_compiles_and_then_that_all_is_compiled(capsys: pytest.CaptureFixture[str]) -> None:
    """The warm-up lists each group with its state, compiles those that need it, and a second
    warm-up finds every group compiled (what it said it did, it did)."""
    from sniff_env.play.warm import GROUPS

    assert main(["warmup", "--jobs", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("the compiled functions' cache: ")
    assert [line.split(":")[0] for line in out[1:1 + len(GROUPS)]] == [
        f"[{i}/{len(GROUPS)}] {g.label.split(':')[0]}" for i, g in enumerate(GROUPS, 1)]
    assert out[-1].startswith(("ready in ", "ready: every group is compiled"))
    assert main(["warmup"]) == 0
    again = capsys.readouterr().out.splitlines()
    assert all(line.endswith(": compiled already") for line in again[1:1 + len(GROUPS)]), again
    assert again[-1] == "ready: every group is compiled; later processes load them from the cache"


def test_version_names_the_package(capsys: pytest.CaptureFixture[str]) -> None:
    from sniff_env import __version__

    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0 and capsys.readouterr().out.strip() == f"sniff-env {__version__}"


def test_a_missing_extra_is_one_line_naming_it(monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """``sniff serve`` without the web extra says which extra to install, in one line."""
    import sys

    monkeypatch.delitem(sys.modules, "sniff_env.web.app", raising=False)
    monkeypatch.setitem(sys.modules, "fastapi", None)
    assert main(["serve", "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == ("sniff serve: this needs the 'web' extra (fastapi is not installed): "
                           "pip install 'sniff-env[web]'")
