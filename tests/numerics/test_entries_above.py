"""Entries above a level: the expected count and the partners in a row or column, against
sampled scores at a small d_qk (where long queries and keys cluster them)."""

import mpmath as mp
import numpy as np
import pytest

from attnge.numerics import outliers


def test_partners_per_entry_match_sampled_scores():
    ell, d, beta, a = 300, 10, 1.5, 3.0
    tau = (np.log(1 + a * np.sqrt(ell)) + beta**2 / 2) / beta
    rng = np.random.default_rng(5)
    counts, partners = [], []
    for _ in range(20):
        Q, K = rng.standard_normal((ell, d)), rng.standard_normal((ell, d))
        above = (Q @ K.T) / np.sqrt(d) > tau
        rows, cols = above.sum(axis=1), above.sum(axis=0)
        i, j = np.nonzero(above)
        counts.append(above.sum())
        partners += list(rows[i] - 1 + cols[j] - 1)
    expected = outliers.expected_entries_above(a, ell, d, beta)
    assert np.mean(counts) == pytest.approx(expected, rel=0.1)
    predicted = outliers.partners_per_entry(a, ell, d, beta)
    independent = 2 * (ell - 1) * expected / ell**2
    assert predicted > 3 * independent                # the clustering is real at d = 10
    assert np.mean(partners) == pytest.approx(predicted, rel=0.2)


def _dense_mpmath(at, d, power, dps=20):
    """E_v Φ̄(at/√v)^power by mpmath quadrature in v on pieces of width sd/2 over ±30 sd
    about the integrand's mode (found here on its own, by a golden-section search in mpmath):
    the definition, with no step of ``mixture_tail``'s own."""
    with mp.workdps(dps):
        k = mp.mpf(d) / 2
        const = k * mp.log(k) - mp.loggamma(k)

        def f(v):
            return (mp.erfc(at / mp.sqrt(2 * v)) / 2) ** power * mp.exp(
                const + (k - 1) * mp.log(v) - k * v)

        lo, hi = mp.mpf(-30), mp.mpf(30)                 # golden section on log v
        ratio = (mp.sqrt(5) - 1) / 2
        for _ in range(120):
            a, b = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
            if mp.log(f(mp.e**a)) + a > mp.log(f(mp.e**b)) + b:
                hi = b
            else:
                lo = a
        mode = mp.e**lo
        sd = mode * (mp.sqrt(mp.mpf(2) / d) + mp.mpf(1) / (1 + at * at))
        points = sorted({mp.mpf(0), *(max(mode + j * sd / 2, mp.mpf(0)) for j in range(-60, 61))})
        return mp.quad(f, [*points, mp.inf])


@pytest.mark.filterwarnings("error")                     # quad's roundoff warning included
@pytest.mark.parametrize("d", [3, 12, 64, 1600, 25600, 10**7])
@pytest.mark.parametrize("at", [2.0, 25.0])
def test_mixture_tail_against_dense_quadrature(d, at):
    for power in (1, 2):
        expected = _dense_mpmath(at, d, power)
        assert outliers.mixture_tail(at, d, power) == pytest.approx(float(expected), rel=1e-9)


def test_deep_tails_keep_the_mass_that_long_queries_carry():
    """At τ = 25 and d_qk = 12 the tail sits at v ≈ 4, far from the grid about v = 1 of the
    former mpmath route, which gave 1.196e-32 against 1.953e-32."""
    assert outliers.score_tail(25.0, 12) == pytest.approx(1.952887e-32, rel=1e-6)
    assert outliers.mixture_tail(0.0, 7) == pytest.approx(0.5, rel=1e-13)


@pytest.mark.parametrize("tau", [0.5, 3.0, 9.0])
def test_one_dimensional_scores_by_the_query_integral(tau):
    """d_qk = 1 (a Gamma density singular at v = 0): S = qk, so P(S > τ) = 2∫₀^∞ φ(x)Φ̄(τ/x)dx,
    an integral over the query instead of over v."""
    from scipy import integrate, stats
    direct = 2 * integrate.quad(lambda x: stats.norm.pdf(x) * stats.norm.sf(tau / x), 0, np.inf,
                                epsabs=0, epsrel=1e-12, limit=200)[0]
    assert outliers.score_tail(tau, 1) == pytest.approx(direct, rel=1e-8)
