"""Wrong mathematics that only the samples can catch.

Each test injects a wrong formula at the one place every symbolic route of a step reads
it, so that the routes still agree with each other, and asserts that the step FAILS
through its sampled rows (and, where the step has a routes table, that the routes table
still passes: the samples are what caught it). Small sizes and few draws: seconds each.

The theory's caches (routes, edges, regimes) are cleared around every test that injects a
wrong formula (``fresh``), so that the step reads it and nothing computed from it survives;
the tests of correct code read them as the earlier tests left them (correct). The draws are
kept in the run context and shared, except where the injection is one the draws read
(θ₁ and θ₂, which the sampled models are built from, and the sampling itself): those tests
measure theirs in a context of their own (``own_draws``).
"""

import numpy as np
import pytest
import sympy as sp

from attnge import context, ledger_draws, numerics, theory  # noqa: F401 (numerics.x.y)
from attnge import regimes as rg
from attnge.context import Context
from attnge.numerics import limit_density
from attnge.params import Params
from attnge.steps import (
    chain_m0_y,
    chain_y_yf,
    chain_yf_yq,
    chain_ylinq_ylinf,
    chain_yq_ylinq,
    limit_law,
    normalizer,
    not_marchenko_pastur,
    perron,
)
from attnge.theory import exponential as ex
from attnge.theory import limit_law as ll
from attnge.theory import normalizer as nz
from attnge.theory import outliers
from attnge.theory.symbols import beta, ell

SMALL = Params(beta=1.0, y=2.0, sizes=(100, 200, 400), draws=2)
MID = Params(beta=1.0, y=2.0, sizes=(200, 400, 800), draws=4)   # the gap y theta2^2 needs more
LAW_STEPS = (limit_law, not_marchenko_pastur, perron)
CHAIN_STEPS = (chain_m0_y, chain_y_yf, chain_yf_yq, chain_yq_ylinq, chain_ylinq_ylinf)


def _clear():
    for cached in (limit_law.routes, outliers.edge_point):
        cached.cache_clear()
    rg.cache_clear()


@pytest.fixture
def fresh():
    """The theory's caches (routes, edges, regimes) are computed anew under an injected
    formula, and nothing computed under it survives the test (asked for before
    ``monkeypatch``, so that it clears them once the formula is restored)."""
    _clear()
    yield
    _clear()


@pytest.fixture
def own_draws():
    """Draws measured under an injection they read: in a context of their own, so that they
    neither read the run context's correct draws nor leak into other tests."""
    with context.running(Context()):
        yield


def sampled_passed(tables) -> bool:
    """Whether the sampled value rows pass (the tables that carry ``values``)."""
    judged = [t for t in tables if t.values]
    assert judged, "the step has no sampled value rows"
    return all(t.passed for t in judged)


def routes_passed(tables) -> bool:
    return all(t.passed for t in tables if t.title.startswith("Moments and edge"))


@pytest.mark.slow
@pytest.mark.parametrize("params, steps", [(SMALL, LAW_STEPS), (MID, LAW_STEPS + CHAIN_STEPS)],
                         ids=["small", "mid"])
def test_correct_code_passes_at_the_test_sizes(params, steps):
    for step in steps:
        assert all(t.passed for t in step.check(params)), step.ID


@pytest.mark.slow
def test_y_replaced_by_one_over_y_in_the_law(fresh, monkeypatch):
    for module, name in ((ll, "limit_moments"), (ll, "limit_moments_functional")):
        right = getattr(module, name)
        monkeypatch.setattr(module, name, lambda K, t1, t2, y, right=right: right(K, t1, t2, 1 / y))
    moments, edge_route = limit_density.density_moments, limit_density.right_edge
    monkeypatch.setattr(limit_density, "density_moments",
                        lambda qs, t1, t2, y, **kw: moments(qs, t1, t2, 1 / y, **kw))
    monkeypatch.setattr(limit_density, "right_edge",
                        lambda t1, t2, y, **kw: edge_route(t1, t2, 1 / y, **kw))
    edge = outliers.edge_point.__wrapped__
    monkeypatch.setattr(outliers, "edge_point", lambda b, yy, dps=30: edge(b, 1 / yy, dps))
    g = outliers._g_float.__wrapped__
    monkeypatch.setattr(outliers, "_g_float", lambda b, yy: g(b, 1 / yy))
    tables = limit_law.check(SMALL)
    assert routes_passed(tables)
    assert not sampled_passed(tables)
    assert not sampled_passed(not_marchenko_pastur.check(MID))


