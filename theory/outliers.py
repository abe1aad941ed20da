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
"""

from __future__ import annotations

from functools import lru_cache

import mpmath as mp
import sympy as sp

from theory import exponential as ex
from theory.symbols import y

w, s, G = sp.symbols("w s G")
theta1_s, theta2_s = sp.symbols("theta_1 theta_2", positive=True)


@lru_cache(maxsize=None)
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


@lru_cache(maxsize=None)
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


@lru_cache(maxsize=None)
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
        root = mp.findroot(lambda v: v**2 * g(v) - lam, (star, hi), solver="anderson")
        return float(1 / mp.sqrt(g(root)))


__all__ = ["edge_point", "entry_for_location", "jump_stieltjes", "mp_stieltjes",
           "outlier_location"]
