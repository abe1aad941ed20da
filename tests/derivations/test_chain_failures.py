"""Every chain step can fail: a wrong formula or a wrong model makes it report FAIL.

SMALL is the smallest sizes the law's steps accept, with four draws: every step passes there
(``test_every_step_passes_on_small_sizes``) and every injection below that reads SMALL is
caught there, with margins like those of the former (250, 500, 1000) with three draws
(measured, here against there: the spike's z -5.5 against -4.5, the centring's combined z
-7.4 against -9.9, the conditional covariance's 8.4 against 10.7; the Frobenius slope -0.51
against -0.33, for -1 ± 0.3; with two draws some are no longer caught). The tests that
inject wrong sampling measure their draws in a context of their own (``own_draws``): the
correct draws of SMALL stay in the run context for the others, which inject wrong formulas
only (the draws do not read them) and share them."""

import numpy as np
import pytest
import sympy as sp

from attnge import context, ledger_draws, numerics, theory  # noqa: F401 (numerics.x.y)
from attnge import regimes as rg
from attnge.context import Context
from attnge.params import Params
from attnge.steps import (
    chain_m0_y,
    chain_y_yf,
    chain_yf_yq,
    chain_ylinq_ylinf,
    chain_yq_ylinq,
    limit_law,
    not_marchenko_pastur,
    outliers,
    perron,
)
from attnge.theory import limit_law as ll
from attnge.theory import linear_model as lm
from attnge.theory import outliers as th

SMALL = Params(sizes=(100, 200, 400), draws=4)


def passed(tables):
    return all(t.passed for t in tables)


@pytest.fixture
def own_draws():
    """Draws measured under an injected sampling error: in a context of their own, so that
    they neither read the run context's correct draws nor leak into other tests."""
    with context.running(Context()):
        yield


@pytest.mark.slow
def test_every_step_passes_on_small_sizes():
    for step in (chain_m0_y, chain_y_yf, chain_yf_yq, chain_yq_ylinq, chain_ylinq_ylinf,
                 limit_law, not_marchenko_pastur, perron, outliers):
        assert passed(step.check(SMALL)), step.ID


@pytest.mark.slow
def test_wrong_normalizer_breaks_the_identity(monkeypatch, own_draws):
    right = numerics.chain.normalizer
    monkeypatch.setattr(numerics.chain, "normalizer", lambda S, b: right(S, b) * 1.01)
    identities = [t for t in chain_m0_y.check(SMALL) if t.title.startswith("Exact identities")]
    assert len(identities) == 1 and not identities[0].passed


@pytest.mark.slow
def test_wrong_norm_of_d_minus_one_fails(monkeypatch):
    """30 % off: with few draws the z is read on the t scale, so this needs 8 of them."""
    right = chain_y_yf.norm_squared
    monkeypatch.setattr(chain_y_yf, "norm_squared", lambda: right() * sp.Rational(13, 10))
    assert not passed(chain_y_yf.check(Params(sizes=(200, 400, 800), draws=8)))


@pytest.mark.slow
def test_wrong_centring_fails(monkeypatch, own_draws):
    right = numerics.chain.c_of_K
    monkeypatch.setattr(numerics.chain, "c_of_K", lambda rho, b: right(rho, b) * 1.25)
    failed = [row for t in chain_yf_yq.check(SMALL) for row, v in zip(t.rows, t.verdicts)
              if v is False]
    assert any("projection on c" in str(row[0]) for row in failed)


@pytest.mark.slow
def test_wrong_conditional_covariance_fails(monkeypatch, own_draws):
    monkeypatch.setattr(numerics.measure, "sigma_f", lm.sigma_G)  # the linear one instead
    z = [t for t in chain_yq_ylinq.check(SMALL) if t.title.startswith("Given K the centred")]
    assert len(z) == 1 and not z[0].passed


@pytest.mark.slow
def test_wrong_sigma_f_formula_fails_quadrature(monkeypatch):
    right = lm.sigma_f_expr
    monkeypatch.setattr(lm, "sigma_f_expr", lambda: right() * sp.Rational(101, 100))
    assert not chain_yq_ylinq.sigma_table(SMALL).passed


@pytest.mark.slow
def test_wrong_spike_fails(monkeypatch):
    """s doubled where both routes of the operator-norm limit read it: they still agree, and
    the samples reject it."""
    right = theory.spike.strength
    monkeypatch.setattr(theory.spike, "strength", lambda: 2 * right())
    tables = chain_ylinq_ylinf.check(SMALL)
    assert chain_ylinq_ylinf.routes_table(SMALL).passed and not passed(tables)


