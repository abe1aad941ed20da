"""The command line starts light: help, the version and refused options import no SymPy,
SciPy or ledger (a command's module is imported only when it runs, its heavy imports only
in its ``run``), and the commands' help table says what their modules say.

What is imported is the deterministic stand-in for the startup time (no timing here)."""

import json
import subprocess
import sys

import pytest

from attnge.commands import COMMANDS, TABLE

HEAVY = ("sympy", "scipy", "mpmath", "matplotlib", "attnge.ledger", "attnge.runner",
         "attnge.coefficient_tables", "attnge.edge_certificates", "attnge.output.terminal",
         "attnge.output.report")

SCRIPT = """
import json, sys
from attnge import cli
try:
    code = cli.main(sys.argv[1:])
except SystemExit as stop:                  # --version and -h: argparse exits
    code = stop.code
print(json.dumps({"code": code, "modules": sorted(m for m in sys.modules
                                                  if m.split(".")[0] in ("sympy", "scipy",
                                                  "mpmath", "matplotlib", "attnge"))}))
"""


def _run(argv: list[str]) -> tuple[dict, str]:
    out = subprocess.run([sys.executable, "-c", SCRIPT, *argv], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1]), out.stderr


@pytest.mark.parametrize("argv, code", [
    (["--version"], 0),
    (["-h"], 0),
    (["verify", "-h"], 0),
    (["verify", "--bta", "0.8"], 2),
])
def test_help_version_and_refused_options_import_nothing_heavy(argv, code):
    found, err = _run(argv)
    assert found["code"] == code
    imported = set(found["modules"])
    assert not [m for m in HEAVY if m in imported], sorted(imported & set(HEAVY))
    others = {f"attnge.commands.{name}" for name in TABLE} - {"attnge.commands.verify"}
    assert not imported & others                     # only the chosen command is imported
    if code == 2:
        assert err == "attnge: error: unrecognized arguments: --bta 0.8\n"


def test_the_help_table_says_what_the_modules_say():
    assert list(COMMANDS) == ["steps", "verify", "tables", "spectrum", "threshold", "variants",
                              "bench", "mha", "certify"]
    for name, (_, text) in TABLE.items():
        module = COMMANDS[name]
        assert module.NAME == name and module.HELP == text == COMMANDS.help(name)
    assert "verify" in COMMANDS and "nothing" not in COMMANDS and len(COMMANDS) == len(TABLE)


def test_the_defaults_shown_in_the_help_are_the_modules_defaults():
    from attnge import edge_certificates, mha
    from attnge import variants as va
    from attnge.commands import certify, threshold, variants
    from attnge.theory import input_models, masks, weight_laws
    from attnge.theory.kernels import KERNELS
    from attnge.threshold import audit
    from attnge.threshold.modes import MODES

    assert certify.DIGITS == edge_certificates.DIGITS
    assert COMMANDS["mha"].PRESETS == tuple(mha.PRESETS)
    assert threshold.PRESETS == {m.name: (m.quick, m.full) for m in MODES.values()}
    assert (threshold.BETA, threshold.Y) == (audit.Sweep.beta, audit.Sweep.y)
    assert variants.NAMES == {"kernel": tuple(KERNELS), "weights": tuple(weight_laws.LAWS),
                              "inputs": tuple(input_models.MODELS),
                              "mask": tuple(masks.MASKS)}
    assert (variants.SIZES, variants.DRAWS) == (va.Run.sizes, va.Run.draws)


THREADS = """
import json
from threadpoolctl import threadpool_info
from attnge import cli
from attnge.commands import COMMANDS
seen = []


def run(args):
    import scipy.linalg  # noqa: F401  (as a command does: lazily, its own OpenBLAS too)
    seen.append([(i["filepath"], i["num_threads"]) for i in threadpool_info()
                 if i["user_api"] == "blas"])
    return 0


COMMANDS["steps"].run = run
assert cli.main(["steps"]) == 0
print(json.dumps(seen[0]))
"""


def test_a_command_runs_with_every_blas_on_one_thread():
    """NumPy's and SciPy's own OpenBLAS both, though the command imports them lazily."""
    out = subprocess.run([sys.executable, "-c", THREADS], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    blas = json.loads(out.stdout.strip().splitlines()[-1])
    assert len(blas) >= 1 and all(threads == 1 for _, threads in blas), blas
