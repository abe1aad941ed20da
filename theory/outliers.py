"""Outliers of √ℓA⊥: one large entry of the matrix makes one outlier (docs/math.md §4).

A matrix X whose squared singular values follow ν∞, plus a single entry a at (i, j)
(a rank-one perturbation a e_i e_jᵀ in generic position), has an outlier λ above the
right edge E when a > a_c (Benaych-Georges–Nadakuditi, square case):

    λ · m(λ)² = 1/a²,   m(z) = ∫ dν∞(x)/(x − z).

With the Stieltjes equation of ν∞ parametrised by s = −1/m > t_max,
λ = z(s) = s² g(s) with g(s) = ∫ dρ(t)/(s − t), the condition reads g(s) = 1/a², so

    λ(a) = s²/a²  where  g(s) = 1/a²,   a_c² = 1/g(s*),   E = s*² g(s*),

s* the minimum of s² g(s). ρ is the law of θ₁ − θ₂ + θ₂x, x ~ MP_y, so
g(s) = G_y((s − θ₁ + θ₂)/θ₂)/θ₂ with G_y the Stieltjes transform of MP_y, the root of
y w G² − (w + y − 1) G + 1 = 0 that behaves as 1/w at infinity. For θ₂ = 0 this is the
classical λ = (θ₁ + a²)²/a², a_c² = θ₁.

At finite d_qk the entry that makes an outlier is not in generic position: a large score
q_i·k_j/√d_qk comes with a long query or key, r = ‖q_i‖²/d_qk or c = ‖k_j‖²/d_qk above 1
by O(log ℓ/d_qk), and row i and column j of the bulk are then larger than the rest.
Row i's normaliser also holds the entry, which shrinks the rest of the row by 1 − δ,
δ = (1 + a√ℓ)/ℓ. ``conditional_location`` gives the outlier given r, c and ℓ (the same
equation with the diagonal resolvent entries of that row and column); at r = c = 1 and
ℓ = ∞ it is λ(a).
"""

from __future__ import annotations

import math
from functools import cache, lru_cache

import mpmath as mp
import sympy as sp
from scipy.optimize import brentq

from attnge.theory import exponential as ex
from attnge.theory.symbols import y

w, s, G = sp.symbols("w s G")
theta1_s, theta2_s = sp.symbols("theta_1 theta_2", positive=True)


@cache
def mp_stieltjes() -> sp.Expr:
    """G_y(w) = ∫ dMP_y(x)/(w − x): the root of y w G² − (w + y − 1)G + 1 with G ~ 1/w.

    >>> mp_stieltjes().subs({y: 1, w: 4})  # MP_1: G(4) = 1/2
    1/2
    """
    roots = sp.solve(y * w * G**2 - (w + y - 1) * G + 1, G)
    for root in roots:  # the physical root: w G → 1 as w → ∞ (checked at a large w)
        at = root.subs({y: sp.Rational(1, 2), w: 10**6})
        if abs(sp.N(at * 10**6) - 1) < 1e-3:
            return sp.simplify(root)
    raise ArithmeticError("no root of the MP quadratic behaves as 1/w")


@cache
def jump_stieltjes() -> sp.Expr:
    """g(s) = ∫ dρ(t)/(s − t) = G_y((s − θ₁ + θ₂)/θ₂)/θ₂, ρ the jump law of ν∞."""
    return mp_stieltjes().subs(w, (s - theta1_s + theta2_s) / theta2_s) / theta2_s


def _numeric(b: float, yy: float):
    t1, t2 = (mp.mpf(v) for v in ex.thetas(b))
    expr = jump_stieltjes().subs({theta1_s: t1, theta2_s: t2, y: mp.mpf(yy)})
    g = sp.lambdify(s, expr, "mpmath")
    dz = sp.lambdify(s, sp.diff(s**2 * expr, s), "mpmath")
    t_max = t1 - t2 + t2 * (1 + mp.sqrt(yy)) ** 2
    return g, dz, t_max


@cache
def _g_float(b: float, yy: float):
    """g(s) at β = b, y = yy as a float function (the closed form, lambdified once), for the
    root finding of ``conditional_location`` and ``long_location``."""
    t1, t2 = ex.thetas(b)
    expr = jump_stieltjes().subs({theta1_s: t1, theta2_s: t2, y: yy})
    return sp.lambdify(s, expr, "math")


