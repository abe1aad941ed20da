"""Every check can fail: inject a wrong formula and the step reports FAIL, verify exits 1."""

import pytest
import sympy as sp

from attnge import runner
from attnge.cli import main
from attnge.output import report
from attnge.params import Params
from attnge.steps import exponential, normalizer
from attnge.theory import exponential as ex
from attnge.theory import normalizer as nz
from attnge.theory.symbols import beta

SMALL = ["--sizes", "100,200,400", "--draws", "3"]


def _failed_rows(tables):
    return [(t.title, row) for t in tables for row, v in zip(t.rows, t.verdicts) if v is False]


@pytest.mark.slow
def test_hermite_coefficient_with_the_wrong_factorial(monkeypatch):
    right = ex.hermite_coefficient

    def wrong(n, name="f"):  # β^n/(n−1)! instead of β^n/n! for n ≥ 3
        value = right(n, name)
        return value * n if n >= 3 else value
    monkeypatch.setattr(ex, "hermite_coefficient", wrong)
    failed = _failed_rows([exponential.coefficient_table(Params())])
    assert failed and all("Hermite of g" in row[1] for _, row in failed)


@pytest.mark.slow
def test_wrong_theta1_fails_quadrature_and_samples(monkeypatch):
    monkeypatch.setattr(ex, "theta1", lambda: sp.exp(beta**2) - 1 + beta**4 / 100)
    assert not exponential.theta_table(Params()).passed


def test_wrong_finite_size_score_moment_fails_the_sampled_check(monkeypatch):
    right = ex.score_moments

    def wrong(d):
        out = dict(right(d))
        value, limit = out["E S f(S)"]
        out["E S f(S)"] = (value * sp.Rational(103, 100), limit)  # 3 % off
        return out
    monkeypatch.setattr(ex, "score_moments", wrong)
    table = exponential.sampled_table(Params(sizes=(200, 400, 800), draws=4))
    assert not table.passed


def test_wrong_remainder_bound_fails(monkeypatch):
    monkeypatch.setattr(ex, "hermite_remainder_bound",
                        lambda n: beta ** (2 * n + 2) / sp.factorial(n + 1))  # e^{β²} dropped
    assert not exponential.remainder_table(Params()).passed


@pytest.mark.slow
def test_variance_five_percent_off_fails(monkeypatch):
    right = nz.variance
    monkeypatch.setattr(nz, "variance", lambda: right() * sp.Rational(105, 100))
    params = Params(sizes=(200, 300, 400), draws=100)  # power: ~1 % standard error
    tables = normalizer.sampled_tables(params)
    failed = _failed_rows(tables)
    assert failed and any("sample variance" in str(row[0]) for _, row in failed)
    assert not normalizer.exact_table(params).passed  # the quadrature route too


@pytest.mark.slow
def test_wrong_mean_fails(monkeypatch):
    monkeypatch.setattr(nz, "mean", lambda: 1 + 0 * beta)  # drops the 1/d_qk correction
    # the correction ≈ β⁴/(4d_qk) is 4–5 standard errors per size at β = 2, y = 4
    params = Params(beta=2.0, y=4.0, sizes=(300, 400, 600), draws=20)
    assert not normalizer.sampled_tables(params)[0].passed
    assert not normalizer.exact_table(params).passed


def test_wrong_expansion_fails(monkeypatch):
    right = nz.expansion

    def wrong(quantity, order=2):  # first-order coefficient of Var D_ii 1 % off
        value = right(quantity, order)
        return value + (nz.eps * beta**4 / 200 if quantity == "Var D_ii" else 0)
    monkeypatch.setattr(nz, "expansion", wrong)
    assert not normalizer.expansion_table(Params()).passed


@pytest.mark.slow
def test_verify_exits_1_on_a_wrong_formula(monkeypatch, capsys):
    right = nz.variance
    monkeypatch.setattr(nz, "variance", lambda: right() * sp.Rational(105, 100))
    assert main(["verify", "--steps", "normalizer", *SMALL]) == 1
    out = capsys.readouterr().out
    assert "FAIL" in out and "1 failed (normalizer)" in out


@pytest.mark.slow
def test_a_failing_run_reports_failed(monkeypatch):
    monkeypatch.setattr(nz, "mean", lambda: 1 + 0 * beta)
    run = runner.run([normalizer.STEP], Params(sizes=(100, 200, 400), draws=2))
    assert not run.passed and report.as_json(run)["passed"] is False


@pytest.mark.slow
def test_heavy_tailed_sizes_are_reported_but_not_tested():
    # at β = 2, d_qk ≤ 64β² = 256 the sample variance has no consistent standard error
    table = normalizer.sampled_tables(Params(beta=2.0, y=4.0, sizes=(300, 400, 600),
                                             draws=2))[0]
    untested = [row for row, v in zip(table.rows, table.verdicts) if v is None]
    assert len(untested) == 3 and all("not tested" in row[-2] for row in untested)
