"""At the table (``sniff play``, ``sniff serve`` and the games they resume) an agent's move is
held to about half a minute: a spec asking for more work per move than the table allows is
refused before any game starts, saying which option, its value and the limit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sniff_env.errors import SniffError
from sniff_env.gamelog import game_log, load_game_log
from sniff_env.play.levels import LEVELS, level_opponent
from sniff_env.play.session import HUMAN, Session
from sniff_env.play.table_limits import TABLE_LIMITS, TableLimitError, check_table_player
from sniff_env.presets import PRESET_NAMES, make_rules

RULES = make_rules("sniff", 2, target=30)
# (spec over a limit, the option it names) of every option the table limits
OVER = [("search:budget_s=600", "budget_s"), ("search:simulations=1000000", "simulations"),
        ("rollouts:samples=65536", "samples"), ("guided:agent=sniff-2p,samples=8192", "samples"),
        ("guided:agent=sniff-2p,top=8,extra=65536", "extra")]


def test_every_limited_option_is_probed() -> None:
    assert {key for _, key in OVER} == set(TABLE_LIMITS)


@pytest.mark.parametrize(("spec", "key"), OVER, ids=[s for s, _ in OVER])
def test_a_spec_over_the_tables_limits_is_refused_before_the_game(spec: str, key: str, tmp_path: Path) -> None:
    with pytest.raises(TableLimitError, match=f"asks for {key}=.*at most {key}={TABLE_LIMITS[key]:g}"):
        Session.start(RULES, [spec], seed=1)
    session = Session.start(RULES, ["random"], seed=1)
    path = tmp_path / "log.json"
    path.write_text(json.dumps(game_log(session.game, [HUMAN, spec], session.meta)))
    with pytest.raises(SniffError, match=f"at most {key}="):
        Session.resume(load_game_log(path), path)


def test_the_limits_themselves_and_every_level_are_allowed() -> None:
    for key, limit in TABLE_LIMITS.items():
        check_table_player(1, f"search:{key}={limit:g}" if key in ("budget_s", "simulations")
                           else f"guided:agent=sniff-2p,top=4,{key}={limit:g}")
    for name in PRESET_NAMES:
        for players in (2, 3, 4):
            rules = make_rules(name, players)
            for level in LEVELS:
                check_table_player(1, level_opponent(level, rules)[0])


def test_sniff_serve_refuses_an_opponent_over_the_limits(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from sniff_env.cli import main

    assert main(["serve", "--port", "0", "--games-dir", str(tmp_path), "--opponent", "search:budget_s=600"]) == 2
    assert "at most budget_s=30" in capsys.readouterr().err
