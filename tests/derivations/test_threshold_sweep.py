"""The threshold sweep: resume, bookkeeping, bad grids, memory, and a check that can fail."""

import json
import math

import pytest

from attnge import judging, parallel
from attnge.cli import main
from attnge.judging import INCONCLUSIVE
from attnge.numerics.stats import Rate
from attnge.threshold import audit, fit, modes

SMALL = dict(grid=(0.6, 0.9, 1.1, 1.4), sizes=(100, 200, 400), draws=2)


class Interrupted(Exception):
    """Stands for a kill in the middle of a sweep."""


@pytest.mark.slow
def test_resume_measures_only_what_is_missing(tmp_path, monkeypatch):
    sweep = audit.Sweep("temperature", **SMALL)
    calls = []
    real = audit.Sweep.measure
    interrupt = [True]

    def counted(self, value, ell, draw):
        calls.append((value, ell, draw))
        if interrupt[0] and len(calls) == 5:
            raise Interrupted  # after 4 finished draws
        return real(self, value, ell, draw)
    monkeypatch.setattr(audit.Sweep, "measure", counted)
    # the draws counted here, in this process (on a quiet machine they would go to workers)
    monkeypatch.setattr(parallel, "processes", lambda tasks, memory=0: 1)
    with pytest.raises(Interrupted):
        audit.run(sweep, tmp_path)
    assert len(audit.load(audit.store_path(tmp_path, "temperature"), "temperature").done) == 4
    with open(audit.store_path(tmp_path, "temperature"), "a") as fh:
        fh.write('{"key": "torn')  # a write cut in half
    calls.clear()
    interrupt[0] = False
    resumed = audit.run(sweep, tmp_path)
    assert len(calls) == 4 * 3 * 2 - 4
    monkeypatch.setattr(audit.Sweep, "measure", real)
    fresh = audit.run(sweep, None)
    assert resumed == fresh  # same seed, same numbers, however the work was split
    lines = audit.store_path(tmp_path, "temperature").read_text().splitlines()
    schema = modes.TEMPERATURE.schema
    assert sum(1 for line in lines if line.startswith(f'{{"key": "{schema}')) == 24


@pytest.mark.slow
def test_normalizer_threshold_is_measured_at_one():
    sweep = audit.Sweep("temperature", **SMALL)
    found = {q.name: q for q in audit.quantities(sweep, audit.run(sweep, None))}
    q = found["sd(D)"]
    assert q.measured is not None and abs(q.measured - 1) <= q.uncertainty
    assert audit.threshold_table(sweep, [q]).passed


def test_crossing_and_a_wrong_prediction_fails():
    grid = (0.2, 0.4, 0.6, 0.8)
    rates = [Rate(-0.6, 0.01), Rate(-0.2, 0.01), Rate(0.2, 0.01), Rate(0.6, 0.01)]
    x, unc, _ = fit.crossing(grid, rates, upward=True)
    # slopes on a line: no model error; each slope's 2-se width carried through
    assert x == pytest.approx(0.5) and unc == pytest.approx(0.2 / 0.4**2 * 0.2 * 0.02 * 2**0.5)
    sweep = audit.Sweep("temperature", **SMALL)
    right = fit.Quantity("sd(D)", grid, rates, [None] * 4, 0.5, x, unc, "")
    wrong = fit.Quantity("sd(D)", grid, rates, [None] * 4, 0.7, x, unc, "")
    assert audit.threshold_table(sweep, [right]).passed
    assert not audit.threshold_table(sweep, [wrong]).passed
    assert fit.crossing(grid, [Rate(-1, 0.1)] * 4, upward=True)[0] is None


