"""Sweeps on Dask: the same seed gives the same numbers, bit for bit, on 2 workers as in
one process (BLAS on one thread in both), and the options fail as bad input."""

import pickle
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from attnge import cli, parallel

ROOT = Path(__file__).resolve().parents[2]
SWEEPS = '''
import pickle, sys
from attnge import heads_draws, ledger_draws, parallel
from attnge.threshold import audit as th
from attnge.params import Params

def main(out, workers):
    params = Params(sizes=(100, 150, 200), draws=2, seed=5)
    heads = Params(sizes=(100, 150, 200), draws=2, seed=5, heads=2)
    quick = th.Sweep("temperature", grid=(0.3, 0.6), sizes=(64, 96, 128), draws=2, seed=5)
    with parallel.cluster(workers):
        found = (ledger_draws.chain_sweep(params), ledger_draws.law_sweep(params),
                 th.run(quick, None), heads_draws.law_sweep(heads),
                 heads_draws.output_sweep(heads))
    with open(out, "wb") as fh:
        pickle.dump(found, fh)

if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) or None)
'''


def _identical(a, b, where="") -> list[str]:
    """The paths at which a and b differ in any bit (arrays, floats, dicts, dataclasses)."""
    if isinstance(a, dict):
        if sorted(a) != sorted(b):
            return [f"{where}: keys"]
        return [d for k in a for d in _identical(a[k], b[k], f"{where}/{k}")]
    if isinstance(a, (list, tuple)):
        if len(a) != len(b):
            return [f"{where}: length"]
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in _identical(x, y, f"{where}[{i}]")]
    if hasattr(a, "__dataclass_fields__"):
        return [d for k in a.__dataclass_fields__
                for d in _identical(getattr(a, k), getattr(b, k), f"{where}.{k}")]
    x, y = np.asarray(a), np.asarray(b)
    same = x.shape == y.shape and x.dtype == y.dtype and x.tobytes() == y.tobytes()
    return [] if same else [where]


def _run(tmp_path: Path, workers: int) -> object:
    script, out = tmp_path / "sweeps.py", tmp_path / f"out-{workers}.pkl"
    script.write_text(SWEEPS)
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1",
           "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    subprocess.run([sys.executable, str(script), str(out), str(workers)], env=env, cwd=ROOT,
                   check=True, capture_output=True, timeout=300)
    with open(out, "rb") as fh:
        return pickle.load(fh)


def test_two_workers_give_the_numbers_of_one_process_bit_for_bit(tmp_path):
    pytest.importorskip("distributed")
    here, there = _run(tmp_path, 0), _run(tmp_path, 2)
    assert _identical(here, there) == []
    chain, law, temperature, heads, layer = here
    assert sorted(chain) == [100, 150, 200] and all(len(v) == 2 for v in chain.values())
    assert len(temperature) == 2 * 3 * 2
    assert sorted(heads) == [25, 50, 75, 100] and sorted(layer) == ["kv", "mqa", "none"]
    # the comparison can fail: another seed's draw differs
    other = dict(chain)
    other[100] = [chain[100][1], chain[100][0]]
    assert _identical(chain, other) != []


@pytest.mark.parametrize("argv, named", [
    (["verify", "--workers", "0"], "workers"),
    (["verify", "--workers", "two"], "workers"),
    (["verify", "--workers", "2", "--scheduler", "tcp://x:1"], "workers"),
    (["threshold", "--mode", "order", "--scheduler", " "], "scheduler"),
])
def test_bad_cluster_options_are_bad_input(argv, named, capsys):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and named in err


def test_without_the_extra_the_options_say_what_to_install(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "distributed", None)      # import fails
    assert cli.main(["verify", "--steps", "exponential", "--workers", "2"]) == 2
    assert parallel.EXTRA in capsys.readouterr().err


def test_in_process_runs_each_task_in_order():
    assert list(parallel.measured(lambda a, b: a * b, [(1, 2), (3, 4)])) == [(0, 2), (1, 12)]
    assert parallel.concurrent_draws() == 1


def test_too_many_workers_or_too_much_memory_is_refused_before_any_worker_starts(monkeypatch,
                                                                                capsys):
    pytest.importorskip("distributed")
    import os

    too_many = (os.cpu_count() or 1) + 1
    assert cli.main(["verify", "--steps", "M0-Y", "--workers", str(too_many)]) == 2
    assert "workers must be an integer from 1 to" in capsys.readouterr().err
    if (os.cpu_count() or 1) < 2:
        return
    started = []
    import distributed
    monkeypatch.setattr(distributed, "LocalCluster", lambda *a, **k: started.append(1))
    from attnge.numerics import measure
    one_draw = 8 * (measure.MATRICES_PER_DRAW * 1000**2 + 2 * 1000**2)
    monkeypatch.setattr(measure, "available_bytes", lambda: 3 * one_draw // 2)
    # one draw at ell = 1000 fits in that memory, two at once do not
    assert cli.main(["verify", "--steps", "M0-Y", "--sizes", "250,500,1000", "--workers", "2"]) == 2
    assert "2 draws at once" in capsys.readouterr().err and started == []


def test_blas_threads_leave_the_busy_cores(monkeypatch):
    """Each in-process draw takes the cores other processes leave free, at least one; a user's
    own BLAS setting is kept."""
    for name in parallel.ONE_THREAD:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(parallel, "cores", lambda: 4)
    for others, threads in ((0, 4), (1, 3), (3, 1), (9, 1)):
        monkeypatch.setattr(parallel, "other_runnable", lambda n=others: n)
        assert parallel.blas_threads() == threads
    monkeypatch.setattr(parallel, "other_runnable", lambda: None)
    assert parallel.blas_threads() is None
    monkeypatch.setattr(parallel, "other_runnable", lambda: 3)
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "2")
    assert parallel.blas_threads() is None


def test_draws_run_under_the_limit(monkeypatch):
    from threadpoolctl import threadpool_info
    for name in parallel.ONE_THREAD:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(parallel, "blas_threads", lambda: 1)

    def threads():
        return max(i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas")

    assert list(parallel.measured(threads, [(), ()])) == [(0, 1), (1, 1)]


def test_other_runnable_counts_a_busy_process():
    if parallel.other_runnable() is None:
        pytest.skip("no /proc here")
    code = "import time\nt = time.time()\nwhile time.time() - t < 3: pass\n"
    busy = subprocess.Popen([sys.executable, "-c", code])
    try:
        time.sleep(0.5)
        assert parallel.other_runnable() >= 1
    finally:
        busy.kill()
        busy.wait()