@cache
def edge_point(b: float, yy: float, dps: int = 30) -> tuple[mp.mpf, mp.mpf, mp.mpf]:
    """(s*, E, a_c): the minimum s* of s² g(s) on s > t_max, the edge E and threshold a_c.

    Route independent of ``numerics.limit_density.right_edge`` (closed-form g, not
    quadrature of the jump law).
    """
    with mp.workdps(dps + 10):
        g, dz, t_max = _numeric(b, yy)
        lo = t_max * (1 + mp.mpf(10) ** -8)
        star = mp.findroot(dz, (lo, 2 * t_max), solver="anderson")
        E = star**2 * g(star)
        out = (star, E, 1 / mp.sqrt(g(star)))
    with mp.workdps(dps):
        return tuple(+v for v in out)


def outlier_location(a: float, b: float, yy: float, dps: int = 20) -> float | None:
    """λ(a) = s²/a² with g(s) = 1/a², the outlier made by an entry a; None if a ≤ a_c."""
    star, _, a_c = edge_point(b, yy, dps)
    if abs(a) <= a_c:
        return None
    with mp.workdps(dps + 5):
        g, _, t_max = _numeric(b, yy)
        target = 1 / mp.mpf(a) ** 2
        hi = 2 * star
        while g(hi) > target:
            hi *= 2
        root = mp.findroot(lambda v: g(v) - target, (star, hi), solver="anderson")
        return float(root**2 * target)


def conditional_location(a: float, b: float, yy: float, r: float = 1.0, c: float = 1.0,
                         ell: float = math.inf) -> float | None:
    """The outlier of an entry a at (i, j) given r = ‖q_i‖²/d_qk, c = ‖k_j‖²/d_qk and ℓ.

    Given q_i, row i of √ℓA⊥ has i.i.d. entries e^{βS − β²r/2} − 1 (over the keys) with
    S ~ N(0, r): covariance Σ_r = β²rρ + n(r)I, n(r) = e^{β²r} − 1 − β²r, against
    Σ = β²ρ + n(1)I for a typical row. Its normaliser also holds the entry itself: the
    others are the rest's softmax times 1 − δ, δ = (1 + a√ℓ)/ℓ (exactly, since
    e^{βS_ij}/Z_i = 1 + a√ℓ), and their mean is −δ (rows of √ℓA⊥ sum to 0). Given k_j,
    column j has entries e^{βS − β²/2} − 1 with S ~ N(0, c): second moment
    σ_c² = e^{β²(2c−1)} − 2e^{β²(c−1)/2} + 1, and its linear coupling to the other columns
    is scaled by c e^{β²(c−1)}. The outlier of the spike a e_i e_jᵀ solves
    a² λ g_r(λ) g_c(λ) = 1 with the diagonal resolvent entries of that row and column, by
    Schur complements against the deterministic equivalent (λ − XᵀX)⁻¹ ≈ (λ(I − Σ/s))⁻¹,
    λ = s² g(s), 1/s the Stieltjes value of ν∞ (𝟙 is in the kernel of √ℓA⊥):

        g_r = 1/(λ − (1 − δ)² [r(λ − s) + (n(r) − r n(1)) λ/s] − δ²),
        g_c = 1/(λ [1 − σ_c²/s − c e^{β²(c−1)} (1 − θ₁/s − s/λ)]).

    At r = c = 1 and ℓ = ∞ (δ = 0) both are 1/s and the equation is g(s) = 1/a²: λ(a).
    r − 1 and c − 1 are O(log ℓ/d_qk) for the largest entries, δ is O(a/√ℓ). Returns
    None when no s above s* solves it (the spike makes no outlier given r, c and ℓ).

    >>> abs(conditional_location(3.0, 1.0, 1.0) - outlier_location(3.0, 1.0, 1.0)) < 1e-9
    True
    """
    star = float(edge_point(b, yy)[0])
    g = _g_float(b, yy)
    delta = (1 + a * math.sqrt(ell)) / ell if math.isfinite(ell) else 0.0
    row, col = _denominators(b, yy, r, c, delta)

    def excess(v: float) -> float:
        """a² λ g_r g_c − 1 at s = v, or NaN where a denominator is not positive."""
        lam = v * v * g(v)
        den = row(v), col(v)
        return a * a * lam / (den[0] * den[1]) - 1 if min(den) > 0 else math.nan

    hi = 2 * star
    while not excess(hi) < 0:                    # far out a² λ g_r g_c ~ a²/s → 0
        hi *= 2
        if hi > 1e12 * star:
            return None
    lo = hi
    while True:                                  # walk down to the largest root
        lo /= 1.02
        f = excess(lo)
        if lo <= star or math.isnan(f):
            return None
        if f >= 0:
            break
        hi = lo
    root = brentq(excess, lo, hi, xtol=1e-14 * hi, rtol=1e-14)
    return float(root * root * g(root))


