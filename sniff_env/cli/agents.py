"""``sniff agents``: the shipped agents, one short entry each (what it plays, what it is, how
strong); ``sniff agents NAME`` prints an agent's full card, ``--table`` every card's details at once."""

from __future__ import annotations

import argparse

from sniff_env.players.agents import Agent, agent_named, agents_folder, print_agents, shipped_agents


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", nargs="?", metavar="AGENT", help="print this agent's full card")
    parser.add_argument("--table", action="store_true",
                        help="every agent's rules, training and measured strength in one wide table")


def strength_line(agent: Agent) -> str:
    """The agent's results in one line: per opponent, its win rate (the range over the presets of
    a generalist) and the games behind it."""
    parts = []
    for against in dict.fromkeys(s.against for s in agent.strength):
        rates = [s for s in agent.strength if s.against == against]
        lo, hi = min(s.win_rate for s in rates), max(s.win_rate for s in rates)
        games = sum(s.games for s in rates)
        rate = f"{lo:.1%}" if len(rates) == 1 else f"{lo:.1%} to {hi:.1%}"
        where = f"{len(rates)} presets, " if len(rates) > 1 else ""
        parts.append(f"vs {against} {rate} ({where}{games:,} games)")
    return ("wins " + "; ".join(parts)) if parts else "no measured results"


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.markdown import Markdown
    from rich.markup import escape
    from rich.padding import Padding

    console = Console(highlight=False)
    if args.name is not None:
        agent = agent_named(args.name)
        card = agent.card_path
        console.print(Markdown(card.read_text(encoding="utf-8")) if card.is_file() else f"{agent.name}: {agent.summary}")
        console.print(f"rules: {agent.rule_args}\nfile: {agent.path}", soft_wrap=True)
        return 0
    if args.table:
        print_agents(console)
        return 0
    agents = shipped_agents()
    if not agents:
        console.print("no shipped agents in this installation")
        return 0
    console.print(f"[bold]{len(agents)} shipped agents[/] (sniff play picks the one that fits your rules)")
    for a in agents.values():
        which = f"{len(a.family)} presets" if a.generalist else a.rules.name
        console.print(f"[bold]{escape(a.name)}[/]: {escape(which)}, {a.num_players} players")
        console.print(Padding(escape(a.summary), (0, 0, 0, 2), expand=False))
        console.print(Padding(f"[dim]{escape(strength_line(a))}[/]", (0, 0, 0, 2), expand=False))
    console.print(f"an agent's card: sniff agents NAME (the cards are in {agents_folder()}); all in a table: "
                  "sniff agents --table; play one: sniff play --opponent NAME", soft_wrap=False)
    return 0
