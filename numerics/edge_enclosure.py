r"""Rigorous enclosures of a law's right edge by interval Newton in arb (python-flint).

A law of the matrix route (:func:`theory.multi_head.law`, ``route="matrix"``) is a chain: a
base :math:`p_\#\mathrm{MP}_r` whose Cauchy transform :math:`G(x) = \int d\mu(v)/(x - v)` has
a closed form, then compound free Poisson layers :math:`\pi(\mu, t)` and dilations. For
:math:`\pi(\mu, t)`, with :math:`T` the top of μ's support,

.. math:: \varphi(s) = (1 - t)\,s + t\,s^2 G_\mu(s), \qquad
          \varphi''(s) = 2t\int \frac{v^2\,d\mu(v)}{(s - v)^3} > 0 \quad (s > T),

the right edge of :math:`\pi(\mu, t)` is :math:`\min_{s > T}\varphi` (docs/math.md §8), and
beyond it :math:`G_{\pi}(\varphi(s)) = 1/s`. So a base point :math:`x_0` beyond the base's
edge walks up the chain (:math:`x \mapsto \varphi(x)`, :math:`G \mapsto 1/x` per layer,
:math:`x \mapsto cx`, :math:`G \mapsto G/c` per dilation) to the top value :math:`\zeta(x_0)`,
and the edge is :math:`\zeta` at the zero of :math:`F = d\zeta/dx_0`, every level's
:math:`dx/dx_0 > 0` there.

The walk runs in ``arb_series`` (Taylor arithmetic on balls), so :math:`F` and :math:`F'` are
enclosed over a whole interval X. Interval Newton, :math:`N(X) = m - F(m)/F'(X)`, with
:math:`0 \notin F'(X)` and :math:`N(X) \subseteq X`, proves that X holds exactly one zero; the
edge is then enclosed by the mean-value form :math:`\zeta(m) + \zeta'(X^*)(X^* - m)`.
Nothing here is shared with the checker's route (:mod:`numerics.edge_bracket`, mpmath
intervals and convexity at two rational points).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import mpmath
import sympy

from attnge.numerics import multi_head_law as mhl
from attnge.theory import multi_head as mh
from attnge.theory.certificates import THETA1, decimal_down, decimal_up

__all__ = ["THETA1", "Enclosure", "enclose", "flint", "to_fraction"]



def flint():
    """python-flint, or a one-line error naming the extra that brings it."""
    try:
        import flint as module
    except ImportError:
        raise ValueError("certify needs python-flint: pip install 'attnge[certify]'") from None
    return module


def to_fraction(point) -> Fraction:
    """An exact arb (a ball of radius 0) as a Fraction."""
    man, exp = point.mid().man_exp()
    man, exp = int(man), int(exp)
    return Fraction(man * 2**exp) if exp >= 0 else Fraction(man, 2**-exp)


@dataclass(frozen=True)
class Enclosure:
    """The edge in [lo, hi]; ``bracket``: two base points (decimal strings) around the unique
    zero of F, with F < 0 proved at the first and F > 0 at the second."""

    lo: Fraction
    hi: Fraction
    bracket: tuple[str, str]


class _Chain:
    """A law's chain in arb: the base polynomial, MP ratio, layers."""

    def __init__(self, law: mh.Law, theta1) -> None:
        fl = flint()
        self.fl = fl
        self.poly, self.ratio, self.layers = mh.chain(
            law, {THETA1: theta1}, lambda p, q: fl.arb(fl.fmpq(p, q)))
        r = self.ratio
        self.lam = ((1 - r.sqrt()) ** 2, (1 + r.sqrt()) ** 2)
        p = self.poly
        top = self.lam[1]
        self.base_edge = p[0] if len(p) == 1 else sum(c * top**i for i, c in enumerate(p))
        self.last = max(i for i, (kind, _) in enumerate(self.layers) if kind == "compound")

    def g(self, u, left: bool = False):
        r""":math:`\int d\mathrm{MP}_r(v)/(u - v) = 2/(u + r - 1 \pm \sqrt{(u - \lambda_-)
        (u - \lambda_+)})`: + beyond the support, − left of it."""
        root = ((u - self.lam[0]) * (u - self.lam[1])).sqrt()
        return 2 / (u + self.ratio - 1 - root) if left else 2 / (u + self.ratio - 1 + root)

    def base(self, x):
        """G of the base at x beyond its edge, by partial fractions of 1/(x − p(v))."""
        p = self.poly
        if len(p) == 1:
            return 1 / (x - p[0])
        if len(p) == 2:
            return self.g((x - p[0]) / p[1]) / p[1]
        disc = (p[1] ** 2 + 4 * p[2] * (x - p[0])).sqrt()
        plus, minus = (-p[1] + disc) / (2 * p[2]), (-p[1] - disc) / (2 * p[2])
        return (self.g(plus) - self.g(minus, left=True)) / disc

    def walk(self, x):
        """(ζ, [x after each compound layer but the last]) for the base point(s) x."""
        G, inner = self.base(x), []
        for i, (kind, v) in enumerate(self.layers):
            if kind == "dilate":
                x, G = v * x, G / v
            else:
                x, G = (1 - v) * x + v * x * x * G, 1 / x
                if i < self.last:
                    inner.append(x)
        return x, inner

    def series(self, x0, terms: int = 3):
        """ζ and the inner levels as Taylor series in the base point, over the ball x0."""
        return self.walk(self.fl.arb_series([x0, 1], prec=terms))


