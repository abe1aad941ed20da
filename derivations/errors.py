"""The exceptions that choose an exit code of the ``attnge`` command (``attnge.cli``): kept
apart from the commands so that the command line reads them before importing anything
heavy."""


class UsageError(Exception):
    """Bad command-line input: one line, exit code 2."""


class InternalError(Exception):
    """An error raised after the input was accepted: exit code 3 (the cause is chained)."""
