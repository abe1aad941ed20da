"""Where draws run: the same seed gives the same numbers, bit for bit, on 2 Dask workers, in
forked worker processes and in one process (BLAS on one thread in all), and the options
fail as bad input."""

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


def _run(tmp_path: Path, workers: int, threads: str | None = None) -> object:
    """The sweeps on ``workers`` Dask workers (0: without Dask), BLAS's environment as given
    (``threads``: OPENBLAS_NUM_THREADS, which the draws override)."""
    script, out = tmp_path / "sweeps.py", tmp_path / f"out-{workers}.pkl"
    script.write_text(SWEEPS)
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)}
    if threads is not None:
        env["OPENBLAS_NUM_THREADS"] = threads
    subprocess.run([sys.executable, str(script), str(out), str(workers)], env=env, cwd=ROOT,
                   check=True, capture_output=True, timeout=300)
    with open(out, "rb") as fh:
        return pickle.load(fh)


@pytest.mark.slow
def test_two_workers_give_the_numbers_of_one_process_bit_for_bit(tmp_path):
    pytest.importorskip("distributed")
    here, there = _run(tmp_path, 0, threads="2"), _run(tmp_path, 2)
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


def _threads() -> int:
    from threadpoolctl import threadpool_info
    return max(i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas")


def _draw(ell: int, draw: int) -> tuple:
    """A draw whose last bits depend on BLAS's summation order (a large product)."""
    from attnge.numerics.sampling import draw_rng
    rng = draw_rng(3, "test", ell, draw)
    M = rng.standard_normal((ell, ell))
    return (M @ M.T).sum(axis=1), _threads()


def test_draws_run_on_one_blas_thread_in_process_and_in_workers(monkeypatch):
    """The same numbers, bit for bit, whether the draws run in this process or in forked
    workers, whatever BLAS's threads outside them; each draw on one thread."""
    tasks = [(300, k) for k in range(4)]
    monkeypatch.setattr(parallel, "free_cores", lambda: 1)
    here = dict(parallel.measured(_draw, tasks))
    monkeypatch.setattr(parallel, "free_cores", lambda: 2)
    assert parallel.processes(len(tasks)) == 2
    there = dict(parallel.measured(_draw, tasks))
    assert sorted(here) == sorted(there) == [0, 1, 2, 3]
    for i in here:
        assert here[i][1] == there[i][1] == 1
        assert here[i][0].tobytes() == there[i][0].tobytes()
    assert _identical(here[0][0], here[1][0]) != []        # the comparison can fail


def _fails(x: int) -> int:
    if x == 2:
        raise ValueError("x: two is refused")
    return x


def test_a_worker_error_is_raised_here_and_no_worker_is_left(monkeypatch):
    import multiprocessing

    monkeypatch.setattr(parallel, "free_cores", lambda: 2)
    with pytest.raises(ValueError, match="two is refused"):
        list(parallel.measured(_fails, [(1,), (2,), (3,)]))
    for _ in parallel.measured(_fails, [(1,), (3,), (4,)]):
        break                                   # a consumer that stops reading
    deadline = time.time() + 10
    while multiprocessing.active_children() and time.time() < deadline:
        time.sleep(0.05)
    assert multiprocessing.active_children() == []


def test_memory_bounds_the_workers(monkeypatch):
    from attnge.numerics import measure

    monkeypatch.setattr(parallel, "free_cores", lambda: 8)
    monkeypatch.setattr(measure, "available_bytes", lambda: 3 * 10**9)
    assert parallel.processes(5) == 5
    assert parallel.processes(5, memory=10**9) == 3
    assert parallel.processes(5, memory=10**10) == 1
    assert parallel.processes(1) == 1


@pytest.mark.slow
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
