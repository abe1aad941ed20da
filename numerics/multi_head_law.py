r"""Density, Stieltjes transform and right edge of the multi-head and output laws (mpmath).

A law is a :class:`theory.multi_head.Law`: a base :math:`p_\#\mathrm{MP}_r` (deg p ≤ 2) taken
through free layers :math:`u = s\,\psi_\mu(z(a + cu))` and dilations. With
:math:`w = \psi(1/\zeta)` (ψ the moment series) and :math:`\zeta = 1/\chi(w)`, a free layer maps
a point :math:`(w, \zeta)` of μ to :math:`(s w, (a + c s w)\zeta)` of the new law, a dilation
:math:`D_s` to :math:`(w, s\zeta)`; the Stieltjes transform is
:math:`g(\zeta) = \int d\mu(x)/(x - \zeta) = -(1 + w)/\zeta`.

Two routes to the right edge E, sharing the closed form of :math:`g_{\mathrm{MP}}` and the
layer map (given each its own law: the stated one and the Gaussian matrix model's):

* :func:`right_edge` -- walk up from the base: for real :math:`x` beyond the base's edge,
  :math:`w_b = \psi_b(1/x) = -1 - x\,G_b(x)` in closed form (partial fractions of
  :math:`1/(p - x)` and :math:`g_{\mathrm{MP}}`), then every layer; E is the minimum of the
  top :math:`\zeta` over x (the first critical point of :math:`\zeta(w)`, where the real branch
  of :math:`\psi` ends).
* :func:`polynomial_edge` -- the algebraic curve :math:`P(g, \zeta) = 0` of the law, in
  :math:`g = -(1 + w)/\zeta` (the base relation of :func:`_base_relation`, derived by SymPy,
  pulled through the layers): E is a real double root (:math:`P = \partial_g P = 0`, Newton
  started at an estimate of E), checked to be where the density of :func:`density` (the
  physical root of P) vanishes.

:func:`density` picks, among the roots g of :math:`P(\cdot, x)`, the physical one: walking
down the layers every Stieltjes value :math:`-(1 + w_k)/\zeta_k` lies in the upper half plane
and the base value equals the closed-form physical :math:`G_b`. Nothing here reads the
moments of :mod:`theory.multi_head`, so :func:`density_moments` is an independent route to
them.

Examples
--------
>>> import sympy as sp
>>> from theory.multi_head import law
>>> nu = law("attention", 1, 0, 1, 1)             # theta2 = 0, h = 1: MP_1, edge 4
>>> float(right_edge(nu, dps=20))
4.0
"""

from __future__ import annotations

import cmath
import functools
import math
from collections.abc import Iterable

import mpmath
import sympy
from mpmath import mp

from attnge.numerics.limit_density import (
    _piece,
    _polish,
    _real_where_real,
    _to_mpf,
    _trim,
    settled_roots,
)
from attnge.theory.inputs import integer
from attnge.theory.multi_head import Law

__all__ = ["density", "density_grid", "density_moments", "edge_stieltjes", "entry_for_location",
           "outlier_location", "outlier_threshold", "polynomial_edge", "right_edge", "stieltjes",
           "support"]

_GUARD = 10


# ---------------------------------------------------------------------------
# the law as numbers
# ---------------------------------------------------------------------------


def _number(value: object) -> mpmath.mpf:
    """A real number of a Law (SymPy or Python) as mpf at the working precision."""
    if isinstance(value, sympy.Basic):
        value = sympy.N(value, mp.dps + 5)
        if not value.is_real:
            raise ValueError(f"a law's parameters must be real, got {value}")
        return mp.mpf(sympy.Float(value, mp.dps + 5)._mpf_)
    return _to_mpf("law", value)


