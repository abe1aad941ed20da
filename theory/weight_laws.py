r"""Laws of the query and key weights other than the Gaussian: the normalizer they give (issue 30).

A weight law w is symmetric with unit variance; its fourth moment :math:`\mu_4 = 3 + \kappa_4`
carries its fourth cumulant. When Q and K are sampled directly with i.i.d. entries of law w
(the law of XW^Q, XW^K for inputs X whose rows are coordinate vectors), the terms
:math:`X_{ij} = e^{\beta S_{ij} - \beta^2/2}` of the normalizer D_ii = (1/ℓ) Σ_j X_ij are, as
for Gaussian weights (``theory.normalizer``), i.i.d. over j given q_i, and factor over the
d_qk coordinates. With :math:`t = \beta/\sqrt{d_{qk}}`, M the moment generating function of w,

.. math:: a(t) = E\,e^{t w w'} = E\,M(tw),\qquad b(t) = E\,M(tw)^2,

    \mu = E X = e^{-\beta^2/2} a(t)^{d_{qk}},\quad m_2 = E X^2 = e^{-\beta^2} a(2t)^{d_{qk}},
    \quad m_{11} = E X_{ij}X_{ij'} = e^{-\beta^2} b(t)^{d_{qk}},

    E D_{ii} = \mu,\qquad \operatorname{Var} D_{ii} = m_2/\ell + (1 - 1/\ell)\,m_{11} - \mu^2,

exactly at finite ℓ and d_qk. For the Gaussian, a(t) = (1 − t²)^{−1/2} and these are
``theory.normalizer``'s. Expanded in ε = 1/d_qk (the cumulants of ww′ are μ₄² − 3 at order
four),

.. math:: E D_{ii} = 1 + \frac{\beta^4(\mu_4^2 - 3)}{24\,d_{qk}} + O(d_{qk}^{-2}),

so the law enters through κ₄ alone at first order: β⁴/(4d_qk) for the Gaussian (μ₄ = 3),
−β⁴/(12 d_qk) for Rademacher signs (μ₄ = 1), β⁴/(100 d_qk) for the uniform law (μ₄ = 9/5).
With Haar inputs X (ℓ×d, orthonormal rows) instead, each entry of Q = XW^Q is a sum of d
weights with coefficients x_ik, whose fourth cumulant is :math:`\kappa_4\sum_k x_{ik}^4`, of
mean 3κ₄/(d + 2): the law's effect falls to O(1/(d·d_qk)), below the Gaussian's own second
order when d ≳ d_qk. The limit law of the attention does not depend on w (universality of
the scores' central limit theorem; derived, not proved here).

Two routes: :func:`normalizer_moments` (a(t) and b(t) by SymPy's integrals where it finds a
closed form, else by mpmath quadrature of the one-dimensional integrals) and
:func:`mean_expansion` (from the law's moments alone, no integral of M). Samples judge both
(``attnge variants``).

Examples
--------
>>> LAWS["rademacher"].kappa4, LAWS["uniform"].kappa4
(-2, -6/5)
>>> mean_expansion(LAWS["rademacher"])
-beta**4*epsilon/12 + 1
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import mpmath
import numpy as np
import sympy as sp

from attnge.theory.inputs import integer
from attnge.theory.symbols import beta, eps

w = sp.Symbol("w", real=True)
"""A weight, the variable of a law's density."""
_s = sp.Symbol("s", real=True)
_t = sp.Symbol("t", positive=True)
TRUNCATION = 2
"""The truncated normal is N(0, 1) conditioned on |z| ≤ 2 (TensorFlow's truncated normal),
then rescaled to unit variance."""