def test_exact_slopes_far_from_the_measured_ones_fail_a_temperature_row():
    grid = (0.2, 0.4, 0.6, 0.8)
    rates = [Rate(-0.6, 0.01), Rate(-0.2, 0.01), Rate(0.2, 0.01), Rate(0.6, 0.01)]
    x, unc, where = fit.crossing(grid, rates, upward=True)
    near = [-0.55, -0.25, None, None]   # within max(4 se, 0.1)
    far = [-0.55, -0.45, None, None]    # 0.25 off at c = 0.4
    assert fit.Quantity("sd(D)", grid, rates, near, 0.5, x, unc, where).verdict
    assert not fit.Quantity("sd(D)", grid, rates, far, 0.5, x, unc, where).verdict
    # m1: judged on the crossing of its exact mean at these sizes, on its exact mean at
    # every size, and a crossing must be measured
    m1 = dict(grid=grid, slopes=rates, predicted_slopes=near, predicted=0.8,
              crossing_required=True)
    assert fit.Quantity("m1", **m1, measured=x, uncertainty=unc, bracket=where,
                        finite=(0.505, where), size_z=[1.0, 3.9, 0.2, 2.0]).verdict is True
    assert not fit.Quantity("m1", **m1, measured=x, uncertainty=unc, bracket=where,
                            finite=(0.7, where)).verdict
    assert not fit.Quantity("m1", **m1, measured=x, uncertainty=unc, bracket=where,
                            finite=(0.505, where), size_z=[1.0, 4.1, 0.2, 2.0]).verdict
    # no crossing measured: slopes past the target known negative show the crossing is not
    # there (FAIL); ones whose sign the draws cannot tell show nothing (issue 39)
    falling = [Rate(-0.9, 0.01), Rate(-0.7, 0.01), Rate(-0.5, 0.01), Rate(-0.3, 0.01)]
    none = dict(m1, slopes=falling, predicted_slopes=[-0.9, -0.7, None, None], measured=None,
                uncertainty=None, bracket="none", finite=(0.52, "between 0.4 and 0.6"))
    assert fit.Quantity("m1", **none).values_agree
    assert fit.Quantity("m1", **none).verdict is False
    blurred = [Rate(r.slope, 0.5) for r in falling]
    assert fit.Quantity("m1", **dict(none, slopes=blurred)).verdict == fit.INCONCLUSIVE


@pytest.mark.slow
def test_m1_follows_its_exact_mean_and_a_wrong_mean_fails(monkeypatch):
    sweep = audit.Sweep("temperature", **SMALL)
    done = audit.run(sweep, None)
    found = {q.name: q for q in audit.quantities(sweep, done)}
    assert found["m1"].verdict and max(found["m1"].size_z) <= judging.SIZE_Z
    real = modes.expected_mass_difference
    monkeypatch.setattr(modes, "expected_mass_difference",
                        lambda *args: 1.5 * real(*args))   # half as much again
    wrong = {q.name: q for q in audit.quantities(sweep, done)}["m1"]
    assert not wrong.verdict and max(wrong.size_z) > judging.SIZE_Z


