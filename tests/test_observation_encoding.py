"""The observation encoder is written once: ``encoding.encode_row`` run as Python (what
``Observer.encode`` does) and compiled (what the kernels inline) writes the same bits, and the
kernels write no feature of their own."""

from __future__ import annotations

import ast
import inspect
import random
from array import array
from collections.abc import Iterator

import numpy as np
import pytest

from sniff_env import encoding
from sniff_env.encoding import Board, Counts, Spec, clear_row, encode_row
from sniff_env.game import Phase, new_game
from sniff_env.infostate import InfoState, info_state
from sniff_env.observation import Observer
from sniff_env.presets import make_rules
from sniff_env.rules import Rules
from sniff_env.vector import kernels
from sniff_env.vector.compiled_rules import with_compiled_rules

CASES = [("sniff", 2, {}), ("muggins", 4, {"partnership": True}), ("sniff-english", 3, {"max_pip": 9}),
         ("sniff-cribbage", 2, {"double_placement": "choice", "voluntary_draw": True, "must_play_drawn": True})]


def infos(rules: Rules, games: int = 3, seed: int = 0) -> Iterator[InfoState]:
    """The seat to act's information state at every decision of random play (two hands a game)."""
    rng = random.Random(seed)
    for g in range(games):
        game = new_game(rules, seed=g, record=False)
        while game.phase is not Phase.GAME_OVER and game.hand_index < 2:
            if game.phase is Phase.HAND_OVER:
                game.start_hand()
                continue
            yield info_state(game, game.turn)
            game.step(rng.choice(game.legal_actions()))


def args(info: InfoState, size: int) -> tuple[object, ...]:
    """``encode_row``'s arguments after ``row`` and ``spec`` for ``info``, as int64 arrays."""
    seat_of = np.full(size, -1, np.int64)
    for tile, who, _ in info.plays:
        seat_of[tile] = who

    def ints(values: object) -> np.ndarray:
        return np.array(values, np.int64).reshape(-1)

    hand = ints([info.hand >> t & 1 for t in range(size)])
    board = Board(ints(info.end_pip), ints(info.end_val), ints(info.end_open), info.sniff_tile, info.sniff_pending,
                  info.count)
    counts = Counts(ints(info.hand_sizes), ints(info.lacking), ints(info.scores), info.boneyard_size, info.drawable)
    return (info.seat, hand, ints([t for t, _, _ in info.plays]), seat_of, board, counts, info.last_drawn,
            ints(info.legal))


def as_arrays(spec: Spec) -> Spec:
    """``spec`` with its tables as the kernels hold them: int64 and float32 arrays."""
    return Spec(*(np.array(v, np.float32 if isinstance(v[0], float) else np.int64) if isinstance(v, tuple) else v
                  for v in spec))


@pytest.mark.parametrize(("preset", "players", "extra"), CASES)
def test_python_and_compiled_encoders_write_the_same_bits(preset: str, players: int, extra: dict[str, object]) -> None:
    rules = make_rules(preset, players, **extra)
    observer = Observer(rules)
    compiled_encode, compiled_clear = with_compiled_rules(encode_row), with_compiled_rules(clear_row)
    spec, arrays = observer.spec, as_arrays(observer.spec)
    template = np.zeros(observer.size, np.float32)
    template[observer.pieces["rules"].start : observer.pieces["rules"].stop] = observer.rules_block(rules)
    reused = template.copy()  # one row rewritten in place, as the kernels keep it
    shown = np.zeros(0, np.int64)
    count = 0
    for info in infos(rules):
        expected = observer.encode(info).tobytes()
        python_row = array("f", template.tobytes())
        encode_row(python_row, spec, *args(info, observer.ts.size))
        compiled_row = template.copy()
        compiled_encode(compiled_row, arrays, *args(info, observer.ts.size))
        compiled_clear(reused, arrays, shown)
        compiled_encode(reused, arrays, *args(info, observer.ts.size))
        shown = np.array(info.legal, np.int64)
        assert python_row.tobytes() == expected
        assert compiled_row.tobytes() == expected, f"decision {count}"
        assert reused.tobytes() == expected, f"decision {count}, row reused"
        count += 1
    assert count > 50


def _names(source: str) -> set[str]:
    return {node.id for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Name)}


def test_the_kernels_write_no_observation_feature_themselves() -> None:
    """``kernels.py`` names no piece of the layout and hands its observation rows only to the
    shared encoder (``_clear_row``, ``_encode_as``) or to another kernel, never writing a cell."""
    source = inspect.getsource(kernels)
    pieces = {name for name in vars(encoding) if name.startswith("O_")}
    assert len(pieces) == len(encoding.PIECES)
    assert not pieces & _names(source), "kernels.py addresses observation pieces itself"
    tree = ast.parse(source)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    uses = [node for node in ast.walk(tree) if isinstance(node, ast.Name) and node.id == "obs"
            or isinstance(node, ast.Attribute) and node.attr == "obs"]  # the rows, or the views' rows
    assert uses
    for node in uses:
        parent = parents[node]
        if isinstance(parent, ast.Subscript):  # a row: only as an argument of the shared encoder
            call = parents[parent]
            assert isinstance(parent.ctx, ast.Load) and isinstance(call, ast.Call), ast.unparse(parent)
            assert ast.unparse(call.func) in ("_clear_row", "_encode_as"), ast.unparse(call)
        else:
            assert isinstance(parent, ast.Call), ast.unparse(parent)  # passed on to another kernel
    encode_as = inspect.getsource(kernels._encode_as.py_func)
    assert "_encode_row(" in encode_as