class _Law:
    """A Law at the working precision: the base polynomial, MP ratio and layers as mpf."""

    def __init__(self, law: Law) -> None:
        poly = [_number(c) for c in law.poly]
        while len(poly) > 1 and poly[-1] == 0:
            poly.pop()
        self.poly = poly
        self.ratio = _number(law.ratio)
        if self.ratio <= 0 or any(c < 0 for c in poly[1:]):
            raise ValueError("the base law must be p(x), x ~ MP_r, r > 0, p increasing")
        self.layers = [(layer.kind, _number(layer.s), _number(layer.a), _number(layer.c))
                       for layer in law.layers]
        self.curve = None                                 # built by _curve when first asked
        self.floats = {"poly": [float(v) for v in poly], "ratio": float(self.ratio),
                       "layers": [(k, float(s), float(a), float(c))
                                  for k, s, a, c in self.layers]}
        self.top = (1 + mp.sqrt(self.ratio)) ** 2        # right edge of MP_r
        self.base_edge = self.p(self.top)
        if self.base_edge <= 0:
            raise ValueError("the base law must not be a point mass at 0")

    def p(self, x):
        return mp.polyval(self.poly[::-1], x)

    # -- the base, in closed form ------------------------------------------------------

    def g_mp(self, u):
        r"""Physical :math:`g_{\mathrm{MP}_r}(u) = (1 - r - u + \sqrt{u - \lambda_-}
        \sqrt{u - \lambda_+})/(2ru)` (principal roots: analytic off the support,
        :math:`\sim -1/u` at infinity)."""
        r = self.ratio
        lo, hi = (1 - mp.sqrt(r)) ** 2, self.top
        u = mp.mpc(u)
        return (1 - r - u + mp.sqrt(u - lo) * mp.sqrt(u - hi)) / (2 * r * u)

    def g_base(self, zeta):
        r""":math:`G_b(\zeta) = \int d\mathrm{MP}_r(x)/(p(x) - \zeta)` by partial fractions."""
        p = self.poly
        if len(p) == 1:
            return 1 / (p[0] - zeta)
        if len(p) == 2:
            return self.g_mp((zeta - p[0]) / p[1]) / p[1]
        disc = mp.sqrt(mp.mpc(p[1] ** 2 - 4 * p[2] * (p[0] - zeta)))
        roots = ((-p[1] + disc) / (2 * p[2]), (-p[1] - disc) / (2 * p[2]))
        return sum(self.g_mp(x) / (p[1] + 2 * p[2] * x) for x in roots)

    # -- walking the layers ----------------------------------------------------------

    def up(self, u, zeta):
        """(u, ζ) of the base → (u, ζ) of the law, u = 1 + w carried exactly (a free layer
        maps it to 1 − s + s u and multiplies ζ by a − c + c u)."""
        for kind, s, a, c in self.layers:
            if kind == "dilate":
                zeta = s * zeta
            else:
                u = 1 - s + s * u
                zeta = (a - c + c * u) * zeta
        return u, zeta

    def down(self, u, zeta) -> list[tuple]:
        """(u, ζ) of the law → the (u_k, ζ_k) of every level, the base last."""
        out = [(u, zeta)]
        for kind, s, a, c in reversed(self.layers):
            if kind == "dilate":
                zeta = zeta / s
            else:
                zeta = zeta / (a - c + c * u)
                u = (s - 1 + u) / s
            out.append((u, zeta))
        return out


# ---------------------------------------------------------------------------
# route 1: the right edge by walking up from the base
# ---------------------------------------------------------------------------


def _climb(law: _Law, x):
    """(u, ζ) of the law at the base point x > E_b (w_b = −1 − x G_b(x), real), walked up
    the layers; g(ζ) = −u/ζ."""
    return law.up(-x * law.g_base(x).real, x)


def _top_zeta(law: _Law, x):
    """ζ of the law at the base point x > E_b."""
    return _climb(law, x)[1]


def _root_past(f, x_edge):
    """The root of f on x > x_edge, bracketed by doubling x until f changes sign."""
    hi = 2 * x_edge
    while (f(hi) > 0) == (f(x_edge) > 0):
        hi *= 2
    return mp.findroot(f, (x_edge, hi), solver="anderson", verify=False)


def _edge_of(law: _Law):
    """(x*, ζ(x*)): the first critical point of the top ζ coming down from x = ∞ (w = 0),
    found by halving the distance to E_b until dζ/dx turns negative, then refined."""
    edge_b = law.base_edge
    slope = lambda x: mp.diff(lambda v: _top_zeta(law, v), x)  # noqa: E731
    hi = 2 * edge_b
    while slope(hi) <= 0:
        hi *= 2
        if hi > edge_b * 2**60:
            raise ArithmeticError("right edge: the top zeta has no minimum")
    lo = edge_b + (hi - edge_b) / 2
    while slope(lo) > 0:
        hi, lo = lo, edge_b + (lo - edge_b) / 2
        if lo - edge_b < edge_b * mp.eps ** (mp.mpf(2) / 3):
            raise ArithmeticError("right edge: no sign change of dzeta/dx found")
    x = mp.findroot(slope, (lo, hi), solver="anderson", verify=False)
    return x, _top_zeta(law, x)