def _start(law: mh.Law, theta1: sympy.Expr, dps: int) -> mpmath.mpf:
    """A floating estimate of the base point of the edge (numerics.multi_head_law's walk)."""
    with mpmath.mp.workdps(dps):
        return mhl._edge_of(mhl._Law(_numbers(law, theta1)))[0]


def _numbers(law: mh.Law, theta1: sympy.Expr) -> mh.Law:
    """The law with θ₁ put in (for the floating start)."""
    sub = lambda e: sympy.sympify(e).subs(THETA1, theta1)  # noqa: E731
    layers = tuple(mh.Layer(ly.kind, sub(ly.s), sub(ly.a), sub(ly.c)) for ly in law.layers)
    return mh.Law(tuple(sub(c) for c in law.poly), sub(law.ratio), layers)


def enclose(law: mh.Law, theta1_exact: sympy.Expr, theta1, digits: int = 30) -> Enclosure:
    r"""Enclose the right edge of ``law`` (θ₁ a symbol in it, ``THETA1``).

    Parameters
    ----------
    law : theory.multi_head.Law
        Matrix route, with :data:`THETA1` for :math:`\theta_1`.
    theta1_exact : sympy.Expr
        :math:`\theta_1` exactly (for the floating start only).
    theta1 : arb
        A ball holding :math:`\theta_1`.
    digits : int
        Working decimal digits of arb.

    Returns
    -------
    Enclosure

    Raises
    ------
    ArithmeticError
        When interval Newton cannot prove a unique zero (raise ``digits``).
    """
    fl = flint()
    with fl.ctx.workdps(digits):
        chain = _Chain(law, theta1)
        x = fl.arb(str(_start(law, theta1_exact, digits + 10)))
        for _ in range(60):   # polish the midpoint (plain Newton on F = dζ/dx0)
            zeta, _ = chain.series(x)
            step = zeta[1] / (2 * zeta[2])
            x = (x - step).mid()
            if abs(step.mid()) < abs(x.mid()) * fl.arb(2) ** (-fl.ctx.prec + 8):
                break
        noise = abs(zeta[1].rad() / zeta[2].mid())   # how far rounding moves the zero
        radius = (abs(step.mid()) + noise) * 16 + abs(x.mid()) * fl.arb(2) ** (-fl.ctx.prec + 16)
        X = None
        for _ in range(6):      # widen until one step proves, as long as X stays narrow
            X = _newton(chain, fl.arb(x, radius.upper()))
            if X is not None:
                break
            radius *= 16
        if X is None:
            raise ArithmeticError(f"interval Newton proved no unique zero at {digits} working "
                                  "digits (raise --digits)")
        for _ in range(3):      # later steps only shrink X
            N = _newton(chain, X)
            if N is None:
                break
            X = N
        m = X.mid()
        edge = chain.series(m)[0][0] + chain.series(X)[0][1] * (X - m)
        bracket = _bracket(chain, X, digits)
        return Enclosure(to_fraction(edge.lower()), to_fraction(edge.upper()), bracket)


def _newton(chain: _Chain, X):
    """N(X) = m − F(m)/F'(X) when it proves a unique zero of F in X (0 ∉ F'(X), N(X) ⊆ X,
    X beyond the base's edge, every lower level's slope positive), else None."""
    zeta, inner = chain.series(X)
    slope = 2 * zeta[2]                       # F'(X) = ζ''(X)
    if not (X > chain.base_edge and slope > 0 and all(v[1] > 0 for v in inner)):
        return None
    m = X.mid()
    N = m - chain.series(m)[0][1] / slope
    return N if X.contains(N) else None


def _bracket(chain: _Chain, X, digits: int) -> tuple[str, str]:
    """Decimals of ``digits`` - 5 significant digits around X where F < 0 < F is proved."""
    fl = chain.fl
    for keep in (digits - 5, digits - 8, digits - 12):
        lo = decimal_down(to_fraction(X.lower()), keep)
        hi = decimal_up(to_fraction(X.upper()), keep)
        point = lambda q: fl.arb(fl.fmpq(q.numerator, q.denominator))  # noqa: E731
        if chain.series(point(Fraction(lo)))[0][1] < 0 < chain.series(point(Fraction(hi)))[0][1]:
            return lo, hi
    raise ArithmeticError("no rational bracket with proved signs (raise digits)")
