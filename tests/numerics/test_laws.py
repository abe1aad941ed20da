"""Law objects: every quantity against a second route (quadrature of the density, the other
edge routes, the exact atoms), and the scipy.stats conventions."""

import mpmath
import numpy as np
import pytest
import scipy.stats
import sympy as sp

from attnge.numerics import limit_density as ld
from attnge.numerics import multi_head_law as mhl
from attnge.numerics.laws import Law, law
from attnge.theory.laws import describe

# one head with a gap (y = 10), one head on one interval, an output law with an atom at 0,
# tied keys and values, h heads, and the surrogate
CASES = {
    "nu-gap": dict(beta=1, y=10),
    "nu": dict(beta=1, y=2),
    "output-atom": dict(beta=1, y=2, heads=4, kind="output", gamma_o="1/2"),
    "values-kv": dict(beta="1/2", y=1, heads=2, kind="values", sharing="kv"),
    "heads": dict(beta=1, y=2, heads=4),
    "mp": dict(beta=1, kind="marchenko-pastur"),
    "output-steep": dict(beta=1, y=2, heads=2, kind="output", gamma_o=1),   # x^(-2/3) at 0
}


@pytest.fixture(scope="module")
def laws():
    return {name: law(**kw) for name, kw in CASES.items()}


def _density(nu: Law, x):
    d = nu.description
    if d.single:
        return ld.density(x, d.theta1, d.theta2, d.y, dps=20)
    return mhl.density(x, d.layered(), dps=20)


def _quad_cdf(nu: Law, x: float):
    """F(x) by mpmath quadrature of the density (tanh-sinh, split at the support's ends; an
    interval that starts at 0 in t = x^(1/3), which tames a hard edge x^(-1/2) or x^(-2/3):
    the mass below x = 1e-36 it leaves out is at most 1e-11)."""
    total = mpmath.mpf(nu.support().atoms[0].mass) if nu.support().atoms else mpmath.mpf(0)
    with mpmath.workdps(20):
        for lo, hi in nu.support().intervals:
            if x <= lo:
                continue
            top = min(x, hi)
            if lo == 0:
                total += mpmath.quad(lambda t: 3 * t * t * _density(nu, t**3),
                                     [mpmath.mpf("1e-12"), mpmath.cbrt(top)])
            else:
                total += mpmath.quad(lambda t: _density(nu, t), [lo, top])
    return total


@pytest.mark.slow
@pytest.mark.parametrize("name", ["nu-gap", "output-atom", "output-steep"])
def test_cdf_against_quadrature_of_the_density(laws, name):
    nu = laws[name]
    xs = [nu.edge * f for f in (0.05, 0.77)]
    got = nu.cdf(xs)
    for x, value in zip(xs, got):
        assert abs(value - _quad_cdf(nu, x)) < 1e-10, (x, value)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CASES))
def test_cdf_and_ppf_invert_each_other_and_the_atom_is_the_missing_mass(laws, name):
    nu = laws[name]
    atom = nu.support().atoms[0].mass if nu.support().atoms else 0.0
    # the atom's exact rule against one minus the integrated density (a second route)
    assert abs(sum(piece[-1] for piece in nu._pieces) - (1 - atom)) < 1e-10
    qs = np.linspace(atom + 1e-3, 1 - 1e-3, 25)
    assert np.abs(nu.cdf(nu.ppf(qs)) - qs).max() < 1e-10
    xs = np.linspace(*nu.support().intervals[-1], 9)[1:-1]
    assert np.abs(nu.ppf(nu.cdf(xs)) - xs).max() < 1e-9 * nu.edge


@pytest.mark.slow
def test_a_hard_edge_steeper_than_mp_gets_its_own_substitution(laws):
    """The output law at gamma's of one: f ~ x^(-2/3) at 0 (three MP_1 factors), k = 3."""
    nu = laws["output-steep"]
    xs = np.array([1e-8, 1e-6])
    assert np.allclose(nu.pdf(xs) * xs ** (2 / 3), nu.pdf(xs[0]) * xs[0] ** (2 / 3), rtol=0.02)
    assert [piece[2] for piece in nu._pieces] == [3]
    assert [piece[2] for piece in laws["nu"]._pieces] == [2]


@pytest.mark.slow
def test_the_conventions_of_scipy_stats(laws):
    nu = laws["output-atom"]
    assert nu.support().atoms[0].location == 0.0 and nu.support().atoms[0].mass == 0.5
    assert nu.cdf(-1.0) == 0.0 and nu.cdf(0.0) == 0.5 and nu.cdf(2 * nu.edge) == 1.0
    assert nu.pdf(-1.0) == 0.0 and nu.pdf(0.0) == 0.0 and nu.pdf(1.01 * nu.edge) == 0.0
    assert np.isnan(nu.ppf([-0.1, 1.1])).all() and nu.ppf(0.3) == 0.0
    assert nu.ppf(1.0) == pytest.approx(nu.edge)
    grid = np.linspace(0.1, 8, 6).reshape(2, 3)
    for f in (nu.pdf, nu.cdf):
        assert f(grid).shape == (2, 3)
    assert isinstance(nu.pdf(1.0), float)
    gap = laws["nu-gap"].support().intervals
    assert len(gap) == 2 and laws["nu-gap"].pdf((gap[0][1] + gap[1][0]) / 2) == 0.0


