"""Tests of theory.linear_model: symbolic c, Σ_f, Hadamard coefficients, Σ_G.

Independent routes: exact SymPy equality with the closed forms; mpmath quadrature of the
defining Gaussian integrals (1-D tanh-sinh, 2-D Gauss–Hermite product rule on the
symmetric square root of the covariance, not the Cholesky factor used by the
derivation) at 30 digits; a Monte Carlo covariance; the Hadamard series summed.
"""

from __future__ import annotations

import ast
import itertools
import pathlib

import mpmath as mp
import numpy as np
import pytest
import sympy as sp

from attnge.theory import linear_model as lm
from attnge.theory.linear_model import BETA, RHO_JJ, RHO_JK, RHO_KK

DPS = 30


@pytest.fixture(autouse=True)
def _restore_mpmath():
    prec, dps = mp.mp.prec, mp.mp.dps
    yield
    mp.mp.prec = prec
    mp.mp.dps = dps


# ----------------------------------------------------------------- exact expressions


def test_standard_normal_mgf_is_exp_half_u_squared():
    u = sp.Symbol("u", real=True)
    assert sp.simplify(lm.standard_normal_mgf() - sp.exp(u**2 / 2)) == 0


def test_gaussian_mgf_2d_closed_form():
    s, t = sp.Symbol("s", real=True), sp.Symbol("t", real=True)
    expected = sp.exp((RHO_JJ * s**2 + 2 * RHO_JK * s * t + RHO_KK * t**2) / 2)
    assert sp.simplify(lm.gaussian_mgf_2d() - expected) == 0


def test_c_expr_closed_form():
    expected = sp.exp(BETA**2 * (RHO_JJ - 1) / 2) - 1
    assert sp.simplify(lm.c_expr() - expected) == 0


def test_sigma_f_expr_closed_form():
    expected = sp.exp(BETA**2 * (RHO_JJ + RHO_KK) / 2 - BETA**2) * (sp.exp(BETA**2 * RHO_JK) - 1)
    assert sp.simplify(lm.sigma_f_expr() - expected) == 0


@pytest.mark.parametrize("k", [0, 1, 2, 3, 7])
def test_hadamard_coefficient_closed_form(k):
    scale = sp.exp(BETA**2 * (RHO_JJ - 1) / 2) * sp.exp(BETA**2 * (RHO_KK - 1) / 2)
    expected = 0 if k == 0 else BETA ** (2 * k) / sp.factorial(k) * scale
    assert sp.simplify(lm.hadamard_coefficient(k) - expected) == 0


def test_sigma_G_reads_theta_from_its_single_source():
    """Σ_G's θ₁, θ₂ are theory.exponential's, and Σ_f's own derivation (2-D MGF) agrees."""
    from attnge.theory import exponential as ex
    assert sp.simplify(lm.sigma_G_expr(True).subs(RHO_JJ, 1) - ex.theta1()) == 0
    assert sp.simplify(lm.sigma_G_expr(False) / RHO_JK - ex.theta2()) == 0
    assert sp.simplify(lm.hadamard_coefficient(1).subs({RHO_JJ: 1, RHO_KK: 1}) - ex.theta2()) == 0
    assert sp.simplify(lm.sigma_f_expr().subs({RHO_JJ: 1, RHO_KK: 1, RHO_JK: 1}) - ex.theta1()) == 0


def test_sigma_G_expr_entries():
    theta1, theta2 = sp.exp(BETA**2) - 1, BETA**2
    assert sp.simplify(lm.sigma_G_expr() - theta2 * RHO_JK) == 0
    assert sp.simplify(lm.sigma_G_expr(diagonal=True) - (theta2 * RHO_JJ + theta1 - theta2)) == 0


