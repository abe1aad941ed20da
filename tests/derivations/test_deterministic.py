"""Issue 38: the same numbers under any load, and answers as they come.

A verify run's JSON, less its timings, is the same bytes alone, with
``OPENBLAS_NUM_THREADS=2`` in its environment, beside a busy process (a real CPU hog: BLAS
products keeping a core busy) and on Dask workers; an interrupted run prints and writes the steps
it finished, marked incomplete.
"""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow       # subprocesses, a CPU hog, Dask workers

ROOT = Path(__file__).resolve().parents[2]
VERIFY = ["verify", "--steps", "normalizer,perron", "--sizes", "100,150,200", "--draws", "2"]
HOG = ("import numpy as np\nM = np.random.default_rng(0).standard_normal((800, 800))\n"
       "while True:\n    M = M @ M.T\n    M /= np.abs(M).max()\n")


def _env(**extra: str) -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    env["PYTHONPATH"] = str(ROOT)
    env.update(extra)
    return env


def _untimed(value):
    """The JSON less what a rerun may change: wall times and the date."""
    if isinstance(value, dict):
        return {k: _untimed(v) for k, v in value.items() if k not in ("wall_s", "date")}
    if isinstance(value, list):
        return [_untimed(v) for v in value]
    return value


def _verify(path: Path, *options: str, env: dict | None = None) -> str:
    subprocess.run([sys.executable, "-m", "attnge", "--quiet", *VERIFY, *options, "--json",
                    str(path)], env=env or _env(), cwd=ROOT, check=True, capture_output=True,
                   timeout=120)
    return json.dumps(_untimed(json.loads(path.read_text())), sort_keys=True)


@pytest.fixture(scope="module")
def alone(tmp_path_factory) -> str:
    return _verify(tmp_path_factory.mktemp("alone") / "out.json")


def test_blas_threads_in_the_environment_change_nothing(alone, tmp_path):
    assert _verify(tmp_path / "out.json", env=_env(OPENBLAS_NUM_THREADS="2")) == alone


def test_a_busy_machine_changes_nothing(alone, tmp_path):
    # one core kept busy (BLAS products on one thread): the run then finds one free core and
    # measures its draws in this process instead of in worker processes
    hogs = [subprocess.Popen([sys.executable, "-c", HOG], env=_env(OPENBLAS_NUM_THREADS="1"))]
    try:
        time.sleep(1.0)
        assert all(h.poll() is None for h in hogs)      # the hogs are running
        assert _verify(tmp_path / "out.json") == alone
    finally:
        for h in hogs:
            h.kill()
            h.wait()


def test_dask_workers_change_nothing(alone, tmp_path):
    pytest.importorskip("distributed")
    assert _verify(tmp_path / "out.json", "--workers", "2") == alone


def test_the_comparison_can_fail(alone, tmp_path):
    """Another seed's numbers differ: the equalities above are not vacuous."""
    assert _verify(tmp_path / "out.json", "--seed", "1") != alone


def _interruptible() -> None:
    """Ctrl-C's default in the child: a shell starts a background job (``cmd &``, as a CI
    script may run the suite) with SIGINT ignored, which its children inherit, and Python then
    installs no KeyboardInterrupt handler."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("sig, code, word", [(signal.SIGINT, 130, "interrupted"),
                                             (signal.SIGTERM, 143, "terminated")])
def test_an_interrupted_run_prints_and_writes_the_steps_it_finished(tmp_path, sig, code, word):
    path = tmp_path / "out.json"
    # two steps after perron (several seconds each), so that a loaded machine that is slow
    # to send the signal still finds the run going; it stops in one of them
    planned = ["perron", "multi-head-law", "threshold"]      # in the ledger's order
    proc = subprocess.Popen([sys.executable, "-m", "attnge", "--quiet", "verify", "--steps",
                             ",".join(planned), "--sizes", "100,200,400", "--draws", "2",
                             "--json", str(path)], env=_env(), cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_interruptible)
    first = proc.stdout.readline()                    # perron's line, as soon as it is decided
    assert first.startswith("perron ")
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == code
    assert err.strip().splitlines()[-1] == f"attnge: {word}"
    document = json.loads(path.read_text())
    assert document["complete"] is False
    done = [s["id"] for s in document["steps"]]
    assert done == planned[:len(done)] and 1 <= len(done) < len(planned)
    assert document["provenance"]["interrupted_before"] == planned[len(done):]
    assert f"INCOMPLETE: interrupted before {planned[len(done)]}" in out
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
