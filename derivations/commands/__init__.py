"""The commands of ``attnge``, one module each, and their registry.

A command module has ``NAME``, ``HELP``, ``add_arguments(parser)`` and ``run(args) -> int``
(the exit code); ``attnge.cli`` builds the parser from :data:`COMMANDS`, dispatches, and
maps errors to exit codes. Adding a command is one module and one line in :data:`TABLE`.

A command's module is imported only when that command is used: ``attnge -h`` lists the
commands from :data:`TABLE` alone, and ``attnge verify ...`` imports ``verify`` only (whose
own heavy imports wait in its ``run``), so that help and refused input answer at once.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from types import ModuleType

TABLE: dict[str, tuple[str, str]] = {
    "steps": ("attnge.commands.steps", "list the proof steps of the ledger"),
    "verify": ("attnge.commands.verify", "run proof steps and print their evidence"),
    "tables": ("attnge.commands.tables", "coefficient tables for papers: closed forms, "
               "decimals"),
    "spectrum": ("attnge.commands.spectrum", "the paper's Figure 1: spectra of the chain of "
                 "models"),
    "threshold": ("attnge.commands.threshold", "audit the linearization threshold (a sweep "
                  "that resumes from DIR)"),
    "variants": ("attnge.commands.variants", "judge Gaussian equivalence for an attention "
                 "variant (kernel, weights, inputs, mask)"),
    "bench": ("attnge.commands.bench", "time one chain draw against the naive path and the "
              "floor"),
    "mha": ("attnge.commands.mha", "a softmax attention layer against its Gaussian model on "
            "the same weights, at a real architecture's shape"),
    "certify": ("attnge.commands.certify", "certified right edges (interval arithmetic) and "
                "the claims they prove; --check re-verifies a certificate file"),
}
"""Each command's name → (its module, its ``HELP``), in the order ``attnge -h`` lists them.
The help strings repeat the modules' ``HELP`` (a test keeps them equal)."""


class Commands(Mapping):
    """The commands by name → their modules, each imported on first access."""

    def __init__(self, table: dict[str, tuple[str, str]]) -> None:
        self._table = table

    def __getitem__(self, name: str) -> ModuleType:
        return importlib.import_module(self._table[name][0])

    def __contains__(self, name: object) -> bool:       # without importing the module
        return name in self._table

    def __iter__(self) -> Iterator[str]:
        return iter(self._table)

    def __len__(self) -> int:
        return len(self._table)

    def help(self, name: str) -> str:
        """The command's ``HELP``, without importing its module."""
        return self._table[name][1]


COMMANDS = Commands(TABLE)