def test_sigma_G_is_first_order_sigma_f_at_unit_variance():
    """At ρ_jj = ρ_kk = 1: a_1 ρ_jk = θ₂ ρ_jk off the diagonal, Σ_f[j,j] = θ₁ on it."""
    unit = {RHO_JJ: 1, RHO_KK: 1}
    off = lm.hadamard_coefficient(1).subs(unit) * RHO_JK
    assert sp.simplify(off - lm.sigma_G_expr()) == 0
    diag = lm.sigma_f_expr().subs(unit).subs(RHO_JK, 1)
    assert sp.simplify(diag - lm.sigma_G_expr(diagonal=True).subs(RHO_JJ, 1)) == 0


# ----------------------------------------------------------------- mpmath quadrature


def _f(beta, x):
    return mp.expm1(beta * x - beta**2 / 2)


def _mean_f_quad(beta, var):
    """E f(x), x ~ N(0, var): 1-D tanh-sinh quadrature of the defining integral."""
    def dens(x):
        return mp.exp(-x * x / (2 * var)) / mp.sqrt(2 * mp.pi * var)
    return mp.quad(lambda x: _f(beta, x) * dens(x), [-mp.inf, 0, mp.inf])


def _cov_f_gauss_hermite(beta, a, b, c, n=48):
    """Cov(f(x), f(y)), (x, y) ~ N(0, [[a, c], [c, b]]): 2-D Gauss–Hermite product rule.

    (x, y) = R diag(√λ) (√2 t₁, √2 t₂) with the eigen-decomposition of the covariance,
    weight e^{−t₁² − t₂²}; f is entire, so the rule converges super-geometrically.
    """
    nodes, weights = mp.gauss_quadrature(n, "hermite")
    cov = mp.matrix([[a, c], [c, b]])
    lam, rot = mp.eighe(cov)
    root = [[rot[i, k] * mp.sqrt(max(lam[k], 0)) * mp.sqrt(2) for k in range(2)] for i in range(2)]
    joint = mp.mpf(0)
    mean_x = mp.mpf(0)
    mean_y = mp.mpf(0)
    for t1, w1 in zip(nodes, weights):
        for t2, w2 in zip(nodes, weights):
            x = root[0][0] * t1 + root[0][1] * t2
            y = root[1][0] * t1 + root[1][1] * t2
            fx, fy = _f(beta, x), _f(beta, y)
            w = w1 * w2
            joint += w * fx * fy
            mean_x += w * fx
            mean_y += w * fy
    return (joint - mean_x * mean_y / mp.pi) / mp.pi


def _sym_value(expr, **values):
    subs = {BETA: values["beta"], RHO_JJ: values.get("a", 1), RHO_KK: values.get("b", 1)}
    subs[RHO_JK] = values.get("c", 0)
    subs = {k: sp.Float(str(v), DPS + 10) for k, v in subs.items()}
    return mp.mpf(str(sp.N(expr.subs(subs), DPS + 5)))


@pytest.mark.parametrize(
    "beta, a", [("1.0", "1.0"), ("0.7", "1.3"), ("1.6", "0.85"), ("2.2", "1.1")]
)
def test_c_matches_quadrature(beta, a):
    with mp.workdps(DPS):
        beta_, a_ = mp.mpf(beta), mp.mpf(a)
        reference = _mean_f_quad(beta_, a_)
        value = _sym_value(lm.c_expr(), beta=beta, a=a)
        assert abs(value - reference) <= mp.mpf(10) ** -22 * max(1, abs(reference))


CASES_2D = [
    ("1.0", "1.0", "1.0", "0.3"),
    ("1.3", "0.9", "1.2", "0.4"),
    ("0.5", "1.1", "0.8", "-0.6"),
    ("1.7", "1.05", "0.95", "0.02"),
    ("1.2", "1.1", "1.1", "1.1"),  # the diagonal: degenerate covariance, x = y
]


