"""How to play a game, in plain words: the rules in effect, section by section, for both tables.

:func:`how_to_play` explains the rules a game is played by (not every value a field could take,
and no field names): how a hand is dealt and led, what plays, what scores as it is played and at
the end of a hand, how the game is won. :func:`summary` says in one line what sets a preset
apart; :func:`howto_lines` lays the sections out for a terminal. The web table's help panel and
its new-game form, ``sniff play --how-to-play`` and the ``rules`` command at the terminal's
prompt all read them from here.
"""

from __future__ import annotations

import textwrap
from typing import Any

from sniff_env.play.sheet import hand_end_note
from sniff_env.rules import Rules
from sniff_env.scoring import ROUNDED

FIRST_LEAD = {
    "lots": "Each player draws a tile; the heaviest leads the first hand.",
    "random": "A player chosen at random leads the first hand.",
    "highest_double": "The holder of the highest double leads the first hand.",
}
NEXT_LEAD = {
    "rotate": "Later hands are led by the next player in turn.",
    "winner": "Later hands are led by the player who went out (after a blocked hand, lots are drawn).",
    "highest_double": "Later hands are led by the holder of the highest double.",
}
DRAW = {
    "until_playable": "A player who cannot play draws from the boneyard until a tile fits.",
    "max_two": "A player who cannot play draws at most two tiles, then passes.",
    "none": "There is no drawing: a player who cannot play passes (the boneyard tiles sleep).",
}
SNIFF = {
    "spinner": "The first double played is the sniff (marked ★ on the web, * at the terminal): it lies across "
               "the line and is open on all four sides, so the line grows north and south from it too. It counts "
               "by its two halves, north and south, each while nothing is laid on it (alone it counts both). Its "
               "west and east sides count 0 (the count calls them the sniff's side): they only carry the line, "
               "as the touching halves of any two tiles do.",
    "stubby": "The first double played is the sniff (marked ★ on the web, * at the terminal): it lies in line "
              "and takes one tile on each of its long sides, north and south. At an end of the line it counts "
              "one half; a side counts 0 until its tile is laid, then that tile's outer half.",
    "none": "There is no sniff: the line has two ends, west and east.",
}
DOUBLES = {
    "crosswise": "A double is laid across the line, and at an end it counts both halves (5-5 counts 10).",
    "choice": "A double may be laid across the line (counting both halves at an end) or in line (one half).",
}
LONE_DOUBLE = {
    "crosswise": "A double that leads counts both halves once while it is alone on the table (it is both ends of "
                 "the line, and a tile counts once); once a tile joins it, each end counts on its own.",
    "choice": "A double that leads counts both halves once while it is alone on the table, whichever way it lies; "
              "once a tile joins it, it counts at its open end: both halves across, one half in line.",
}
SCORING = {
    "fives": "After each play the open ends are added up: that is the count. A count that is a multiple of 5 "
             "(5, 10, 15 …) scores.",
    "threes": "After each play the open ends are added up: that is the count. A count that is a multiple of 3 "
              "scores.",
    "threes_and_fives": "After each play the open ends are added up: that is the count. A count that is a "
                        "multiple of 3 or of 5 scores.",
    "primes": "After each play the open ends are added up: that is the count. A count of 1 or a prime (2, 3, 5, "
              "7, 11 …) scores.",
    "fibonacci": "After each play the open ends are added up: that is the count. A Fibonacci count (1, 2, 3, 5, "
                 "8, 13 …) scores.",
}
POINTS = {
    "count": "A scoring count scores itself: a count of 15 is 15 points.",
    "count_div5": "A scoring count scores one point per five: a count of 15 is 3 points.",
}
HAND_END = {
    "bonus_div5": "The winner of the hand (who went out, else the lightest hand) scores the opponents' pips less "
                  f"their own, {ROUNDED} and divided by 5.",
    "subtract_own": f"Every player loses the pips left in their hand, {ROUNDED}.",
    "domino_takes_pips": "Who went out takes the opponents' pips; in a blocked hand each player takes the "
                         "difference from every heavier hand.",
    "bonus_div5_fewest_tiles": "The winner of the hand (who went out, else the fewest tiles) scores the "
                               f"opponents' pips {ROUNDED}, divided by 5.",
}
SHORT_SNIFF = {"spinner": "a sniff (spinner) open on four sides", "stubby": "a stubby sniff (one tile a side)",
               "none": "no spinner: doubles lie across"}
SHORT_CHOICE = "no spinner; doubles lie across or in line, your choice (the “sniff” of this Muggins)"
"""What sets doubles apart where there is no sniff tile but each double lies as its player chooses."""
SHORT_DRAW = {"until_playable": "draw until a tile plays", "max_two": "draw up to two", "none": "no drawing"}
SHORT_END = {"bonus_div5": "a bonus for the lightest hand", "subtract_own": "each loses their own pips",
             "domino_takes_pips": "who goes out takes the pips", "bonus_div5_fewest_tiles": "a bonus for the fewest tiles"}
