"""The threshold sweep: resume, bookkeeping, bad grids, memory, and a check that can fail."""

import json

import pytest

from derivations import threshold as sweeps
from derivations.cli import main
from numerics.stats import Rate

SMALL = dict(grid=(0.6, 0.9, 1.1, 1.4), sizes=(100, 200, 400), draws=2)


class Interrupted(Exception):
    """Stands for a kill in the middle of a sweep."""


def test_resume_measures_only_what_is_missing(tmp_path, monkeypatch):
    sweep = sweeps.Sweep("temperature", **SMALL)
    calls = []
    real = sweeps.Sweep.measure
    interrupt = [True]

    def counted(self, value, ell, draw):
        calls.append((value, ell, draw))
        if interrupt[0] and len(calls) == 5:
            raise Interrupted  # after 4 finished draws
        return real(self, value, ell, draw)
    monkeypatch.setattr(sweeps.Sweep, "measure", counted)
    with pytest.raises(Interrupted):
        sweeps.run(sweep, tmp_path)
    assert len(sweeps.load(sweeps.store_path(tmp_path, "temperature"))) == 4
    with open(sweeps.store_path(tmp_path, "temperature"), "a") as fh:
        fh.write('{"key": "torn')  # a write cut in half
    calls.clear()
    interrupt[0] = False
    resumed = sweeps.run(sweep, tmp_path)
    assert len(calls) == 4 * 3 * 2 - 4
    monkeypatch.setattr(sweeps.Sweep, "measure", real)
    fresh = sweeps.run(sweep, None)
    assert resumed == fresh  # same seed, same numbers, however the work was split
    lines = sweeps.store_path(tmp_path, "temperature").read_text().splitlines()
    assert sum(1 for line in lines if line.startswith('{"key": "v1')) == 24


def test_normalizer_threshold_is_measured_at_one():
    sweep = sweeps.Sweep("temperature", **SMALL)
    found = {q.name: q for q in sweeps.quantities(sweep, sweeps.run(sweep, None))}
    q = found["sd(D)"]
    assert q.measured is not None and abs(q.measured - 1) <= q.uncertainty
    assert sweeps.threshold_table(sweep, [q]).passed


def test_crossing_and_a_wrong_prediction_fails():
    grid = (0.2, 0.4, 0.6, 0.8)
    rates = [Rate(-0.6, 0.01), Rate(-0.2, 0.01), Rate(0.2, 0.01), Rate(0.6, 0.01)]
    x, unc, _ = sweeps.crossing(grid, rates, upward=True)
    assert x == pytest.approx(0.5) and unc == pytest.approx(0.1 + 0.2 / 0.4 * 0.01)
    sweep = sweeps.Sweep("temperature", **SMALL)
    right = sweeps.Quantity("sd(D)", rates, [None] * 4, 0.5, x, unc, "")
    wrong = sweeps.Quantity("sd(D)", rates, [None] * 4, 0.7, x, unc, "")
    assert sweeps.threshold_table(sweep, [right]).passed
    assert not sweeps.threshold_table(sweep, [wrong]).passed
    assert sweeps.crossing(grid, [Rate(-1, 0.1)] * 4, upward=True)[0] is None


@pytest.mark.parametrize("args, name", [
    (["--mode", "speed"], "mode"), (["--mode", "order", "--grid", "0.5,0.4"], "grid"),
    (["--mode", "order", "--grid", "0.5,1.2"], "grid"),
    (["--mode", "temperature", "--grid", "0,1"], "grid"),
    (["--mode", "temperature", "--sizes", "300,200,400"], "sizes"),
    (["--mode", "temperature", "--draws", "0"], "draws"),
    (["--mode", "temperature", "--sizes", "100000,200000,400000"], "sizes"),
])
def test_bad_grids_exit_2(capsys, args, name):
    assert main(["threshold", *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and name in err[0]


def test_cli_writes_table_store_and_figure(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    args = ["threshold", "--mode", "order", "--grid", "0.4,0.7", "--sizes", "60,90,120",
            "--draws", "1", "--out", str(tmp_path)]
    assert main(args) == 0
    first = capsys.readouterr().out
    assert "predicted alpha*" in first
    for suffix in ("md", "png", "jsonl"):
        assert (tmp_path / f"threshold-order.{suffix}").exists()
    assert main(args) == 0  # resumed: nothing left to measure, the same table
    assert capsys.readouterr().out == first
    record = json.loads((tmp_path / "threshold-order.jsonl").read_text().splitlines()[0])
    assert set(record["result"]) >= {"kolmogorov lin_f", "kolmogorov k=2"}