def right_edge(law: Law, dps: int = 30) -> mpmath.mpf:
    r"""Right edge of the support of a law, walking up from the base.

    Parameters
    ----------
    law : theory.multi_head.Law
    dps : int
        Decimal digits.

    Returns
    -------
    mpf

    Notes
    -----
    For real :math:`x > E_b = p((1 + \sqrt r)^2)`, :math:`w_b(x) = -1 - x G_b(x)` and the
    layers give :math:`\zeta(x)`; :math:`x \mapsto w` runs over the real branch of
    :math:`\psi` from 0, and

    .. math:: E = \min_{x > E_b} \zeta(x).

    For one compound layer of rate one (the single head) this is
    :math:`\min_x x^2 \int d\rho(t)/(x - t)`.
    """
    dps = integer(dps, "dps", 5)
    with mp.workdps(dps + _GUARD):
        edge = _edge_of(_Law(law))[1]
    with mp.workdps(dps):
        return +edge


def edge_stieltjes(law: Law, dps: int = 30) -> tuple[mpmath.mpf, mpmath.mpf]:
    r"""The right edge E and :math:`g(E) = \lim_{x \downarrow E} \int d\mu(t)/(t - x)`.

    At the edge point x* of :func:`right_edge`, :math:`u^* = 1 + w^*` comes up the layers
    with ζ = E, and :math:`g(E) = -u^*/E` (finite at a square-root edge, negative).
    """
    dps = integer(dps, "dps", 5)
    with mp.workdps(dps + _GUARD):
        inner = _Law(law)
        x, edge = _edge_of(inner)
        g = -_climb(inner, x)[0] / edge
    with mp.workdps(dps):
        return +edge, +g


def outlier_threshold(law: Law, heads: int, dps: int = 30) -> mpmath.mpf:
    r"""The smallest entry a of one head's :math:`\sqrt{n}A_r` that makes an outlier of the
    n × hn matrix :math:`X = \sqrt{n/h}\,[A_1 \ldots A_h]` whose squared singular values
    follow ``law``.

    The entry is :math:`a/\sqrt h` in X, a rank-one perturbation θuvᵀ of a rectangular
    matrix with c = n/(hn) = 1/h. Its outlier λ solves (Benaych-Georges–Nadakuditi)

    .. math:: D(\lambda) = \lambda\, g(\lambda)\, \tilde g(\lambda) = h/a^2,\qquad
              \tilde g = g/h - (1 - 1/h)/\lambda,

    :math:`\tilde g` the Stieltjes transform of the hn-side law (ν with mass 1 − 1/h at 0).
    D decreases from the edge, so :math:`a_c^2 = h/D(E)`; for h = 1 this is the single
    head's :math:`a_c^2 = 1/(E g(E)^2)`.
    """
    h = integer(heads, "heads", 1)
    edge, g = edge_stieltjes(law, dps)
    with mp.workdps(dps + _GUARD):
        a_c = mp.sqrt(h / _spike_d(edge, g, h))
    with mp.workdps(dps):
        return +a_c


def _spike_d(lam, g, h: int):
    """D(λ) = λ g(λ) g̃(λ) of :func:`outlier_threshold`."""
    return lam * g * (g / h - (1 - mp.mpf(1) / h) / lam)


def outlier_location(law: Law, heads: int, a: object, dps: int = 30) -> mpmath.mpf:
    r"""The outlier λ > E made by an entry a > a_c of one head's :math:`\sqrt{n}A_r`: the root
    of :math:`D(\lambda) = h/a^2` (:func:`outlier_threshold`), with g(λ) = −u/λ walked up
    the layers from the base point x beyond the edge point (λ = ζ(x) grows with x)."""
    h = integer(heads, "heads", 1)
    with mp.workdps(dps + _GUARD):
        inner = _Law(law)
        target = h / mp.mpf(a) ** 2
        x_edge = _edge_of(inner)[0]

        def excess(x):
            u, lam = _climb(inner, x)
            return _spike_d(lam, -u / lam, h) - target

        if not excess(x_edge) > 0:
            raise ValueError(f"a must exceed the outlier threshold (got {a!r})")
        lam = _top_zeta(inner, _root_past(excess, x_edge))
    with mp.workdps(dps):
        return +lam