def _value(rules: Rules, field: str) -> str:
    value = getattr(rules, field)
    return str(getattr(value, "value", value))


def how_to_play(rules: Rules) -> list[dict[str, Any]]:
    """The rules in effect, section by section: ``{"title", "lines"}``."""
    n = rules.num_players
    sides = "in two partnerships: you and the player opposite share one score" if rules.partnership else \
        "each playing alone"
    finish = ("the game ends the moment a side gets there" if rules.win_during_hand
              else "a hand that gets there is played out, and then the higher score wins")
    dealt = f"Each player is dealt {rules.hand_size} tiles of a double-{rules.max_pip} set; the rest is the boneyard."
    deal = [dealt, FIRST_LEAD[_value(rules, "first_hand_lead")], NEXT_LEAD[_value(rules, "next_hand_lead")]]
    if _value(rules, "lead_tile") == "highest_double":
        deal.append("The lead must be the highest double.")
    play = ["Lay a tile that matches an open end: the touching halves show the same number.",
            DRAW[_value(rules, "draw")]]
    if rules.boneyard_reserve:
        play.append(f"The last {rules.boneyard_reserve} tiles of the boneyard are never drawn.")
    if rules.voluntary_draw:
        play.append("You may draw even when a tile of yours would play.")
    if rules.must_play_drawn:
        play.append("A tile you draw that plays must be played at once.")
    doubles = [SNIFF[_value(rules, "sniff")], DOUBLES[_value(rules, "double_placement")]]
    if _value(rules, "sniff") == "none":
        doubles.append(LONE_DOUBLE[_value(rules, "double_placement")])
    if _value(rules, "sniff") != "none" and _value(rules, "sniff_sides_open") == "after_both_ends":
        doubles.append("The sniff's north and south sides open once west and east each have a tile off it.")
    scoring = [SCORING[_value(rules, "scoring")], POINTS[_value(rules, "points")]]
    if rules.muggins_claims:
        scoring.append("Muggins: you must claim your points when a move scores (on the web, tick “claim my points”, "
                       "which stays ticked; at the terminal, add ! to the move, or type autoclaim); points left "
                       "unclaimed go to the next player.")
    if _value(rules, "points") == "count_div5":
        scoring.append(f"The scores are pegged as on a cribbage board: {rules.target} holes, a peg moves one hole "
                       "per point, and the peg behind it marks the score before the last one.")
    end = ["A hand ends when a player goes out (plays their last tile) or nobody can play (it is blocked).",
           HAND_END[_value(rules, "hand_end")]]
    note = hand_end_note(rules)
    if note:
        end.append(note[0].upper() + note[1:] + ".")
    aim = f"{rules.name}: {n} players, {sides}. The first side to {rules.target} points wins; {finish}."
    return [
        {"title": "The game", "lines": [aim]},
        {"title": "The deal and the lead", "lines": deal},
        {"title": "Playing", "lines": play},
        {"title": "Doubles and the sniff", "lines": doubles},
        {"title": "Scoring as you play", "lines": scoring},
        {"title": "The end of a hand", "lines": end},
    ]


def summary(rules: Rules) -> str:
    """What sets these rules apart, in a line: the sniff and the doubles, the lead, what scores,
    drawing, the end of a hand (each preset's line differs from every other's)."""
    sniff, choice = _value(rules, "sniff"), _value(rules, "double_placement") == "choice"
    doubles = SHORT_CHOICE if sniff == "none" and choice else SHORT_SNIFF[sniff]
    if choice and sniff != "none":
        doubles += ", other doubles across or in line"
    return ", ".join([doubles, *(["the highest double leads"] if _value(rules, "lead_tile") == "highest_double" else []),
                      _value(rules, "scoring").replace("_", " "),
                      *(["a point per five"] if _value(rules, "points") == "count_div5" else []),
                      SHORT_DRAW[_value(rules, "draw")], SHORT_END[_value(rules, "hand_end")],
                      *(["the game ends the moment a side reaches the target"] if rules.win_during_hand else [])])


def howto_lines(rules: Rules, width: int | None = None) -> list[str]:
    """:func:`how_to_play` as plain text lines no wider than ``width`` (wrapped between words)."""
    wrap = max((width or 80) - 4, 30)
    lines = textwrap.wrap(f"how to play {rules.name} ({rules.num_players} players): {summary(rules)}", wrap + 4,
                          subsequent_indent="  ", break_on_hyphens=False)
    for section in how_to_play(rules):
        lines.append(section["title"])
        for text in section["lines"]:
            lines += textwrap.wrap(text, wrap, initial_indent="  - ", subsequent_indent="    ",
                                   break_on_hyphens=False)
    return lines
