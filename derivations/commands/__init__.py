"""The commands of ``attnge``, one module each, and their registry.

A command module has ``NAME``, ``HELP``, ``add_arguments(parser)`` and ``run(args) -> int``
(the exit code); ``attnge.cli`` builds the parser from :data:`COMMANDS`, dispatches, and
maps errors to exit codes. Adding a command is one module and one line here.
"""

from __future__ import annotations

from attnge.commands import (
                             bench,
                             certify,
                             mha,
                             spectrum,
                             steps,
                             tables,
                             threshold,
                             variants,
                             verify,
)

COMMANDS = {module.NAME: module for module in
            (steps, verify, tables, spectrum, threshold, variants, bench, mha, certify)}