@pytest.mark.parametrize("beta, a, b, c", CASES_2D)
def test_sigma_f_matches_2d_quadrature(beta, a, b, c):
    with mp.workdps(DPS):
        reference = _cov_f_gauss_hermite(mp.mpf(beta), mp.mpf(a), mp.mpf(b), mp.mpf(c))
        value = _sym_value(lm.sigma_f_expr(), beta=beta, a=a, b=b, c=c)
        assert abs(value - reference) <= mp.mpf(10) ** -22 * abs(reference)


def test_quadrature_detects_a_wrong_formula():
    """The reference separates Σ_f from the k ≤ 1 (linear) covariance: the check can fail."""
    with mp.workdps(DPS):
        reference = _cov_f_gauss_hermite(mp.mpf("1.3"), mp.mpf("0.9"), mp.mpf("1.2"), mp.mpf("0.4"))
        wrong = lm.hadamard_coefficient(1) * RHO_JK
        value = _sym_value(wrong, beta="1.3", a="0.9", b="1.2", c="0.4")
        assert abs(value - reference) > mp.mpf("1e-3")


def test_hadamard_series_sums_to_sigma_f():
    with mp.workdps(DPS):
        values = {"beta": "1.4", "a": "1.2", "b": "0.7", "c": "0.55"}
        total = mp.fsum(
            _sym_value(lm.hadamard_coefficient(k) * RHO_JK**k, **values) for k in range(1, 60)
        )
        assert abs(total - _sym_value(lm.sigma_f_expr(), **values)) < mp.mpf(10) ** -25


# ----------------------------------------------------------------- numeric helpers


def _rho(ell, d_qk, seed, unit_diagonal=False):
    K = np.random.default_rng(seed).standard_normal((ell, d_qk))
    if unit_diagonal:
        K *= np.sqrt(d_qk) / np.linalg.norm(K, axis=1, keepdims=True)
    return K @ K.T / d_qk


def test_numeric_helpers_equal_symbolic():
    rho = _rho(5, 3, 0)
    beta = 1.3
    sf, sg = lm.sigma_f(rho, beta), lm.sigma_G(rho, beta)
    c = lm.c_of_K(np.diagonal(rho), beta)
    for j in range(5):
        vj = float(rho[j, j])
        ref_c = float(lm.c_expr().subs({BETA: beta, RHO_JJ: vj}))
        assert c[j] == pytest.approx(ref_c, rel=1e-14, abs=1e-16)
        for k in range(5):
            subs = {BETA: beta, RHO_JJ: vj, RHO_KK: float(rho[k, k]), RHO_JK: float(rho[j, k])}
            assert sf[j, k] == pytest.approx(float(lm.sigma_f_expr().subs(subs)), rel=1e-13)
            g = lm.sigma_G_expr(diagonal=(j == k)).subs(subs)
            assert sg[j, k] == pytest.approx(float(g), rel=1e-13)


def test_sigma_f_monte_carlo():
    """Sampled rows N(0, ρ): the empirical covariance of f agrees within 5 standard errors."""
    rho = np.array([[1.2, 0.5, -0.3], [0.5, 0.8, 0.1], [-0.3, 0.1, 1.0]])
    beta, n = 0.9, 400_000
    rows = np.random.default_rng(7).standard_normal((n, 3)) @ np.linalg.cholesky(rho).T
    f = np.expm1(beta * rows - beta**2 / 2)
    centred = f - lm.c_of_K(np.diagonal(rho), beta)
    products = centred[:, :, None] * centred[:, None, :]
    mean, se = products.mean(axis=0), products.std(axis=0) / np.sqrt(n)
    assert np.all(np.abs(mean - lm.sigma_f(rho, beta)) < 5 * se)
    assert np.all(np.abs(centred.mean(axis=0)) < 5 * f.std(axis=0) / np.sqrt(n))


def test_sigma_f_symmetric_and_psd():
    rho = _rho(60, 20, 1)
    sf = lm.sigma_f(rho, 1.5)
    assert np.array_equal(sf, sf.T)
    lam = np.linalg.eigvalsh(sf)
    assert lam[0] > -1e-12 * lam[-1]