@pytest.mark.slow
def test_theta2_halved_at_its_source(fresh, monkeypatch, own_draws):
    right = ex.theta2
    monkeypatch.setattr(ex, "theta2", lambda: right() / 2)
    tables = limit_law.check(SMALL)
    assert routes_passed(tables)
    assert not sampled_passed(tables)
    assert not sampled_passed(not_marchenko_pastur.check(MID))
    assert not sampled_passed(chain_yq_ylinq.check(MID))     # the bulk of Y^lin_Q against nu


@pytest.mark.slow
def test_theta1_three_percent_high_at_its_source(fresh, monkeypatch, own_draws):
    params = Params(beta=1.0, y=2.0, sizes=(200, 400, 800), draws=5)   # 3% needs five draws
    right = ex.theta1
    monkeypatch.setattr(ex, "theta1", lambda: right() * sp.Rational(103, 100))
    tables = limit_law.check(params)
    assert routes_passed(tables)
    assert not sampled_passed(tables)
    assert not sampled_passed(perron.check(params))


@pytest.mark.slow
def test_samples_drawn_at_one_percent_higher_beta(monkeypatch, own_draws):
    law, chain = ledger_draws.measure_law_draw, ledger_draws.measure_draw
    monkeypatch.setattr(ledger_draws, "measure_law_draw",
                        lambda ell, d, b, *a: law(ell, d, b * 1.01, *a))
    monkeypatch.setattr(ledger_draws, "measure_draw",
                        lambda ell, d, b, *a: chain(ell, d, b * 1.01, *a))
    assert not sampled_passed(limit_law.check(SMALL))
    assert not sampled_passed(perron.check(SMALL))


@pytest.mark.slow
def test_keys_scaled_by_ten_percent(monkeypatch, own_draws):
    right = numerics.law_draws.sample_scores

    def wide_keys(ell, d, rng, X=None):
        draw = right(ell, d, rng, X)
        return type(draw)(Q=draw.Q, K=1.1 * draw.K, S=1.1 * draw.S)
    monkeypatch.setattr(numerics.law_draws, "sample_scores", wide_keys)
    monkeypatch.setattr(numerics.measure, "sample_scores", wide_keys)
    assert not sampled_passed(limit_law.check(SMALL))
    for step in CHAIN_STEPS:
        assert not sampled_passed(step.check(MID)), step.ID


@pytest.mark.slow
def test_second_moment_of_x_replaced_by_its_limit(fresh):
    """E X_ij² = e^{β²} (the d_qk → ∞ value) instead of its exact finite-d_qk mean: only
    the exact means of m₁ along the chain read it, and their samples catch it (about 5% at
    d_qk = 65..260; eight draws, since the entries of f(S) have heavy tails)."""
    params = Params(beta=1.0, y=4.0, sizes=(260, 520, 1040), draws=8)
    steps = (chain_m0_y, chain_y_yf, chain_yf_yq, chain_yq_ylinq)
    for step in steps:
        assert all(t.passed for t in step.check(params)), step.ID
    with pytest.MonkeyPatch.context() as patch:   # the draws do not read it: they stay
        patch.setattr(nz, "second_moment_X", lambda: sp.exp(beta**2))
        for step in steps:
            assert not sampled_passed(step.check(params)), step.ID


@pytest.mark.slow
def test_variance_of_d_without_its_finite_size_factor(fresh, monkeypatch):
    params = Params(beta=1.0, y=0.5, sizes=(100, 200, 400), draws=4)
    assert all(t.passed for t in normalizer.sampled_tables(params))
    monkeypatch.setattr(nz, "variance", lambda: nz.second_moment_X() / ell
                        + nz.cross_moment_X() - nz.mean_X() ** 2)   # (1 - 1/ell) dropped
    sampled = normalizer.sampled_tables(params)
    assert not sampled[0].passed


def test_too_small_sizes_are_refused_with_the_smallest_accepted():
    with pytest.raises(ValueError, match="ell >= 100"):
        ledger_draws.validate_law(Params(sizes=(50, 100, 200)))


@pytest.mark.slow
def test_value_rows_say_what_they_detect():
    tables = limit_law.check(SMALL)
    values = [v for t in tables for v in t.values]
    assert values and all(np.isfinite(v["detectable"]) and v["detectable"] > 0 for v in values)
    names = [v["quantity"] for v in values]     # a fit on the sizes of its regime says so
    assert any(n.startswith("m_2(M0), full, ell -> inf") for n in names)
    assert any(n.startswith("bulk edge lambda_") for n in names)
