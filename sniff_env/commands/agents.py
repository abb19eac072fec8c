"""``sniff agents``: the shipped agents with their cards (rules, players, training, strength)."""

from __future__ import annotations

import argparse

from ..agents import agent_named, print_agents


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", nargs="?", metavar="AGENT", help="print this agent's full card")


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.markdown import Markdown

    console = Console()
    if args.name is None:
        print_agents(console)
        return 0
    agent = agent_named(args.name)
    card = agent.card_path
    console.print(Markdown(card.read_text(encoding="utf-8")) if card.is_file() else f"{agent.name}: {agent.summary}")
    console.print(f"rules: {agent.rule_args}\nfile: {agent.path}")
    return 0