def test_the_surrogate_is_theta1_times_mp1(laws):
    nu, t1 = laws["mp"], float(sp.E - 1)
    xs = np.linspace(0.1, 4 * t1 - 0.1, 7)
    closed = np.sqrt(xs * (4 * t1 - xs)) / (2 * np.pi * t1 * xs)
    assert np.allclose(nu.pdf(xs), closed, rtol=1e-13)
    assert nu.edge == pytest.approx(4 * t1, rel=1e-15)
    assert nu.moment(3, exact=True) == sp.expand(5 * (sp.E - 1) ** 3)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["nu", "heads", "output-atom"])
def test_moments_against_quadrature_of_the_density(laws, name):
    nu = laws[name]
    d = nu.description
    if d.single:
        quad = ld.density_moments([1, 2, 3], d.theta1, d.theta2, d.y, dps=15)
    else:
        quad = mhl.density_moments([1, 2, 3], d.layered(), dps=15)
    for k, value in zip((1, 2, 3), quad):
        assert nu.moment(k) == pytest.approx(float(value), rel=1e-10)
    assert nu.mean() == nu.moment(1)
    assert nu.var() == pytest.approx(nu.moment(2) - nu.moment(1) ** 2, rel=1e-12)


def test_edges_against_their_second_routes(laws):
    nu = laws["nu"]
    d = nu.description
    assert float(mhl.right_edge(d.layered(), dps=20)) == pytest.approx(nu.edge, rel=1e-14)
    assert float(ld.support(d.theta1, d.theta2, d.y, dps=20)[-1][1]) == \
        pytest.approx(nu.edge, rel=1e-14)
    heads = laws["heads"]
    assert float(mhl.polynomial_edge(heads.description.layered(), dps=20)) == \
        pytest.approx(heads.edge, rel=1e-12)


@pytest.mark.slow
def test_stieltjes_against_quadrature(laws):
    nu = laws["heads"]
    z = np.array([[1 + 1j, 3 + 0.5j]])
    g = nu.stieltjes(z)
    assert g.shape == (1, 2)
    lo, hi = nu.support().intervals[0]
    with mpmath.workdps(20):
        for zz, gg in zip(z.ravel(), g.ravel()):
            ref = mpmath.quad(lambda t: _density(nu, t) / (t - zz), [lo, hi])
            assert abs(gg - complex(ref)) < 1e-10
    with pytest.raises(ValueError, match="z must"):
        nu.stieltjes(1.0)


def test_rvs_follows_the_law_and_is_reproducible(laws):
    nu = laws["output-atom"]
    draws = nu.rvs(4000, random_state=5)
    assert np.array_equal(draws, nu.rvs(4000, random_state=np.random.default_rng(5)))
    assert abs((draws == 0).mean() - 0.5) < 4 * np.sqrt(0.25 / 4000)
    positive = draws[draws > 0]
    conditional = lambda x: (nu.cdf(x) - 0.5) / 0.5  # noqa: E731
    assert scipy.stats.kstest(positive, conditional).pvalue > 1e-3
    assert np.ndim(nu.rvs(random_state=1)) == 0


def test_natural_and_theta_parameters_describe_one_law():
    by_beta = describe(beta=0.5, y=2)
    by_theta = describe(theta1=sp.exp(sp.Rational(1, 4)) - 1, theta2="1/4", gamma_k="1/2")
    assert (by_beta.theta1, by_beta.theta2, by_beta.gamma_k) == \
        (by_theta.theta1, by_theta.theta2, by_theta.gamma_k)
    assert describe(beta="0.5", y=2) == by_beta and describe(beta=sp.Rational(1, 2), y=2) == by_beta
    assert describe(beta=1, y=2, heads=4).gamma_k == 2


@pytest.mark.parametrize("kw, name", [
    (dict(beta=0, y=1), "beta"), (dict(beta=-1, y=1), "beta"), (dict(beta=1, y=0), "y"),
    (dict(beta=1), "y"), (dict(beta=1, y=1, theta1=1, theta2=0), "beta"),
    (dict(theta1=1, theta2=2, y=1), "theta2"), (dict(beta=1, y=1, heads=0), "heads"),
    (dict(beta=1, y=1, heads=1.5), "heads"), (dict(beta=1, y=1, kind="x"), "kind"),
    (dict(beta=1, y=1, sharing="x"), "sharing"), (dict(beta="a", y=1), "beta"),
    (dict(beta=float("nan"), y=1), "beta"), (dict(beta=1, y=1, gamma_o=1), "gamma_o"),
    (dict(beta=1, y=1, kind="values", gamma_v=2, sharing="kv"), "gamma_v"),
])
def test_bad_parameters_are_named(kw, name):
    with pytest.raises(ValueError, match=f"^{name}"):
        law(**kw)


def test_plot_draws_every_interval_and_the_atoms(laws):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ax = laws["output-atom"].plot(points=40)
    assert ax.get_xlabel() == "$x$" and "density" in ax.get_ylabel()
    assert len(ax.get_lines()) == 2            # the interval and the atom's stem
    plt.close("all")
    fig, ax = plt.subplots()
    assert laws["nu-gap"].plot(ax=ax, points=40) is ax and len(ax.get_lines()) == 2
    plt.close(fig)