def _denominators(b: float, yy: float, r: float, c: float, delta: float = 0.0):
    """s ↦ 1/g_r and s ↦ 1/g_c at λ = s² g(s) (``conditional_location``)."""
    g = _g_float(b, yy)
    t1 = ex.thetas(b)[0]
    b2 = b * b
    def n(v):
        return math.expm1(b2 * v) - b2 * v
    sigma_c = math.exp(b2 * (2 * c - 1)) - 2 * math.exp(b2 * (c - 1) / 2) + 1
    couple = c * math.exp(b2 * (c - 1))

    def row(v: float) -> float:
        lam = v * v * g(v)
        return lam - (1 - delta) ** 2 * (r * (lam - v) + (n(r) - r * n(1.0)) * lam / v) \
            - delta**2

    def col(v: float) -> float:
        lam = v * v * g(v)
        return lam * (1 - sigma_c / v - couple * (1 - t1 / v - v / lam))

    return row, col


def long_location(b: float, yy: float, r: float = 1.0, c: float = 1.0) -> float | None:
    """The outlier a long query (r = ‖q‖²/d_qk) or key (c = ‖k‖²/d_qk) makes on its own.

    With no large entry, row i or column j alone is an outlier where its diagonal resolvent
    entry has a pole above the edge: 1/g_r = 0 or 1/g_c = 0 at some s > s*
    (``conditional_location``; both are positive there at r = c = 1). Returns the largest
    such λ = s² g(s), or None.

    >>> long_location(1.0, 1.0) is None
    True
    """
    star = float(edge_point(b, yy)[0])
    g = _g_float(b, yy)
    found = []
    for den in _denominators(b, yy, r, c):
        if den(star) >= 0:
            continue
        hi = 2 * star
        while den(hi) < 0:
            hi *= 2
        root = brentq(den, star, hi, xtol=1e-14 * hi, rtol=1e-14)
        found.append(root * root * g(root))
    return float(max(found)) if found else None


@lru_cache(maxsize=256)
def long_thresholds(b: float, yy: float) -> tuple[float, float]:
    """(r*, c*): the query and key norms from which a row or a column alone makes an outlier
    (``long_location``): 1/g_r or 1/g_c vanishes at s*, the edge. inf where none below 50
    (or below the norm whose e^{β²(2c−1)} would overflow) does."""
    star = float(edge_point(b, yy)[0])
    top = min(50.0, 0.5 + 300 / (b * b))         # e^{β²(2c−1)} stays below e^{600}
    out = []
    for k in range(2):                           # k = 0: the row's, 1: the column's
        def den(v: float, k: int = k) -> float:
            return _denominators(b, yy, v, v)[k](star)
        out.append(brentq(den, 1.0, top) if den(top) < 0 else math.inf)
    return out[0], out[1]


def entry_for_location(lam: float, b: float, yy: float, dps: int = 20) -> float:
    """The entry a whose outlier sits at λ > E: s² g(s) = λ on s > s*, then a = 1/√g(s)."""
    star, E, _ = edge_point(b, yy, dps)
    if lam <= E:
        raise ValueError(f"lam must exceed the right edge {float(E):.6g} (got {lam!r})")
    with mp.workdps(dps + 5):
        g, _, _ = _numeric(b, yy)
        hi = 2 * star
        while hi**2 * g(hi) < lam:
            hi *= 2
        # relative residual, checked here: at large β, λ ~ e^{β²} and g carries fewer digits
        # than findroot's own tolerance asks
        def excess(v):
            return v**2 * g(v) / lam - 1

        root = mp.findroot(excess, (star, hi), solver="anderson", verify=False)
        if not abs(excess(root)) < 1e-10:
            raise ArithmeticError(f"no entry found for lam = {lam!r} at beta = {b!r}")
        return float(1 / mp.sqrt(g(root)))


__all__ = [
    "conditional_location",
    "edge_point",
    "entry_for_location",
    "jump_stieltjes",
    "long_location",
    "long_thresholds",
    "mp_stieltjes",
    "outlier_location",
]