def entry_for_location(law: Law, heads: int, lam: object, dps: int = 30) -> mpmath.mpf:
    r"""The entry a of one head's :math:`\sqrt{n}A_r` whose outlier sits at λ > E: the inverse
    of :func:`outlier_location`, :math:`a = \sqrt{h/D(\lambda)}` with g(λ) = −u/λ at the base
    point x where the walk up the layers reaches ζ(x) = λ."""
    h = integer(heads, "heads", 1)
    with mp.workdps(dps + _GUARD):
        inner = _Law(law)
        target = mp.mpf(lam)
        x_edge, edge = _edge_of(inner)
        if not target > edge:
            raise ValueError(f"lam must exceed the right edge {mp.nstr(edge, 8)} (got {lam!r})")

        u = _climb(inner, _root_past(lambda x: _top_zeta(inner, x) - target, x_edge))[0]
        a = mp.sqrt(h / _spike_d(target, -u / target, h))
    with mp.workdps(dps):
        return +a


# ---------------------------------------------------------------------------
# route 2: the algebraic curve P(g, zeta) = 0
# ---------------------------------------------------------------------------


@functools.cache
def _base_relation(degree: int):
    r"""The relation B(G, ζ) = 0 between ζ and :math:`G = G_b(\zeta)` for a base of
    ``degree``: ``(p0, p1, p2, r) -> {(i, j): coefficient of G^i ζ^j}``.

    From the MP equation :math:`r u g^2 + (u - 1 + r)g + 1 = 0` of :math:`g = g_{\mathrm{MP}_r}(u)`:
    for degree 1, :math:`G = g(u)/p_1` at :math:`u = (\zeta - p_0)/p_1`; for degree 2,
    :math:`G = (g(r_1) - g(r_2))/(p_2(r_1 - r_2))` over the roots of :math:`p = \zeta`,
    :math:`g(r_2)` eliminated by a resultant (even in :math:`\delta = r_1 - r_2`, whose square
    is :math:`(p_1^2 - 4p_2(p_0 - \zeta))/p_2^2`).
    """
    p0, p1, p2, r, z, G, g, d, d2 = sympy.symbols("p0 p1 p2 r zeta G g delta delta2")
    q = lambda g_, u: r * u * g_**2 + (u - 1 + r) * g_ + 1  # noqa: E731
    if degree == 0:
        rel = G * (p0 - z) - 1
    elif degree == 1:
        rel = q(p1 * G, (z - p0) / p1)
    else:
        sigma = -p1 / p2
        e1 = sympy.expand(q(g + p2 * d * G, (sigma + d) / 2))
        e2 = sympy.expand(q(g, (sigma - d) / 2))
        even = sympy.Poly(sympy.resultant(e1, e2, g), d)
        if any(k % 2 for (k,) in even.monoms()):
            raise ArithmeticError("base relation: the resultant is not even in delta")
        rel = sum(c * d2 ** (k // 2) for (k,), c in even.terms())
        rel = rel.subs(d2, (p1**2 - 4 * p2 * (p0 - z)) / p2**2)
    rel = sympy.numer(sympy.together(rel))
    factors = [f for f, _ in sympy.factor_list(rel, G, z)[1] if f.has(G)]
    if len(factors) != 1:
        raise ArithmeticError(f"base relation of degree {degree}: {len(factors)} factors in G")
    poly = sympy.Poly(factors[0], G, z)
    return {mono: sympy.lambdify((p0, p1, p2, r), c, "mpmath") for mono, c in poly.terms()}


def _polymul(a: list, b: list) -> list:
    out = [mp.zero] * (len(a) + len(b) - 1)
    for i, u in enumerate(a):
        for j, v in enumerate(b):
            out[i + j] += u * v
    return out


def _polyadd(a: list, b: list) -> list:
    n = max(len(a), len(b))
    return [(a[i] if i < len(a) else 0) + (b[i] if i < len(b) else 0) for i in range(n)]


def _polypow(a: list, k: int) -> list:
    out = [mp.one]
    for _ in range(k):
        out = _polymul(out, a)
    return out


class _Poly:
    """A polynomial in ζ (mpf coefficients, lowest first) with the arithmetic the walk down
    needs, so that :func:`_curve_at` builds the curve once for every ζ."""

    __slots__ = ("c",)

    def __init__(self, c: list) -> None:
        self.c = c

    @staticmethod
    def of(v) -> _Poly:
        return v if isinstance(v, _Poly) else _Poly([mp.mpf(v)])

    def __add__(self, other) -> _Poly:
        a, b = self.c, _Poly.of(other).c
        n = max(len(a), len(b))
        return _Poly([(a[i] if i < len(a) else 0) + (b[i] if i < len(b) else 0)
                      for i in range(n)])

    __radd__ = __add__

    def __mul__(self, other) -> _Poly:
        b = _Poly.of(other).c
        out = [mp.zero] * (len(self.c) + len(b) - 1)
        for i, u in enumerate(self.c):
            if u:
                for j, v in enumerate(b):
                    out[i + j] += u * v
        return _Poly(out)

    __rmul__ = __mul__

    def __neg__(self) -> _Poly:
        return _Poly([-v for v in self.c])

    def __call__(self, zeta):
        return mp.polyval(self.c[::-1], zeta)


def _curve(law: _Law, zeta) -> list:
    """Coefficients in g (lowest first) of the curve at the point ζ: the curve's coefficients,
    polynomials in ζ built once per law (:func:`_curve_at` on ζ itself), evaluated at ζ."""
    if law.curve is None:
        law.curve = _curve_at(law, _Poly([mp.zero, mp.one]))
    return _strip([c(zeta) for c in law.curve])


def _strip(out: list) -> list:
    """The coefficients without their low-order zeros: g = 0 solves a cleared denominator,
    not the law."""
    while len(out) > 1 and out[0] == 0:
        out = out[1:]
    return out


def _curve_at(law: _Law, zeta) -> list:
    r"""Coefficients in g (lowest first) of the curve :math:`P(g) = 0` at the point ζ (a
    number, or :class:`_Poly` ζ itself for the coefficients as polynomials in ζ).

    Walking down from :math:`u = 1 + w = -\zeta g` and ζ, every level's u and ζ are ratios of
    polynomials in g (a free layer divides ζ by :math:`a - c + cu` and maps u to
    :math:`(s - 1 + u)/s`; a dilation divides ζ by s); the base relation
    :math:`B(-u_b/\zeta_b, \zeta_b)` is then cleared of denominators. Carrying u, not w,
    keeps the physical root clear of the others near ζ = 0 (where w → −1).
    """
    Nu, Du, Nz, Dz = [mp.zero, -zeta], [mp.one], [zeta], [mp.one]
    for kind, s, a, c in reversed(law.layers):
        if kind == "dilate":
            Dz = [s * v for v in Dz]
        else:   # zeta / (a - c + c u) = Nz Du / (Dz ((a - c) Du + c Nu))
            factor = _polyadd([(a - c) * v for v in Du], [c * v for v in Nu])
            Nz, Dz = _polymul(Nz, Du), _polymul(Dz, factor)
            Nu, Du = _polyadd([(s - 1) * v for v in Du], Nu), [s * v for v in Du]
    relation = _base_relation(len(law.poly) - 1)
    p = list(law.poly) + [mp.zero] * (3 - len(law.poly))
    top_i, top_j = max(i for i, _ in relation), max(j for _, j in relation)
    G_num, G_den = [-v for v in _polymul(Nu, Dz)], _polymul(Du, Nz)   # G = -u/zeta
    out = [mp.zero]
    for (i, j), coeff in relation.items():
        term = _polymul(_polypow(G_num, i), _polypow(G_den, top_i - i))
        term = _polymul(term, _polymul(_polypow(Nz, j), _polypow(Dz, top_j - j)))
        out = _polyadd(out, [coeff(*p, law.ratio) * v for v in term])
    return out


def _score(law: _Law, g, zeta):
    """For the root g at ζ: min over levels of Im g_k/|g_k| (g_k = −u_k/ζ_k), and the base
    mismatch |g_b − G_b(ζ_b)|/|G_b(ζ_b)|."""
    levels = law.down(-zeta * g, zeta)
    ims = []
    for uk, zk in levels:
        gk = -uk / zk
        ims.append(mp.im(gk) / abs(gk))
    ub, zb = levels[-1]
    phys = law.g_base(zb)
    return min(ims), abs(-ub / zb - phys) / abs(phys)


def _tol():
    return mp.mpf(2) ** (-mp.prec // 2)


def _physical(law: _Law, zeta, sure: bool = True):
    """The root g of the curve at ζ whose walk down is physical, and its score (> 0 iff
    Im > 0 at every level).

    The candidates are those of NumPy's roots whose walk down comes near the base's physical
    G_b (:func:`_near`, in double precision), polished by Newton (fast). Where none of them
    is physical with Im > 0 (off the support, or a candidate the filter missed), every root
    of the curve (:func:`_every_root`) decides, so that a density of 0 is read from the
    whole set of roots; with ``sure=False`` the candidates' verdict stands (a positive
    density is sure either way, a zero one is not: :func:`support` checks the zeros it
    reads so)."""
    coeffs = _curve(law, zeta)[::-1]
    z = complex(zeta)
    roots = settled_roots(coeffs, lambda g: _near(law, complex(g), z))
    best = (None, -mp.inf) if roots is None else _best(law, roots, zeta)
    if (best[0] is not None and best[1] > _tol()) or not sure:
        return best
    best = _best(law, _every_root(coeffs), zeta)   # no physical candidate: every root
    if best[0] is None:
        raise ArithmeticError(f"no physical root at zeta = {mp.nstr(zeta, 8)}")
    return best


def _every_root(coeffs: list) -> list[mpmath.mpc]:
    """Every root of a polynomial (highest degree first): the eigenvalues of its companion
    matrix at the working precision, each polished by Newton's method where that settles.

    mpmath's QR iteration (``mp.eig``) is backward stable however the roots cluster, and the
    curves carry spurious multiple roots (cleared denominators) on which ``polyroots`` (and
    so :func:`numerics.limit_density._roots`) converges slowly: 5-10 times slower here. The
    variable is first scaled by the geometric mean of the roots' sizes, :math:`|c_n/c_0|^{1/n}`
    (the curves' coefficients span a hundred orders of magnitude near ζ = 0)."""
    coeffs = _trim(coeffs)
    n = max(k for k, c in enumerate(coeffs) if c != 0)   # roots at 0 are taken apart
    scale = abs(coeffs[n] / coeffs[0]) ** (mp.one / n) if n else mp.one
    t = [c / (coeffs[0] * scale**k) for k, c in enumerate(coeffs[:n + 1])]   # monic in g/scale
    companion = mp.zeros(n)
    for i in range(n):
        companion[0, i] = -t[i + 1]
    for i in range(1, n):
        companion[i, i - 1] = 1
    start = [scale * r for r in mp.eig(companion, left=False, right=False)]
    start += [mp.mpc(0)] * (len(coeffs) - 1 - n)
    polished = [r if ok else r0 for r0, (r, ok) in zip(start, _polish(coeffs, start))]
    return _real_where_real(coeffs, polished)


def _near(law: _Law, g: complex, zeta: complex) -> bool:
    """Whether a double-precision root g walks down to within 1e-3 of the base's G_b: the
    mismatch of :func:`_score` in double precision (``cmath``), a loose filter before the
    polish (:func:`_best` judges the polished root at 2^(-prec/4))."""
    f = law.floats
    u = -zeta * g
    try:
        for kind, s, a, c in reversed(f["layers"]):
            if kind == "dilate":
                zeta = zeta / s
            else:
                zeta = zeta / (a - c + c * u)
                u = (s - 1 + u) / s
        phys = _g_base_float(f, zeta)
        return abs(-u / zeta - phys) <= 1e-3 * abs(phys)
    except (ZeroDivisionError, OverflowError, ValueError):
        return False


def _g_base_float(f: dict, zeta: complex) -> complex:
    """:meth:`_Law.g_base` in double precision."""
    p, r = f["poly"], f["ratio"]
    lo, hi = (1 - math.sqrt(r)) ** 2, (1 + math.sqrt(r)) ** 2

    def g_mp(u: complex) -> complex:
        return (1 - r - u + cmath.sqrt(u - lo) * cmath.sqrt(u - hi)) / (2 * r * u)

    if len(p) == 1:
        return 1 / (p[0] - zeta)
    if len(p) == 2:
        return g_mp((zeta - p[0]) / p[1]) / p[1]
    disc = cmath.sqrt(p[1] ** 2 - 4 * p[2] * (p[0] - zeta))
    return sum(g_mp(x) / (p[1] + 2 * p[2] * x)
               for x in ((-p[1] + disc) / (2 * p[2]), (-p[1] - disc) / (2 * p[2])))


def _best(law: _Law, roots: list, zeta) -> tuple:
    """The root with the largest Im score among those whose walk down meets the base's
    physical G_b (mismatch ≤ 2^(-prec/4)); (None, -inf) if none does."""
    best, best_score = None, -mp.inf
    for g in roots:
        try:
            im, mismatch = _score(law, g, zeta)
        except ZeroDivisionError:   # a root of a cleared denominator: not on the curve
            continue
        if mismatch <= mp.mpf(2) ** (-mp.prec // 4) and im > best_score:
            best, best_score = g, im
    return best, best_score


def _density_at(law: _Law, x, sure: bool = True):
    g, score = _physical(law, mp.mpf(x), sure)
    return mp.im(g) / mp.pi if score > _tol() else mp.zero


def density_grid(xs: Iterable[object], law: Law, dps: int = 30) -> list[mpmath.mpf]:
    r"""The density of a law at each x > 0, :math:`\operatorname{Im} g(x + i0)/\pi` with g the
    physical root of the curve :math:`P(\cdot, x)`."""
    dps = integer(dps, "dps", 5)
    with mp.workdps(dps + _GUARD):
        numeric = _Law(law)
        pts = [_to_mpf("xs", x) for x in xs]
        if any(p <= 0 for p in pts):
            raise ValueError("xs must all be positive")
        out = [_density_at(numeric, p) for p in pts]
    with mp.workdps(dps):
        return [+v for v in out]


def density(x: object, law: Law, dps: int = 30) -> mpmath.mpf:
    """The density of a law at x > 0 (0 off the support; atoms at 0 are not part of it)."""
    return density_grid([x], law, dps)[0]


def stieltjes(z: object, law: Law, dps: int = 30) -> mpmath.mpc:
    r""":math:`g(z) = \int d\mu(x)/(x - z)` for Im z > 0, from the physical root of the curve."""
    dps = integer(dps, "dps", 5)
    with mp.workdps(dps + _GUARD):
        zz = mp.mpc(z)
        if not zz.imag > 0:
            raise ValueError(f"z must have Im z > 0 (got {z!r})")
        g, score = _physical(_Law(law), zz)
        if not score > _tol():
            raise ArithmeticError(f"no root in the upper half plane at z = {z!r}")
    with mp.workdps(dps):
        return +g


def polynomial_edge(law: Law, dps: int = 30, start: object = None) -> mpmath.mpf:
    r"""The right edge as a real double root of the curve :math:`P(g, \zeta)`.

    Newton on :math:`P = \partial_g P = 0` in :math:`(g, \zeta)`, started at ``start`` (an
    estimate of the edge; default: :func:`right_edge`) and the closest pair of roots there;
    the result is accepted when the density of :func:`density` is positive just below it and
    zero just above (relative offset :math:`10^{-6}`), so that it is the end of the support
    and not another branch point.
    """
    dps = integer(dps, "dps", 5)
    with mp.workdps(dps + _GUARD):
        numeric = _Law(law)
        zeta0 = _edge_of(numeric)[1] if start is None else _to_mpf("start", start)
        zeta = _double_root(numeric, zeta0)
        offset = mp.mpf(10) ** -6
        if not (_density_at(numeric, zeta * (1 - offset)) > 0
                and _density_at(numeric, zeta * (1 + offset)) == 0):
            raise ArithmeticError("the double root of the curve is not the end of the support")
    with mp.workdps(dps):
        return +zeta


def support(law: Law, dps: int = 30) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
    r"""The intervals of the support of a law, ``[(lo, hi), ...]`` in increasing order.

    Parameters
    ----------
    law : theory.multi_head.Law
    dps : int
        Decimal digits.

    Returns
    -------
    list of (mpf, mpf)
        Disjoint intervals of (0, E] where the density of :func:`density` is positive; the
        last ends at the right edge E of :func:`right_edge`, an interval that starts at 0
        has a hard edge there. Atoms (at 0 only) are not part of it.

    Notes
    -----
    A scan of 64 equal steps of (0, E) and of :math:`E\,2^{-k}` (k ≤ 30) toward 0; each
    change of sign of the density is an end, refined to a real double root of the curve,
    :math:`P = \partial_g P = 0` started at the physical root (an end is where it meets
    another root). The scan reads its densities from the fast candidates (a positive density
    is sure, a zero one is not), then reads with every root of the curve the zeros that
    decide its ends: just outside every end (relative :math:`10^{-6}`) and at the bottom of
    the scan; if one of them is positive, the scan is redone with every density read so
    (5-7 times slower). A false zero inside the support thus makes a gap whose ends are
    checked; a piece of the support on which every scan point read a false zero, or that
    lies between two scan points, is missed.
    """
    dps = integer(dps, "dps", 5)
    with mp.workdps(dps + _GUARD):
        numeric = _Law(law)
        parts = _support(numeric, _edge_of(numeric)[1])
    with mp.workdps(dps):
        return [(+lo, +hi) for lo, hi in parts]


def _support(law: _Law, edge) -> list[tuple]:
    """:func:`support` at the working precision, given the right edge."""
    parts = _scan(law, edge, sure=False)
    if not parts:
        return _scan(law, edge, sure=True)
    offset = mp.mpf(10) ** -6
    outside = [lo * (1 - offset) for lo, _ in parts if lo > 0]
    outside += [hi * (1 + offset) for _, hi in parts if hi < edge]
    if parts[0][0] > 0:
        outside.append(edge * mp.mpf(2) ** -30)
    if any(_density_at(law, x) > 0 for x in outside):
        return _scan(law, edge, sure=True)
    return parts


def _scan(law: _Law, edge, sure: bool, points: int = 64) -> list[tuple]:
    """The intervals of (0, E] where the density is positive: a scan of ``points`` equal
    steps and of E 2^-k (k ≤ 30) toward 0, each change of sign refined to a real double root
    of the curve (:func:`_transition`); an interval that reaches E 2^-30 starts at 0 (a hard
    edge). With ``sure=False`` a zero density is read from the fast candidates alone."""
    xs = sorted({edge * 2 ** -k for k in range(1, 31)} | {edge * k / points
                                                          for k in range(1, points)})
    inside = [_density_at(law, x, sure) > 0 for x in xs]
    out, lo = [], mp.zero if inside[0] else None
    for k in range(1, len(xs)):
        if inside[k] != inside[k - 1]:
            end = _transition(law, xs[k - 1], xs[k], inside[k], sure)
            if inside[k]:
                lo = end
            else:
                out.append((lo, end))
                lo = None
    if lo is not None:
        out.append((lo, edge))
    return out


def _transition(law: _Law, a, b, rising: bool, sure: bool = True):
    """The edge between a and b where the density turns on (``rising``) or off: bisection
    on its sign to 2^-40 relative, then Newton on P = ∂_g P = 0 (a real double root of the
    curve) from there, kept when it stays inside the last bracket widened fourfold."""
    for _ in range(40):
        mid = (a + b) / 2
        if (_density_at(law, mid, sure) > 0) == rising:
            b = mid
        else:
            a = mid
    try:
        root = _double_root(law, (a + b) / 2)
    except (ArithmeticError, ValueError, mpmath.libmp.NoConvergence):
        return (a + b) / 2
    return root if abs(root - (a + b) / 2) <= 2 * (b - a) else (a + b) / 2


def _double_root(law: _Law, zeta0):
    """A real ζ near ``zeta0`` where two real roots of the curve meet (Newton on P = P' = 0),
    started at the physical root at ``zeta0``: an end of the support is where it meets
    another root (the closest pair of roots may be a spurious multiple root, a double root
    at every ζ)."""
    g0 = _physical(law, zeta0)[0]

    def system(g, zeta):   # the curve built at ζ itself: a double root needs every digit
        coeffs = _strip(_curve_at(law, zeta))
        slope = [k * c for k, c in enumerate(coeffs)][1:]
        return mp.polyval(coeffs[::-1], g), mp.polyval(slope[::-1], g)

    return mp.re(mp.findroot(system, (mp.re(g0), zeta0), verify=False)[1])


def density_moments(qs: list[int], law: Law, dps: int = 15, n_nodes: int = 24
                    ) -> list[mpmath.mpf]:
    r""":math:`\int x^q\,\nu(x)\,dx` by Gauss--Legendre quadrature of :func:`density` on each
    interval of its support (atoms at 0 do not contribute for q ≥ 1).

    On :math:`[L, R]`, :math:`x = L + (R - L)\sin^2\phi` makes square-root edges and a
    :math:`x^{-1/2}` hard edge at 0 analytic; ``n_nodes``, doubled until two estimates agree
    to :math:`10^{-\mathrm{dps}}` relative (at most 1024). The support: :func:`support`.
    """
    dps = integer(dps, "dps", 5)
    with mp.workdps(dps + _GUARD):
        numeric = _Law(law)
        intervals = _support(numeric, _edge_of(numeric)[1])
        out = [mp.zero] * len(qs)
        for lo, hi in intervals:
            old, n = None, n_nodes
            while True:
                new = _piece(qs, lo, hi, n,
                             lambda xs: [_density_at(numeric, x) for x in xs])
                if old is not None and all(abs(u - v) <= mp.mpf(10) ** -dps * abs(u)
                                           for u, v in zip(new, old)):
                    break
                if n >= 1024:
                    raise ArithmeticError("density moments: no convergence")
                old, n = new, 2 * n
            out = [v + u for v, u in zip(out, new)]
    with mp.workdps(dps):
        return [+v for v in out]
