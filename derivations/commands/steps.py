"""``attnge steps``: the proof steps of the ledger."""

from __future__ import annotations

import argparse

from attnge import ledger

NAME = "steps"
HELP = "list the proof steps of the ledger"


def add_arguments(p: argparse.ArgumentParser) -> None:
    """No options."""


def run(args: argparse.Namespace) -> int:
    for step in ledger.STEPS:
        print(f"{step.id:<16} {step.title}")
    return 0