@pytest.mark.parametrize("args, name", [
    (["--mode", "speed"], "mode"), (["--mode", "order", "--grid", "0.5,0.4"], "grid"),
    (["--mode", "order", "--grid", "0.5,1.2"], "grid"),
    (["--mode", "temperature", "--grid", "0,1"], "grid"),
    (["--mode", "temperature", "--sizes", "300,200,400"], "sizes"),
    (["--mode", "temperature", "--draws", "0"], "draws"),
    (["--mode", "temperature", "--sizes", "100000,200000,400000"], "sizes"),
    (["--mode", "order", "--beta", "1", "--grid", "0.3,0.5"], "grid"),   # d_qk too small
])
def test_bad_grids_exit_2(capsys, args, name):
    assert main(["threshold", *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and name in err[0]


@pytest.mark.slow
def test_cli_writes_table_store_and_figure(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    args = ["threshold", "--mode", "order", "--grid", "0.4,0.7", "--sizes", "60,90,120",
            "--draws", "1", "--out", str(tmp_path)]
    assert main(args) == 1      # two grid values at tiny sizes: no crossing, a verdict fails
    first = capsys.readouterr().out
    assert "predicted alpha*" in first
    for suffix in ("md", "png", "jsonl"):
        assert (tmp_path / f"threshold-order.{suffix}").exists()
    assert main(args) == 1  # resumed: nothing left to measure, the same table
    assert capsys.readouterr().out == first
    provenance = json.loads((tmp_path / "threshold-order.provenance.json").read_text())
    assert [r["draws_measured"] for r in provenance["runs"]] == [6, 0]   # 2 x 3 sizes x 1
    assert provenance["draws_reused"] == 6 and provenance["parameters"]["draws"] == 1
    record = json.loads((tmp_path / "threshold-order.jsonl").read_text().splitlines()[0])
    assert set(record["result"]) >= {"frobenius lin_f", "frobenius lin_f var",
                                     "wasserstein k=2", "kolmogorov k=3"}


ORDER = dict(grid=(0.3, 0.45, 0.6, 0.8), sizes=(120, 240, 480), draws=2)


@pytest.mark.slow
def test_order_frobenius_follows_its_exact_mean_and_a_wrong_mean_fails(monkeypatch):
    sweep = audit.Sweep("order", **ORDER)
    done = audit.run(sweep, None)
    found = {q.name: q for q in audit.quantities(sweep, done)}
    frobenius = [f"frobenius {m}" for m in modes.th.ORDER_MODELS]
    judged = [found[name] for name in frobenius]
    assert all(q.finite is not None and q.verdict for q in judged)
    assert audit.threshold_table(sweep, judged).passed
    real = modes.th.expected_order_distance
    # the mean of the wrong model: one Hadamard term more or fewer, a power of d_qk off
    neighbour = {"lin_f": "k=2", "k=2": "k=3", "k=3": "k=2"}
    monkeypatch.setattr(modes.th, "expected_order_distance",
                        lambda model, beta, d, ell: real(neighbour[model], beta, d, ell))
    wrong = {q.name: q for q in audit.quantities(sweep, done)}
    assert not any(wrong[name].verdict for name in frobenius)
    assert not audit.threshold_table(sweep, [wrong[n] for n in frobenius]).passed


def test_order_grid_leaves_out_keys_too_few_for_a_standard_error():
    # lin_f at beta = 1: E delta finite for d_qk > 8, its se reliable for d_qk > 32
    sweep = audit.Sweep("order", grid=(0.3, 0.62, 0.9, 0.95), sizes=(100, 200, 400), draws=1,
                         beta=1.0)
    assert modes.order_grid(sweep, "lin_f") == (0.9, 0.95)       # 100^0.62 -> 17 <= 32 < 63
    assert modes.order_grid(sweep, "k=2") == (0.62, 0.9, 0.95)  # bound 4 beta^2: d > 16


def test_order_crossing_agrees_only_with_the_same_crossing():
    grid = (0.2, 0.3, 0.4)
    rates = [Rate(0.3, 0.02), Rate(-0.1, 0.02), Rate(-0.5, 0.02)]
    x, unc, where = fit.crossing(grid, rates, upward=False)
    exact = [0.3, -0.1, -0.5]
    same = fit.Quantity("frobenius k=2", grid, rates, exact, 1 / 3, x, unc, where,
                           finite=(x, where))
    moved = fit.Quantity("frobenius k=2", grid, rates, exact, 1 / 3, x, unc, where,
                            finite=(x + 2 * unc, where))
    none = fit.Quantity("frobenius k=2", grid, rates, exact, 1 / 3, x, unc, where,
                           finite=(None, "no crossing on the grid (beyond 0.2)"))
    assert same.verdict and not moved.verdict
    assert none.verdict   # only one crosses: the slopes, which agree, decide
    steep = fit.Quantity("frobenius k=2", grid, rates, [0.3, -0.1, -0.7], 1 / 3, x, unc,
                            where, finite=(x, where))
    assert not steep.verdict   # one slope 0.2 > max(4 se, 0.1) away
    # Kolmogorov: no slopes to meet, only crossings; none on either side is not a pass
    ks = dict(grid=grid, slopes=rates, predicted_slopes=[None] * 3, predicted=1 / 3)
    assert fit.Quantity("kolmogorov k=2", measured=x, uncertainty=unc, bracket=where,
                           finite=(x + unc / 2, where), **ks).verdict
    assert fit.Quantity("kolmogorov k=2", measured=x, uncertainty=unc, bracket=where,
                           finite=(None, "no crossing"), **ks).verdict is False
    assert fit.Quantity("kolmogorov k=2", measured=None, uncertainty=None, bracket="none",
                           finite=(None, "none"), **ks).verdict is None


def test_rank_prediction_crosses_above_one_over_k_and_tends_to_it():
    # the Kolmogorov prediction: where N_k(round(ell^alpha))/ell stops growing with ell
    sizes = (250, 500, 1000, 2000)
    grid = tuple(round(0.2 + 0.01 * i, 2) for i in range(50))
    for k in (2, 3, 4):
        signs = [fit.stats.Rate(-modes.th.rank_exponent(
            k, sizes, tuple(modes.order_d_qk(a, ell) for ell in sizes)), 0) for a in grid]
        x, _, _ = fit.crossing(grid, signs, upward=False)
        assert 1 / k < x < 1 / k + 0.06
    big = (10**8, 10**9, 10**10)
    slope = modes.th.rank_exponent(2, big, tuple(round(ell**0.5) for ell in big))
    assert abs(slope) < 0.01   # d log N_2/d log d -> 2 as d grows


@pytest.mark.slow
def test_cli_numbers_reach_the_measurement_as_numbers(capsys):
    # --y and --beta arrive as strings; the sweep stores them as floats (keys, measurements)
    # tiny: every row INCONCLUSIVE, naming what would decide (it said FAIL before issue 39)
    assert main(["threshold", "--mode", "temperature", "--y", "2", "--grid", "0.3,0.6",
                 "--sizes", "60,90,120", "--draws", "1"]) == 0
    assert "y = 2" in capsys.readouterr().out
    sweep = audit.Sweep("order", grid=(0.6, 0.9), sizes=(60, 90, 120), draws=1, beta="0.5")
    assert sweep.beta == 0.5 and sweep.key(0.6, 60, 0).endswith("beta=0.5")


def test_crossing_widens_over_slopes_of_unknown_sign():
    grid = (0.2, 0.3, 0.4, 0.5, 0.6)
    # scanning down from 0.6: the sign changes between 0.4 and 0.3, but the slopes at 0.4 and
    # 0.3 are within 2 se of 0; the nearest known signs are at 0.5 (-) and 0.2 (+)
    rates = [Rate(0.5, 0.05), Rate(0.05, 0.1), Rate(-0.05, 0.1), Rate(-0.6, 0.05),
             Rate(-1.0, 0.05)]
    x, unc, where = fit.crossing(grid, rates, upward=False)
    assert x == pytest.approx(0.35) and where == "between 0.4 and 0.3"
    assert unc >= 0.15   # reaches 0.2 and 0.5
    known = [Rate(0.5, 0.05), Rate(0.3, 0.05), Rate(-0.3, 0.05), Rate(-0.6, 0.05),
             Rate(-1.0, 0.05)]
    statistical = 0.1 / 0.6**2 * (0.3 * 0.1) * 2**0.5
    # the parabola through 0.4, 0.3 and 0.2 moves the root by its curvature
    bent = fit._bent(grid, known, 0, 2, 1, 0.35)
    assert 0 < bent < 0.05
    assert fit.crossing(grid, known, upward=False)[1] == pytest.approx(statistical + bent)


@pytest.mark.slow
def test_decide_doubles_the_draws_per_point_keeping_the_stored_ones(tmp_path, monkeypatch):
    """``--decide``: each look doubles the draws per point, stores each draw once, and its
    tables are those of a run from nothing at its draws and the per-look thresholds (two
    looks at most here, whatever the machine's speed)."""
    monkeypatch.setattr(judging, "LOOKS_MAX", 2)
    sweep = audit.Sweep("temperature", **SMALL)
    with monkeypatch.context() as m:        # grow whatever the rows need (the rule: below)
        m.setattr(judging, "reach", lambda taken: math.inf)
        grown, found, tabs, record, stopped = audit.decide(sweep, tmp_path, 600.0)
    assert [look["draws"] for look in record["looks"]] == [2, 4] and grown.draws == 4
    assert "2 looks taken" in stopped
    keys = [json.loads(line)["key"] for line in
            audit.store_path(tmp_path, "temperature").read_text().splitlines()]
    assert len(keys) == len(set(keys)) == 4 * 3 * grown.draws
    with judging.looking():
        again = audit.tables(grown, audit.quantities(grown, audit.run(grown, tmp_path)))
    assert [(t.rows, t.verdicts) for t in again] == [(t.rows, t.verdicts) for t in tabs]
    # the rule (the verify's): a row is grown only where the factor of the draws it states
    # (its table's needs; here 6x and more) is within what the looks left reach (2x)
    _, _, first, record, stopped = audit.decide(sweep, tmp_path, 600.0)
    assert [look["draws"] for look in record["looks"]] == [2] and stopped == ""
    needs = [n for t in first for n, v in zip(t.needs, t.verdicts) if v == INCONCLUSIVE]
    assert needs and min(needs) > judging.reach(1) == 2


def test_decide_options_of_threshold_are_checked(capsys):
    assert main(["threshold", "--mode", "order", "--budget", "1m"]) == 2
    assert "budget applies with --decide only" in capsys.readouterr().err
