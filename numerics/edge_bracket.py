r"""A law's right edge bounded from two rational base points, in mpmath's outward-rounded
interval arithmetic (``mpmath.iv``): the checker's route (docs/math.md §8).

The law is a chain (:func:`theory.multi_head.chain`): a base with Cauchy transform
:math:`G(x) = \int d\mu(v)/(x - v)`, compound layers :math:`\pi(\mu, t)` and dilations. Each
point carries :math:`(x, G, G')` up the chain: at a compound layer, with s the incoming x,

.. math:: \varphi = (1 - t)s + ts^2G, \quad \varphi' = (1 - t) + 2tsG + ts^2G', \quad
          (x, G, G') \mapsto (\varphi, 1/s, -1/(s^2\varphi')),

and a dilation by c maps it to :math:`(cx, G/c, G'/c^2)`. Below the top layer
:math:`\varphi' > 0` must hold (the point lies beyond that level's edge). At the top layer φ
is convex, so :math:`\varphi'(s_a) < 0 < \varphi'(s_b)` puts its minimum :math:`\varphi(s^*)`,
the edge before the last dilations C, between :math:`s_a` and :math:`s_b`, and

.. math:: \varphi(s_a) + \varphi'(s_a)(s_b - s_a) \le \varphi(s^*)
          \le \min(\varphi(s_a), \varphi(s_b)).

Base transforms are closed forms: the MP transform :math:`g(u) = 2/(u + r - 1 \pm
\sqrt{(u - \lambda_-)(u - \lambda_+)})` (+ beyond the support, − left of it) with
:math:`g' = (g - rg^2)/(2rug - (u + r - 1))` from :math:`rug^2 - (u + r - 1)g + 1 = 0`, and
partial fractions of :math:`1/(x - p(v))` for a quadratic p. No derivative is taken by
machine: this shares nothing with :mod:`numerics.edge_enclosure`.
"""

from __future__ import annotations

from fractions import Fraction

from mpmath import iv

from attnge.theory import multi_head as mh

__all__ = ["bounds", "number"]


def number(p: int, q: int = 1):
    """The rational p/q as an mpmath interval (rounded outward)."""
    return iv.mpf(p) / iv.mpf(q)


def _g(u, r, lam, left: bool = False):
    """(g, g') of MP_r at u beyond its support (or left of it)."""
    root = iv.sqrt((u - lam[0]) * (u - lam[1]))
    g = 2 / (u + r - 1 - root) if left else 2 / (u + r - 1 + root)
    return g, (g - r * g * g) / (2 * r * u * g - (u + r - 1))


def _base(poly: list, r, x):
    """(G, G') of the base law p_# MP_r at x beyond its edge."""
    lam = ((1 - iv.sqrt(r)) ** 2, (1 + iv.sqrt(r)) ** 2)
    if len(poly) == 1:
        G = 1 / (x - poly[0])
        return G, -G * G
    if len(poly) == 2:
        g, dg = _g((x - poly[0]) / poly[1], r, lam)
        return g / poly[1], dg / poly[1] ** 2
    p0, p1, p2 = poly
    disc = iv.sqrt(p1 * p1 + 4 * p2 * (x - p0))
    (gp, dgp), (gm, dgm) = (_g((-p1 + disc) / (2 * p2), r, lam),
                            _g((-p1 - disc) / (2 * p2), r, lam, left=True))
    G = (gp - gm) / disc
    dG = (dgp + dgm) / disc**2 - 2 * p2 * (gp - gm) / disc**3
    return G, dG


def _walk(chain: tuple, x0: Fraction) -> tuple:
    """(s, φ, φ', C) at the top compound layer for the base point x0; ValueError when x0 is
    not beyond the base's edge or a lower level's φ' is not positive."""
    poly, r, layers = chain
    top = (1 + iv.sqrt(r)) ** 2
    edge = poly[0] if len(poly) == 1 else sum(c * top**i for i, c in enumerate(poly))
    x = number(x0.numerator, x0.denominator)
    if not x > edge:
        raise ValueError("the base point is not beyond the base's edge")
    G, dG = _base(poly, r, x)
    last = max(i for i, (kind, _) in enumerate(layers) if kind == "compound")
    scale, found = iv.mpf(1), None
    for i, (kind, v) in enumerate(layers):
        if kind == "dilate":
            if found is not None:
                scale *= v
            x, G, dG = v * x, G / v, dG / (v * v)
            continue
        s = x
        phi = (1 - v) * s + v * s * s * G
        dphi = (1 - v) + 2 * v * s * G + v * s * s * dG
        if i == last:
            found = (s, phi, dphi)
        elif not dphi > 0:
            raise ValueError("the base point is not beyond a lower level's edge")
        x, G, dG = phi, 1 / s, -1 / (s * s * dphi)
    return (*found, scale)


def bounds(law: mh.Law, symbol, theta1: tuple[Fraction, Fraction], x_lo: Fraction,
           x_hi: Fraction, dps: int = 60) -> tuple[Fraction, Fraction]:
    r"""Rational bounds of the right edge from the base points ``x_lo < x_hi``.

    Parameters
    ----------
    law : theory.multi_head.Law
        Matrix route, with ``symbol`` for :math:`\theta_1`.
    theta1 : (Fraction, Fraction)
        Rational bounds of :math:`\theta_1`.
    x_lo, x_hi : Fraction
        Base points with :math:`\varphi' < 0` at the first and :math:`> 0` at the second.
    dps : int
        Working digits of the intervals.

    Returns
    -------
    (Fraction, Fraction)
        lo ≤ E ≤ hi.

    Raises
    ------
    ValueError
        When the signs of φ' are not proved, or a point is not on the chain's real branch.
    """
    saved, iv.dps = iv.prec, dps
    try:
        lo, hi = (number(v.numerator, v.denominator) for v in theta1)
        chain = mh.chain(law, {symbol: iv.mpf([lo.a, hi.b])}, number)
        s_a, phi_a, dphi_a, scale = _walk(chain, x_lo)
        s_b, phi_b, dphi_b, _ = _walk(chain, x_hi)
        if not (dphi_a < 0 and dphi_b > 0):
            raise ValueError("the signs of phi' at the two base points are not proved "
                             "(- at the first, + at the second)")
        low = scale * (phi_a + dphi_a * (s_b - s_a))
        high = scale * iv.mpf([min(phi_a.b, phi_b.b)] * 2)
        return _fraction(low._mpi_[0]), _fraction(high._mpi_[1])
    finally:
        iv.prec = saved


def _fraction(value: tuple) -> Fraction:
    """A finite mpf value tuple (sign, mantissa, exponent, bits) as a Fraction."""
    sign, man, exp, _ = value
    if not man and exp:
        raise ValueError("an interval bound is not finite")
    man = -man if sign else man
    return Fraction(man * 2**exp) if exp >= 0 else Fraction(man, 2**-exp)