@pytest.mark.slow
def test_issue_27_rank_one_operator_limit_fails(monkeypatch):
    """The old limit √(θ₁ + s) − √θ₁ (Σ_G taken as scalar along u), given to both routes: a
    rate row of the distance to it passed at the defaults, since that distance still shrank;
    the value fitted to ell -> inf rejects it (0.107 against 0.181 at beta = 0.5, y = 4)."""
    def rank_one(theta1, theta2, ratio, s):
        value = (theta1 + s) ** 0.5 - theta1 ** 0.5
        return {route: value for route in numerics.spike_norm.ROUTES}
    monkeypatch.setattr(chain_ylinq_ylinf, "_routes", rank_one)
    params = Params(beta=0.5, y=4, sizes=(250, 500, 1000), draws=3)
    values = [t for t in chain_ylinq_ylinf.check(params) if t.title.startswith("The spike and")]
    spike_row, alone, operator = values[0].verdicts
    assert spike_row is True and alone is False and operator is False


@pytest.fixture
def fresh_routes():
    """The law's routes, cached by (beta, y), are computed from the injected moments and
    forgotten after them (else a later test at beta = 1, y = 1 would read them)."""
    limit_law.routes.cache_clear()
    yield
    limit_law.routes.cache_clear()


@pytest.mark.slow
def test_wrong_limit_moments_fail(monkeypatch, fresh_routes):
    monkeypatch.setattr(ll, "limit_moments",
                        lambda K, t1, t2, y: ll.mp_surrogate_moments(K, t1))  # Marchenko–Pastur
    assert not passed(limit_law.check(SMALL))


@pytest.mark.slow
def test_marchenko_pastur_samples_are_not_separated(monkeypatch, own_draws):
    right = numerics.measure.score_models

    def surrogate_everywhere(scores, b):
        ell = scores.S.shape[0]
        noise = np.random.default_rng(scores.S[0, :4].view(np.uint64))   # a stream per draw
        for key, M in right(scores, b):
            if key == "M0":
                M = np.sqrt(np.expm1(b * b)) * noise.standard_normal((ell, ell)) / np.sqrt(ell)
            yield key, M

    def surrogate_law_draw(ell, d, b, seed, draw, stream="law"):
        rng = numerics.sampling.draw_rng(seed, stream, ell, draw)
        Z = np.sqrt(np.expm1(b * b)) * rng.standard_normal((ell, ell)) / np.sqrt(ell)
        return numerics.law_draws.LawDraw(ell, numerics.spectra.squared_singular_values(Z),
                                          1.0, 1.0)
    monkeypatch.setattr(numerics.measure, "score_models", surrogate_everywhere)
    monkeypatch.setattr(ledger_draws, "measure_law_draw", surrogate_law_draw)
    assert not passed(not_marchenko_pastur.check(SMALL))


@pytest.mark.slow
def test_wrong_frobenius_limit_fails(monkeypatch):
    right = perron.frobenius_limit
    monkeypatch.setattr(perron, "frobenius_limit", lambda: right() + sp.Rational(1, 10))
    assert not passed(perron.check(SMALL))


@pytest.fixture
def fresh_outlier_theory():
    """The outlier theory's caches (and the regimes' that read it) hold no injected values."""
    right = th.jump_stieltjes            # the cached original, whatever the test patches
    right.cache_clear()
    rg.cache_clear()
    yield
    right.cache_clear()
    rg.cache_clear()


@pytest.mark.slow
def test_a_wrong_jump_law_moves_the_outliers_off_their_locations(monkeypatch,
                                                                 fresh_outlier_theory):
    """theta2 halved in the jump law's Stieltjes transform, which the edge, a_c, lambda(a) and
    the conditional location all read: the outliers sit 8-14% above it (8 draws, where 26
    outliers are judged)."""
    right = th.jump_stieltjes()
    monkeypatch.setattr(th, "jump_stieltjes",
                        lambda: right.subs(th.theta2_s, th.theta2_s / 2))
    params = Params(sizes=(200, 400, 800), draws=8)
    assert not outliers.location_table(ledger_draws.chain_sweep(params), params,
                                       float(th.edge_point(1.0, 1.0)[1])).passed


def test_memory_guard_refuses_before_allocating():
    with pytest.raises(ValueError, match="sizes: ell=1000000 needs"):
        numerics.measure.require_memory(10**6)
