"""A log names players, never files: every option a built-in player loads as a policy is found
from the players themselves, refused from a log when it gives a path, accepted when it names a
shipped agent; no other option opens a file."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sniff_env.errors import SniffError
from sniff_env.play.session import check_log_player
from sniff_env.players import BUILTIN, file_options, spec_options
from sniff_env.players.agents import shipped_agents
from sniff_env.players.registry import reference_class

OPENED: list[str] = []
"""Paths opened while :func:`watching` is on (the audit hook stays for the process; it only records)."""
_WATCHING = [False]


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if _WATCHING[0] and event == "open" and isinstance(args[0], str | Path):
        OPENED.append(str(args[0]))


sys.addaudithook(_audit)


@pytest.fixture
def watching() -> Iterator[list[str]]:
    """The paths Python opens during the test."""
    OPENED.clear()
    _WATCHING[0] = True
    try:
        yield OPENED
    finally:
        _WATCHING[0] = False


def text_options(base: str) -> list[str]:
    """The options of ``base`` that take text: the only ones that could name a file."""
    return [key for key, types in spec_options(reference_class(base)).items() if str in types]


def test_the_guided_player_declares_both_of_its_networks() -> None:
    assert file_options("guided") == ("agent", "playout_agent")
    assert {base: file_options(base) for base in BUILTIN if base != "guided"} == dict.fromkeys(
        [b for b in BUILTIN if b != "guided"], ())


@pytest.mark.parametrize("base", list(BUILTIN))
def test_every_option_that_loads_a_policy_is_refused_from_a_log_unless_it_names_a_shipped_agent(
        base: str, tmp_path: Path) -> None:
    agent = next(iter(shipped_agents()))
    for key in file_options(base):
        assert key in text_options(base)
        for path in (str(tmp_path / "evil.onnx"), "/etc/passwd", "../agent.onnx", shipped_agents()[agent].path):
            with pytest.raises(SniffError, match=f"its option {key}= must be a shipped agent's name"):
                check_log_player(1, f"{base}:{key}={path}")
            check_log_player(1, f"{base}:{key}={path}", trusted=[f"{base}:{key}={path}"])  # the caller's own
        check_log_player(1, f"{base}:{key}={agent}")
        check_log_player(1, f"{base}:{key}=")  # no network at all: nothing to open


@pytest.mark.parametrize("base", list(BUILTIN))
def test_no_other_option_opens_a_file(base: str, tmp_path: Path, watching: list[str]) -> None:
    probe = tmp_path / "probe.onnx"
    probe.write_bytes(b"not a policy")
    watching.clear()
    cls = reference_class(base)
    for key in text_options(base):
        if key in file_options(base):
            continue
        try:
            cls(**{key: str(probe)})
        except (ValueError, TypeError):
            pass  # refused as a value: what matters is that the file was not opened
        assert str(probe) not in watching, f"{base}'s option {key} opened a file without declaring it"


def test_the_watch_sees_a_declared_option_open_its_file(tmp_path: Path, watching: list[str]) -> None:
    probe = tmp_path / "probe.onnx"
    probe.write_bytes(b"not a policy")
    watching.clear()
    with pytest.raises(ValueError, match="not a sniff ONNX policy file"):
        reference_class("guided")(agent=str(probe))
    assert str(probe) in watching
