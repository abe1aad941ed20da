"""The proof as a ledger: one module per proof step, the runner, reports and the CLI."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("attnge")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.1.0+src"
