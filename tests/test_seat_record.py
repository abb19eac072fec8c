"""The AEC env's seat records: what a seat may know, read from the game into a row of ints, gives
back the same information state, and the compiled encoder writes from it the observer's arrays."""

from __future__ import annotations

import numpy as np
import pytest

from sniff_env.envs.record_encoder import RecordEncoder
from sniff_env.envs.seat_record import PythonRecordEncoder, info_state_of, record
from sniff_env.game import Phase, new_game
from sniff_env.infostate import info_state
from sniff_env.observation import Observer
from sniff_env.presets import PRESET_NAMES, make_rules

CASES = [(preset, n) for preset in PRESET_NAMES for n in (2, 3, 4)]


@pytest.mark.parametrize(("preset", "players"), CASES)
def test_records_give_back_the_info_state_and_the_observers_arrays(preset: str, players: int) -> None:
    try:
        rules = make_rules(preset, players)
    except ValueError:
        pytest.skip(f"{preset} is not played by {players}")
    compiled, python, observer = RecordEncoder(rules), PythonRecordEncoder(rules), Observer(rules)
    rng = np.random.default_rng(players)
    checked = 0
    for seed in range(2):
        game = new_game(rules, seed=seed, max_hands=3)
        while game.phase is not Phase.GAME_OVER:
            if game.phase is Phase.HAND_OVER:
                game.start_hand()
                continue
            for seat in range(players):
                rec = record(game, seat)
                state = info_state(game, seat)
                assert info_state_of(rec, rules, tuple(game.results)) == state
                acting = seat == game.turn
                want = observer.mask(state) if acting else np.zeros(observer.codec.num_actions, np.int8)
                for encoder in (compiled, python):
                    obs, mask = encoder.encode(rec, acting)
                    assert obs.dtype == np.float32 and np.array_equal(obs, observer.encode(state))
                    assert mask.dtype == np.int8 and np.array_equal(mask, want)
                checked += 1
            legal = game.legal_actions()
            game.step(legal[int(rng.integers(len(legal)))])
    assert checked > 50


def test_a_record_is_a_copy_that_later_play_leaves_alone() -> None:
    rules = make_rules("sniff", 2)
    game = new_game(rules, seed=4)
    rec = record(game, game.turn)
    before = info_state(game, game.turn)
    game.step(game.legal_actions()[0])
    assert info_state_of(rec, rules, ()) == before._replace(results=())
