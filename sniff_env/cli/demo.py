"""``sniff demo``: one seeded game between built-in players, printed hand by hand: every move,
the board at the end of the hand with its count, the hand's scoring, and who won."""

from __future__ import annotations

import argparse

from rich.console import Console
from rich.markup import escape

from sniff_env.game import Phase, new_game
from sniff_env.infostate import info_state
from sniff_env.options import add_rules_arguments, positive_int, rules_from_args, seed_int
from sniff_env.play.screen import event_lines, with_names
from sniff_env.play.sheet import hand_end_note
from sniff_env.players import BUILTIN, load
from sniff_env.render import count_sum, layout_picture

DEFAULT_PLAYERS = ("heuristic", "greedy")


def _builtin(text: str) -> str:
    if text.partition(":")[0] not in BUILTIN:
        raise argparse.ArgumentTypeError(f"{text!r} is not a built-in player; choose from {', '.join(BUILTIN)}")
    return text


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_rules_arguments(parser)
    parser.add_argument("--seed", type=seed_int, default=0, help="game seed (default: 0)")
    parser.add_argument("--hands", type=positive_int, default=None,
                        help="stop after this many hands (default: play the game to its end)")
    parser.add_argument("--player", type=_builtin, action="append", metavar="SPEC",
                        help=f"a built-in player for the next seat, repeated for each seat; the list repeats "
                             f"(default: {' and '.join(DEFAULT_PLAYERS)})")


def run(args: argparse.Namespace) -> int:
    console = Console(highlight=False)
    rules = rules_from_args(args)
    specs = args.player or list(DEFAULT_PLAYERS)
    seats = [specs[s % len(specs)] for s in range(rules.num_players)]
    agents = [load(spec, seed=args.seed + 1000 * s) for s, spec in enumerate(seats)]
    names = [a.name if [x.name for x in agents].count(a.name) == 1 else f"{a.name}#{s}" for s, a in enumerate(agents)]
    game = new_game(rules, seed=args.seed)
    console.print(f"[bold]{escape(rules.name)}, {rules.num_players} players, seed {args.seed}, target "
                  f"{rules.target}: {escape(', '.join(names))}[/]")
    width = console.width - 4
    note = hand_end_note(rules)
    side_names = [" & ".join(n for s, n in enumerate(names) if rules.side_of(s) == side)
                  for side in range(rules.num_sides)]
    while game.phase is not Phase.GAME_OVER and (args.hands is None or len(game.results) < args.hands):
        if game.phase is Phase.HAND_OVER:
            game.start_hand()
        start = len(game.events)
        while game.phase is Phase.PLAY:
            seat = game.turn
            game.step(agents[seat].act(None, {"info_state": info_state(game, seat)}))
        console.print(f"[bold]── hand {game.hand_index + 1} ──[/]")
        for line in event_lines(game, game.events[start:], names):
            console.print("  " + line)
        for line in layout_picture(game, width, labels=True):
            console.print("    " + escape(line))
        console.print(f"    {count_sum(game, game.count)}")
        for line in game.results[-1].lines:
            console.print(f"  {escape(with_names(line, names))}")
        if note and any("round5" in line for line in game.results[-1].lines):
            console.print(f"  [dim]{escape(note)}[/]")
        console.print("  scores: " + ", ".join(f"{escape(n)} {v}" for n, v in zip(side_names, game.scores)))
    if game.phase is Phase.GAME_OVER:
        verdict = "a draw" if game.winner is None else f"{side_names[game.winner]} wins"
        console.print(f"[bold]the game is over after {game.hand_index + 1} hands: {escape(verdict)}[/]")
    else:
        hands = game.hand_index + 1
        console.print(f"[bold]stopped after {hands} hand{'' if hands == 1 else 's'} (--hands); the game "
                      f"goes on to {rules.target}[/]")
    return 0
