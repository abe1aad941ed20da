"""``attnge steps``: the proof steps of the ledger."""

from __future__ import annotations

import argparse

from attnge.output.files import emit

NAME = "steps"
HELP = "list the proof steps of the ledger"


def add_arguments(p: argparse.ArgumentParser) -> None:
    """No options."""


def run(args: argparse.Namespace) -> int:
    from attnge import ledger

    width = max(len(step.id) for step in ledger.STEPS)
    emit("".join(f"{step.id:<{width}} {step.title}"
                 f"{'' if step.default else ' (--steps or --all)'}\n" for step in ledger.STEPS))
    return 0