@dataclass(frozen=True)
class WeightLaw:
    r"""A symmetric law of unit variance for the entries of W^Q, W^K (or of Q, K).

    Parameters
    ----------
    name : str
    density : sympy.Expr or None
        The density of z = ``scale``·w, in the symbol ``w``, on ``[-edge, edge]``; None for
        Rademacher signs (atoms at ±1).
    edge : sympy.Expr
        The end of z's support (∞ for the Gaussian).
    closed : bool
        Whether SymPy gives a(t), b(t) in closed form (for the truncated normal it does
        not: an erf inside the integral).
    note : str
        Where the law is used.
    scale : sympy.Expr
        z's standard deviation (the truncated normal's; 1 for the others).
    """

    name: str
    density: sp.Expr | None
    edge: sp.Expr
    closed: bool
    note: str
    scale: sp.Expr = sp.Integer(1)

    def expect(self, expr: sp.Expr) -> sp.Expr:
        """E expr(w), exactly (SymPy's integral over the support, or the two atoms)."""
        if self.density is None:
            return sp.simplify((expr.subs(w, 1) + expr.subs(w, -1)) / 2)
        return sp.simplify(sp.integrate(expr.subs(w, w / self.scale) * self.density,
                                        (w, -self.edge, self.edge), conds="none"))

    @property
    def kappa4(self) -> sp.Expr:
        """The fourth cumulant κ₄ = E w⁴ − 3 (0 for the Gaussian)."""
        return moment(self, 4) - 3

    def sample(self, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
        """i.i.d. entries of the law (float64)."""
        if self.name == "gaussian":
            return rng.standard_normal(shape)
        if self.name == "uniform":
            return rng.uniform(-np.sqrt(3.0), np.sqrt(3.0), shape)
        if self.name == "rademacher":
            return 2.0 * rng.integers(0, 2, shape) - 1.0
        from scipy.stats import truncnorm  # the truncated normal, by inversion
        scale = float(truncated_sd())
        return truncnorm.rvs(-TRUNCATION, TRUNCATION, size=shape, random_state=rng) / scale


@cache
def truncated_sd() -> sp.Expr:
    r"""The standard deviation of N(0, 1) conditioned on |z| ≤ c = 2, by parts:

    .. math:: \sigma^2 = \frac{I_2}{I_0} = 1 - \frac{2c\,e^{-c^2/2}}{I_0},
              \qquad I_k = \int_{-c}^{c} z^k e^{-z^2/2}\,dz,\quad
              I_0 = \sqrt{2\pi}\operatorname{erf}(c/\sqrt2)

    (SymPy's integrals give the same expression, ``tests/theory/test_weight_laws.py``; they
    take 2 s, which every import of this module paid)."""
    c = sp.Integer(TRUNCATION)
    return sp.sqrt(1 - 2 * c * sp.exp(-c**2 / 2) / (sp.sqrt(2 * sp.pi) * sp.erf(c / sp.sqrt(2))))


LAWS = {
    "gaussian": WeightLaw("gaussian", sp.exp(-w**2 / 2) / sp.sqrt(2 * sp.pi), sp.oo, True,
                          "the theorem's law"),
    "uniform": WeightLaw("uniform", 1 / (2 * sp.sqrt(3)), sp.sqrt(3), True,
                         "PyTorch's nn.Linear default (Kaiming uniform), rescaled"),
    "rademacher": WeightLaw("rademacher", None, sp.Integer(1), True, "random signs"),
    "truncated-normal": WeightLaw("truncated-normal", sp.exp(-w**2 / 2) / (
        sp.sqrt(2 * sp.pi) * sp.erf(TRUNCATION / sp.sqrt(2))), sp.Integer(TRUNCATION), False,
        "TensorFlow's truncated normal (±2σ), rescaled", scale=truncated_sd()),
}
"""The named weight laws, each of unit variance."""


def law_named(name: object) -> WeightLaw:
    """The law called ``name`` (a ``WeightLaw`` passes through); ValueError naming
    ``weights``."""
    if isinstance(name, WeightLaw):
        return name
    if name not in LAWS:
        raise ValueError(f"weights must be one of {', '.join(LAWS)} (got {name!r})")
    return LAWS[name]


@cache
def moment(law: WeightLaw, order: int) -> sp.Expr:
    r"""E w^order, exactly. For the truncated normal by parts: with
    :math:`I_k = \int_{-c}^{c} z^k e^{-z^2/2}dz`, :math:`I_k = (k-1)I_{k-2} - 2c^{k-1}e^{-c^2/2}`
    (SymPy's integral of z⁶e^{−z²/2} and its simplification take 12 s)."""
    order = integer(order, "order", 0)
    if law.density is None or law.edge == sp.oo or not law.density.has(sp.exp):
        return law.expect(w ** order)
    if order % 2:
        return sp.Integer(0)
    c = law.edge
    integrals = [sp.sqrt(2 * sp.pi) * sp.erf(c / sp.sqrt(2))]
    for k in range(2, order + 1, 2):
        integrals.append((k - 1) * integrals[-1] - 2 * c ** (k - 1) * sp.exp(-c**2 / 2))
    return sp.simplify(integrals[-1] / integrals[0] / law.scale**order)


@cache
def mgf(law: WeightLaw) -> sp.Expr:
    r"""M(s) = E e^{sw} in closed form: Gaussian e^{s²/2}, uniform sinh(√3 s)/(√3 s),
    Rademacher cosh s; for the truncated normal, with c = s/scale and the square completed,
    :math:`e^{c^2/2}\int_{-2}^{2}\rho(z - c)\,dz`, a difference of erf's (SymPy finds no
    integral of the uncompleted form)."""
    if law.density is None or law.edge == sp.oo or not law.density.has(sp.exp):
        return law.expect(sp.exp(_s * w))
    c = _s / law.scale
    shifted = sp.integrate(law.density.subs(w, w - c), (w, -law.edge, law.edge))
    return sp.simplify(sp.exp(c**2 / 2) * shifted)


def _hyperbolic(expr: sp.Expr) -> sp.Expr:
    """M(tw)² with its squares halved (sinh²a = (cosh 2a − 1)/2, cosh²a = (cosh 2a + 1)/2):
    one fraction whose integral SymPy finds (with sinh² it finds none)."""
    halve = {sp.sinh: -1, sp.cosh: 1}
    return sp.together(sp.expand(expr).replace(
        lambda e: e.is_Pow and e.exp == 2 and type(e.base) in halve,
        lambda e: (sp.cosh(2 * e.base.args[0]) + halve[type(e.base)]) / 2))


@cache
def closed_ab(law: WeightLaw) -> tuple[sp.Expr, sp.Expr] | None:
    """(a(t), b(t)) as SymPy expressions in ``t``, or None where SymPy gives no closed form."""
    if not law.closed:
        return None
    M = mgf(law).subs(_s, _t * w)
    a = law.expect(M)
    b = law.expect(_hyperbolic(M**2))
    if a.has(sp.Integral) or b.has(sp.Integral):
        return None
    # SymPy's Gaussian integrals come as Piecewise in t; the branch for small t is the one
    return tuple(e.args[-1][0] if isinstance(e, sp.Piecewise) else e for e in (a, b))


def _ab_numeric(law: WeightLaw, t: mpmath.mpf) -> tuple[mpmath.mpf, mpmath.mpf]:
    """(a(t), b(t)) by mpmath quadrature of E M(tw) and E M(tw)² (M in closed form)."""
    M = sp.lambdify(_s, mgf(law), "mpmath")
    if law.density is None:
        return (M(t) + M(-t)) / 2, (M(t) ** 2 + M(-t) ** 2) / 2
    density = sp.lambdify(w, law.density, "mpmath")
    edge = mpmath.inf if law.edge == sp.oo else mpmath.mpf(sp.N(law.edge, mpmath.mp.dps))
    scale = mpmath.mpf(sp.N(law.scale, mpmath.mp.dps))

    def expect(h):
        return mpmath.quad(lambda z: h(z / scale) * density(z), [-edge, 0, edge])

    return expect(lambda u: M(t * u)), expect(lambda u: M(t * u) ** 2)


def normalizer_moments(law: object, beta_value: object, ell: int, d_qk: int,
                       dps: int = 30, route: str = "sympy") -> dict[str, mpmath.mpf]:
    r"""E D_ii and Var D_ii for Q, K with i.i.d. entries of ``law`` (module docstring),
    exactly at finite ℓ and d_qk.

    Parameters
    ----------
    law : str or WeightLaw
    beta_value : number
    ell, d_qk : int
    dps : int
        Working precision of the evaluation.
    route : {"sympy", "quadrature"}
        a(t), b(t) from SymPy's closed forms (where the law has them; otherwise quadrature),
        or by mpmath quadrature always.

    Returns
    -------
    dict
        ``"E D_ii"``, ``"Var D_ii"`` and ``"Cov"`` = Cov(D_ii, D_i′i′) (mpmath numbers; rows
        share the keys: (m₁₁ − μ²)/ℓ), ``"route"`` as taken.

    Notes
    -----
    .. math:: E D_{ii} = e^{-\beta^2/2}a(t)^{d_{qk}},\ \operatorname{Var} D_{ii} =
              \frac{e^{-\beta^2}a(2t)^{d_{qk}}}{\ell} + \Big(1 - \frac1\ell\Big)
              e^{-\beta^2}b(t)^{d_{qk}} - (E D_{ii})^2,\quad t = \beta/\sqrt{d_{qk}}.
    """
    chosen = law_named(law)
    ell, d_qk = integer(ell, "ell", 1), integer(d_qk, "d_qk", 1)
    if route not in ("sympy", "quadrature"):
        raise ValueError(f"route must be sympy or quadrature (got {route!r})")
    closed = closed_ab(chosen) if route == "sympy" else None
    with mpmath.workdps(integer(dps, "dps", 5) + 10):
        b_ = mpmath.mpf(sp.Float(sp.sympify(beta_value), mpmath.mp.dps))
        t = b_ / mpmath.sqrt(d_qk)
        if closed is not None:
            a_f, b_f = (sp.lambdify(_t, e, "mpmath") for e in closed)
            (a1, bb), a2 = (a_f(t), b_f(t)), a_f(2 * t)
        else:
            a1, bb = _ab_numeric(chosen, t)
            a2 = _ab_numeric(chosen, 2 * t)[0]
        mu = mpmath.exp(-b_**2 / 2) * a1**d_qk
        cross = mpmath.exp(-b_**2) * bb**d_qk                 # m_11
        var = mpmath.exp(-b_**2) * a2**d_qk / ell + (1 - mpmath.mpf(1) / ell) * cross - mu**2
        cov = (cross - mu**2) / ell
        taken = "sympy" if closed is not None else "quadrature"
    with mpmath.workdps(dps):
        return {"E D_ii": +mu, "Var D_ii": +var, "Cov": +cov, "route": taken}


def _power(series_in_u: sp.Expr, scale: int, shift: sp.Expr, order: int) -> sp.Expr:
    """exp(d_qk log X(scale²·β²ε) + shift) expanded in ε = 1/d_qk to ε^order, for a power
    series X(u) = 1 + O(u) given to enough terms."""
    u = sp.Symbol("u")
    log_x = sp.series(sp.log(series_in_u), u, 0, order + 2).removeO()
    exponent = sp.expand(log_x.subs(u, scale**2 * beta**2 * eps) / eps + shift)
    return sp.expand(sp.series(sp.exp(exponent), eps, 0, order + 1).removeO())


def _ab_series(law: WeightLaw, order: int) -> tuple[sp.Expr, sp.Expr]:
    """a(t) and b(t) as power series in u = t² from the law's even moments:
    a = Σ u^n μ_{2n}²/(2n)!,  b = Σ u^n μ_{2n} Σ_{k+l=n} μ_{2k}μ_{2l}/((2k)!(2l)!)."""
    u = sp.Symbol("u")
    # a transcendental moment (the truncated normal's, erf's and e^{-2}) as a 30-digit Float:
    # the series are exact in β and ε either way, and SymPy's series of the closed forms
    # take minutes
    mu = [m if m.is_Rational else sp.N(m, 30)
          for m in (moment(law, 2 * n) for n in range(order + 2))]
    a = sum(u**n * mu[n] ** 2 / sp.factorial(2 * n) for n in range(order + 2))
    b = sum(u**n * mu[n] * sum(mu[k] * mu[n - k] / (sp.factorial(2 * k)
                                                    * sp.factorial(2 * (n - k)))
                               for k in range(n + 1)) for n in range(order + 2))
    return a, b


@cache
def mean_expansion(law: object, order: int = 1) -> sp.Expr:
    r"""E D_ii expanded in ε = 1/d_qk to ε^order, from the law's even moments alone (30-digit
    Floats where they are not rational).

    Notes
    -----
    :math:`\log a(t) = \log \sum_k t^{2k}\mu_{2k}^2/(2k)!` (the moments of ww′), and
    :math:`E D_{ii} = \exp(d_{qk}\log a(\beta\sqrt\epsilon) - \beta^2/2)`; the first order is
    :math:`\beta^4(\mu_4^2 - 3)/24`.
    """
    chosen = law_named(law)
    order = integer(order, "order", 0, 3)
    a, _ = _ab_series(chosen, order)
    return _power(a, 1, -beta**2 / 2, order)


@cache
def variance_expansion(law: object, order: int = 1) -> sp.Expr:
    r"""Var D_ii expanded in ε = 1/d_qk to ε^order (exact in 1/ℓ), from the law's even
    moments alone.

    Notes
    -----
    .. math:: \operatorname{Var} D_{ii} = e^{-\beta^2}\Big(\frac{a(2t)^{d_{qk}}}{\ell} +
              \Big(1 - \frac1\ell\Big)b(t)^{d_{qk}}\Big) - e^{-\beta^2}a(t)^{2d_{qk}}

    each power expanded as in :func:`mean_expansion`; for the Gaussian this is
    ``theory.normalizer.expansion("Var D_ii")``.
    """
    chosen = law_named(law)
    order = integer(order, "order", 0, 3)
    a, b = _ab_series(chosen, order + 1)
    ell = sp.Symbol("ell", positive=True)
    two_t = _power(a, 2, -beta**2, order)
    cross = _power(b, 1, -beta**2, order)
    mean_sq = _power(a**2, 1, -beta**2, order)
    return sp.expand(two_t / ell + (1 - 1 / ell) * cross - mean_sq)