def test_sigma_G_equals_first_order_truncation_with_unit_diagonal():
    rho = _rho(40, 25, 2, unit_diagonal=True)
    for beta in (0.5, 1.0, 1.8):
        np.testing.assert_allclose(
            lm.sigma_f_truncated(rho, beta, 1), lm.sigma_G(rho, beta), rtol=1e-14, atol=1e-15
        )
        assert lm.sigma_G(rho, beta)[0, 0] == pytest.approx(np.expm1(beta**2), rel=1e-14)


def test_sigma_G_differs_from_truncation_off_unit_diagonal():
    rho = _rho(40, 25, 2)
    diff = np.abs(lm.sigma_f_truncated(rho, 1.0, 1) - lm.sigma_G(rho, 1.0)).max()
    assert diff > 1e-3


def test_truncation_exact_diagonal_converges_and_psd():
    rho = _rho(50, 20, 3)  # ℓ > d_qk: ρ is singular
    beta = 1.2
    full = lm.sigma_f(rho, beta)
    errors = []
    for k_max in range(6):
        trunc = lm.sigma_f_truncated(rho, beta, k_max)
        np.testing.assert_array_equal(np.diagonal(trunc), np.diagonal(full))
        lam = np.linalg.eigvalsh(trunc)
        assert lam[0] > -1e-12 * lam[-1]
        errors.append(np.abs(trunc - full).max())
    assert all(e2 < e1 for e1, e2 in itertools.pairwise(errors))
    np.testing.assert_allclose(lm.sigma_f_truncated(rho, beta, 40), full, rtol=0, atol=1e-13)


def test_c_of_K_unit_variance_is_zero_and_sign():
    c = lm.c_of_K(np.array([1.0, 1.5, 0.5]), 1.0)
    assert c[0] == 0.0 and c[1] > 0 > c[2]
    assert c[1] == pytest.approx(np.expm1(0.25), rel=1e-15)


# ----------------------------------------------------------------- errors and layering


@pytest.mark.parametrize("beta", [0.0, -1.0, np.nan, np.inf, "x", None])
def test_bad_beta(beta):
    with pytest.raises(ValueError, match="beta"):
        lm.sigma_f(np.eye(2), beta)
    with pytest.raises(ValueError, match="beta"):
        lm.c_of_K(np.ones(2), beta)


@pytest.mark.parametrize(
    "rho",
    [
        np.ones(3),
        np.ones((2, 3)),
        np.array([[1.0, 0.2], [0.3, 1.0]]),
        np.array([[1.0, 0.0], [0.0, 0.0]]),
        np.array([[np.nan, 0.0], [0.0, 1.0]]),
    ],
)
def test_bad_rho(rho):
    for fn in (lm.sigma_f, lm.sigma_G):
        with pytest.raises(ValueError, match="rho"):
            fn(rho, 1.0)


@pytest.mark.parametrize("rho_diag", [np.ones((2, 2)), np.array([1.0, -1.0]), np.array([])])
def test_bad_rho_diag(rho_diag):
    with pytest.raises(ValueError, match="rho_diag"):
        lm.c_of_K(rho_diag, 1.0)


@pytest.mark.parametrize("k_max", [-1, 1.5, True])
def test_bad_k_max(k_max):
    with pytest.raises(ValueError, match="k_max"):
        lm.sigma_f_truncated(np.eye(2), 1.0, k_max)
    if k_max != 1.5:
        with pytest.raises(ValueError, match="k must"):
            lm.hadamard_coefficient(k_max)


def test_theory_never_imports_numerics():
    tree = ast.parse(pathlib.Path(lm.__file__).read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            assert not any(a.name.split(".")[0] == "numerics" for a in node.names)
        if isinstance(node, ast.ImportFrom):
            assert (node.module or "").split(".")[0] != "numerics"
