r"""Density, support and moments of the limit law :math:`\nu_\infty = \rho \boxtimes \mathrm{MP}_1`.

:math:`\rho` is the law of :math:`a + b x`, :math:`x \sim \mathrm{MP}_y`, with
:math:`a = \theta_1 - \theta_2`, :math:`b = \theta_2`. The Stieltjes transform
:math:`m(z) = \int d\nu_\infty(x) / (x - z)` solves (rate one)

.. math:: z = -\frac{1}{m} + \int \frac{t}{1 + t m}\, d\rho(t).

With the MP equation :math:`y w g^2 + (w + y - 1) g + 1 = 0`, :math:`g = -b z m^2`,
:math:`w = -(1 + a m)/(b m)`, this is, cleared of denominators, the quartic

.. math:: P(m) = -a b y z^2 m^4 - b y z^2 m^3 + (a - b y + b) z m^2 + z m + 1 = 0

(:math:`b = 0`: :math:`a z m^2 + z m + 1 = 0`, :math:`\theta_1 \mathrm{MP}_1`).
:math:`m(z)` is its root with :math:`\operatorname{Im} m > 0` and
:math:`\operatorname{Im}(z m^2) < 0` (the second says :math:`g(w)` is the physical MP
root); for :math:`\operatorname{Im} z > 0` exactly one root has both, and on the real
axis the density is :math:`\operatorname{Im} m(x + i0)/\pi`, 0 where no root has both.
The edges of the support are positive real roots of the discriminant of :math:`P` in
:math:`m`, which is :math:`b y z^6` times a cubic in :math:`z` (:func:`support`), so
every interval is found, however narrow its gap. :math:`\nu_\infty` has no atom
(:math:`\rho` lives on :math:`t > 0`; its atom :math:`1 - 1/y` at :math:`a` for
:math:`y > 1` is no atom of :math:`\nu_\infty`), so the density carries mass one.

:func:`right_edge` is a second, independent route to the right edge: the critical point
of :math:`z(m)`, with the :math:`\rho`-integral by quadrature against the MP density
(``_JumpLaw``), no closed form used. Nothing here uses :mod:`theory.limit_law`.

All work runs inside ``mp.workdps``; results are ``mpf`` rounded to the requested ``dps``.

Examples
--------
>>> from mpmath import mpf
>>> e = right_edge(1, 0, 1, dps=20)      # theta2 = 0: nu is MP_1, edge 4
>>> abs(e - 4) < mpf(10) ** -15
True
>>> [(float(u), float(v)) for u, v in support(1, 0, 3, dps=15)]
[(0.0, 4.0)]
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence

import mpmath
import numpy as np
import sympy
from mpmath import mp

from attnge.theory.inputs import integer

__all__ = ["density", "density_grid", "density_moments", "right_edge", "stieltjes", "support"]

_GUARD = 10  # extra decimal digits carried internally
_TRIES = ((100, 40), (2000, 200))  # (maxsteps, extraprec) of mpmath.polyroots
_MAX_NODES = 2048  # Gauss-Legendre nodes per piece, at most


# ---------------------------------------------------------------------------
# input conversion
# ---------------------------------------------------------------------------


def _to_mpf(name: str, value: object) -> mpmath.mpf:
    """Convert ``value`` to a finite real mpf at the current precision, naming ``name``."""
    try:
        if isinstance(value, sympy.Basic):
            value = sympy.N(value, mp.dps + 5)
            if not value.is_real:
                raise TypeError
            value = mpmath.mpf(value._mpf_)
        else:
            value = mp.mpf(value)
    except (TypeError, ValueError, AttributeError) as exc:
        raise ValueError(f"{name} must be a finite real number, got {value!r}") from exc
    if not mp.isfinite(value):
        raise ValueError(f"{name} must be a finite real number, got {value!r}")
    return value


class _JumpLaw:
    r"""The jump law :math:`\rho`: law of :math:`a + \theta_2 x`, :math:`x \sim \mathrm{MP}_y`.

    ``MP_y`` has density :math:`\sqrt{(b - x)(x - a)}/(2\pi y x)` on
    :math:`[(1-\sqrt y)^2, (1+\sqrt y)^2]` and, for :math:`y > 1`, an atom
    :math:`1 - 1/y` at 0. Since :math:`x\,d\mathrm{MP}_y(x)` has no atom and the density
    :math:`\sqrt{(b-x)(x-a)}/(2\pi y)`, for any :math:`F`

    .. math:: \int F\, d\mathrm{MP}_y = F(0) + \int \frac{F(x) - F(0)}{x}\,
              \frac{\sqrt{(b-x)(x-a)}}{2\pi y}\,dx
              = F(0) + \frac{2}{\pi}\int_0^{\pi} \frac{F(x(\phi)) - F(0)}{x(\phi)}
                \sin^2\phi\, d\phi,

    with :math:`x(\phi) = 1 + y + 2\sqrt y\cos\phi`. This takes care of the atom
    (:math:`1 - 1/y` is the rule's mass defect) and of the :math:`1/x` pole, which sits
    next to the support when :math:`y \approx 1`; the integrand is even, periodic and
    analytic, so the midpoint rule converges geometrically. Levels
    :math:`N = 16 \cdot 3^k` are nested; a level is accepted when it differs from the
    previous one by less than :math:`\sqrt{\varepsilon}` relative to
    :math:`|F(0)| + |\text{integral}|` (the accepted level's error is then about the
    cube of that). The next call starts at the accepted level (one lower when the
    previous level already agreed to rounding).
    """

    _N0 = 16
    _MAX_LEVEL = 7

    def __init__(self, theta1: mpmath.mpf, theta2: mpmath.mpf, y: mpmath.mpf) -> None:
        self.a = theta1 - theta2
        self.theta2 = theta2
        self.y = y
        self.sy = mp.sqrt(y)
        self.t_max = self.a + theta2 * (1 + self.sy) ** 2
        lower_x = mp.zero if y > 1 else (1 - self.sy) ** 2
        self.t_min = self.a + theta2 * lower_x
        self._levels: list[tuple[list, list]] = []
        self._level = 1  # last accepted level, where the next call starts

    def _rule(self, k: int) -> tuple[list, list]:
        """Nodes t_j and weights w_j = 2 sin^2(phi_j) / (N x_j) of the level-k midpoint rule."""
        while len(self._levels) <= k:
            n = self._N0 * 3 ** len(self._levels)
            ts, ws = [], []
            for j in range(n):
                phi = mp.pi * (2 * j + 1) / (2 * n)
                s, c = mp.sin(phi), mp.cos(phi / 2)
                x = (1 - self.sy) ** 2 + 4 * self.sy * c * c  # = 1 + y + 2 sqrt(y) cos(phi)
                ts.append(self.a + self.theta2 * x)
                ws.append(2 * s * s / (n * x))
            self._levels.append((ts, ws))
        return self._levels[k]

    def integrate_many(self, f: Callable) -> list:
        r"""Return :math:`\int f_i(t)\, d\rho(t)` for the tuple-valued :math:`f = (f_1, \dots)`."""
        tol = mp.sqrt(mp.eps)
        f0 = f(self.a)  # F(0): the value at x = 0, i.e. t = theta1 - theta2
        k = self._level
        while True:
            ts, ws = self._rule(k)
            cols = list(zip(*[[v - v0 for v, v0 in zip(f(t), f0)] for t in ts]))
            fine = [mp.fdot(ws, col) for col in cols]
            coarse = [3 * mp.fdot(ws[1::3], col[1::3]) for col in cols]
            # the scale includes |F(0)|, so an integral that vanishes is still judged fairly
            sizes = [abs(u) + abs(v0) for u, v0 in zip(fine, f0)]
            diffs = [abs(u - v) for u, v in zip(fine, coarse)]
            if all(d <= tol * sz for d, sz in zip(diffs, sizes)):
                # next call starts here, or one level lower if the coarse rule was exact
                exact = all(d <= mp.eps * 2**10 * sz for d, sz in zip(diffs, sizes))
                self._level = max(1, k - 1) if exact else k
                return [v0 + v for v0, v in zip(f0, fine)]
            if k >= self._MAX_LEVEL:
                raise ArithmeticError("jump-law quadrature did not converge")
            k += 1

    def integrate(self, f: Callable) -> mpmath.mpf | mpmath.mpc:
        r"""Return :math:`\int f(t)\, d\rho(t)`."""
        return self.integrate_many(lambda t: (f(t),))[0]

    def z_of_m(self, m: mpmath.mpc, z: mpmath.mpc = 0) -> tuple[mpmath.mpc, mpmath.mpc]:
        r"""Return :math:`F = -1/m + \int t/(1+tm)\,d\rho - z` and :math:`F'(m)`."""

        def g(t):
            u = t / (1 + t * m)
            return u, u * u

        first, second = self.integrate_many(g)
        return -1 / m + first - z, 1 / (m * m) - second


def _law(theta1: object, theta2: object, y: object) -> _JumpLaw:
    t1 = _to_mpf("theta1", theta1)
    t2 = _to_mpf("theta2", theta2)
    yy = _to_mpf("y", y)
    if t1 <= 0:
        raise ValueError(f"theta1 must be positive, got {theta1!r}")
    if t2 < 0:
        raise ValueError(f"theta2 must be non-negative, got {theta2!r}")
    if yy <= 0:
        raise ValueError(f"y must be positive, got {y!r}")
    law = _JumpLaw(t1, t2, yy)
    if law.t_min <= 0:
        raise ValueError(
            f"theta2 = {theta2!r} is too large for theta1 = {theta1!r}: the jump law "
            "theta1 - theta2 + theta2*x must live on t > 0"
        )
    return law


# ---------------------------------------------------------------------------
# the quartic: Stieltjes transform and density
# ---------------------------------------------------------------------------


def _quartic(a, b, y, z) -> list:
    """Coefficients of P(m), highest degree first (plain arithmetic: numbers or symbols)."""
    return [-a * b * y * z**2, -b * y * z**2, (a - b * y + b) * z, z, 1]


def _roots(coeffs: list) -> list[mpmath.mpc]:
    """All roots of a polynomial (leading zeros dropped), highest degree first.

    NumPy's double-precision roots (the companion matrix's eigenvalues), each polished by
    Newton's method at the working precision (:func:`_polish`); unless every root settles
    and no two settle on one value (a multiple or clustered root, a float start too far off),
    ``mpmath.polyroots`` (Durand--Kerner), started from NumPy's roots and then from its own.
    """
    coeffs = _trim(coeffs)
    tries = [(None, *t) for t in _TRIES]
    start = _float_roots(coeffs)
    if start is not None:
        polished = _polish(coeffs, start)
        if all(settled for _, settled in polished) and _apart([r for r, _ in polished]):
            return _real_where_real(coeffs, [r for r, _ in polished])
        tries.insert(0, (start, *_TRIES[0]))
    for init, steps, extra in tries:
        try:
            found = mpmath.polyroots(coeffs, maxsteps=steps, extraprec=extra, roots_init=init)
            return [mp.mpc(r) for r in found]
        except mpmath.libmp.NoConvergence:
            continue
    raise ArithmeticError(f"polyroots did not converge for {coeffs}")


def _trim(coeffs: list) -> list:
    while coeffs and coeffs[0] == 0:
        coeffs = coeffs[1:]
    if len(coeffs) < 2:
        raise ArithmeticError("polynomial without roots")
    return coeffs


def _float_roots(coeffs: list) -> list[mpmath.mpc] | None:
    """NumPy's roots as mpc (the coefficients scaled by the largest first), or None where the
    leading one is out of double range or the companion matrix overflows."""
    scale = max(abs(c) for c in coeffs)
    floats = np.array([complex(c / scale) for c in coeffs])
    if not (np.all(np.isfinite(floats)) and floats[0] != 0):
        return None
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        try:
            roots = np.roots(floats)
        except np.linalg.LinAlgError:
            return None
    return [mp.mpc(r) for r in roots] if np.all(np.isfinite(roots)) else None


def settled_roots(coeffs: list, keep: Callable | None = None) -> list[mpmath.mpc] | None:
    """The roots of those of NumPy's roots that ``keep`` accepts (default: all), each polished
    to the working precision by Newton's method (:func:`_polish`); None where one of them
    does not settle (a multiple or clustered root) or the coefficients leave double range,
    so that the caller asks :func:`_roots` for all of them.

    The fast path of ``numerics.multi_head_law``'s density, whose curves carry spurious
    multiple roots (cleared denominators) that keep ``polyroots`` slow: ``keep`` leaves
    them out before they are polished.
    """
    coeffs = _trim(coeffs)
    start = _float_roots(coeffs)
    if start is None:
        return None
    polished = _polish(coeffs, [r for r in start if keep is None or keep(r)])
    return [r for r, _ in polished] if all(ok for _, ok in polished) else None


def _polish(coeffs: list, start: list) -> list[tuple[mpmath.mpc, bool]]:
    r"""Newton's method from each start, (root, settled): settled when, within 8 steps, a
    step falls below 2^(10 - prec) of the root or the residual below 2^(10 - prec) of
    :math:`\sum_i |c_i||r|^i` (the rounding level of its evaluation: the root is then as
    accurate as the working precision can tell)."""
    slope = [c * k for c, k in zip(coeffs, range(len(coeffs) - 1, 0, -1))]
    sizes = [abs(c) for c in coeffs]
    tiny = mp.mpf(2) ** (10 - mp.prec)
    out = []
    for r in start:
        settled = False
        for _ in range(8):
            d = mp.polyval(slope, r)
            value = mp.polyval(coeffs, r)
            if abs(value) <= tiny * mp.polyval(sizes, abs(r)):
                settled = True
                break
            if d == 0:
                break
            step = value / d
            r -= step
            if abs(step) <= tiny * max(abs(r), tiny):
                settled = True
                break
        out.append((r, settled))
    return out


def _real_where_real(coeffs: list, roots: list) -> list[mpmath.mpc]:
    """For real coefficients, a root whose imaginary part is below 2^(10 - prec) of its
    size is real (its conjugate is itself), as ``polyroots``' cleanup makes it."""
    if any(mp.im(c) != 0 for c in coeffs):
        return roots
    tiny = mp.mpf(2) ** (10 - mp.prec)
    return [mp.mpc(mp.re(r)) if abs(mp.im(r)) <= tiny * abs(r) else r for r in roots]


def _apart(roots: list) -> bool:
    """No two roots closer than 2^(-prec/3) relative."""
    gap = mp.mpf(2) ** (-mp.prec // 3)
    return not any(abs(u - v) <= gap * max(abs(u), abs(v), gap)
                   for i, u in enumerate(roots) for v in roots[:i])


def _tol() -> mpmath.mpf:
    """2^(-prec/2): a root with |Im r| below this times |r| counts as real."""
    return mp.mpf(2) ** (-mp.prec // 2)


def _score(m, z) -> mpmath.mpf:
    """min(Im m / |m|, -Im(z m^2) / |z m^2|): > 0 iff Im m > 0 > Im(z m^2), the physical root."""
    u = z * m * m
    return min(m.imag / abs(m), -u.imag / abs(u))


def _physical(a, b, y, z) -> tuple[mpmath.mpc, mpmath.mpf]:
    """The root of P with the largest :func:`_score`, and that score."""
    best = max(_roots(_quartic(a, b, y, z)), key=lambda m: _score(m, z))
    return best, _score(best, z)


def _density_at(a, b, y, x) -> mpmath.mpf:
    """Im m(x + i0) / pi, 0 where no root is physical."""
    m, score = _physical(a, b, y, x)
    return m.imag / mp.pi if score > _tol() else mp.zero


def stieltjes(z: object, theta1: object, theta2: object, y: object,
              dps: int = 30) -> mpmath.mpc:
    r"""Stieltjes transform :math:`m(z)` of :math:`\nu_\infty`, :math:`\operatorname{Im} z \ge 0`.

    Parameters
    ----------
    z : complex
        Spectral parameter, ``Im z >= 0``, ``z != 0`` (``Im z = 0`` gives the boundary
        value :math:`m(x + i0)`).
    theta1, theta2, y : real
        :math:`\theta_1 > 0`, :math:`\theta_2 \ge 0`, :math:`y > 0`, with the jump law on
        :math:`t > 0`.
    dps : int
        Decimal digits.

    Returns
    -------
    mpc

    Notes
    -----
    .. math:: m(z) = \int \frac{d\nu_\infty(x)}{x - z}, \qquad
              -a b y z^2 m^4 - b y z^2 m^3 + (a - b y + b) z m^2 + z m + 1 = 0,

    the root with :math:`\operatorname{Im} m > 0 > \operatorname{Im}(z m^2)`. At a real
    :math:`x` off the support :math:`m` is real: the root nearest :math:`m(x + i\eta)`,
    :math:`\eta = |x| 10^{-d/2}` (:math:`d` the working digits).

    Examples
    --------
    >>> m = stieltjes(2j, 1, 0, 1, dps=15)       # MP_1: z m^2 + z m + 1 = 0, Im m > 0
    >>> abs(2j * m**2 + 2j * m + 1) < 1e-12 and m.imag > 0
    True
    """
    dps = integer(dps, "dps", 5)
    with mp.workdps(dps + _GUARD):
        try:
            zz = mp.mpc(z)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"z must be a complex number, got {z!r}") from exc
        if zz.imag < 0 or zz == 0 or not mp.isfinite(zz):
            raise ValueError(f"z must be finite and non-zero with Im z >= 0, got {z!r}")
        law = _law(theta1, theta2, y)
        a, b, yy = law.a, law.theta2, law.y
        m, score = _physical(a, b, yy, zz)
        if zz.imag == 0 and score <= _tol():  # off the support: the real root below m(x+i eta)
            near = _physical(a, b, yy, zz + 1j * abs(zz) * _tol())[0]
            m = mp.mpc(min(_roots(_quartic(a, b, yy, zz.real)), key=lambda r: abs(r - near)).real)
    with mp.workdps(dps):
        return +m


def density(x: object, theta1: object, theta2: object, y: object,
            dps: int = 30) -> mpmath.mpf:
    r"""Density of :math:`\nu_\infty` at :math:`x > 0`.

    Parameters
    ----------
    x : real
        Point, ``x > 0``.
    theta1, theta2, y : real
        As in :func:`stieltjes`.
    dps : int
        Decimal digits.

    Returns
    -------
    mpf
        0 outside the support.

    Notes
    -----
    .. math:: \frac{d\nu_\infty}{dx}(x) = \frac{1}{\pi}\operatorname{Im} m(x + i0).

    Examples
    --------
    >>> d = density(1, 1, 0, 1, dps=15)          # MP_1: sqrt((4 - x) x) / (2 pi x)
    >>> abs(d - mpmath.sqrt(3) / (2 * mpmath.pi)) < 1e-12
    True
    """
    with mp.workdps(integer(dps, "dps", 5) + _GUARD):
        if _to_mpf("x", x) <= 0:
            raise ValueError(f"x must be positive, got {x!r}")
    return density_grid([x], theta1, theta2, y, dps=dps)[0]


def density_grid(xs: Iterable[object], theta1: object, theta2: object, y: object,
                 dps: int = 30) -> list[mpmath.mpf]:
    r"""Density of :math:`\nu_\infty` at each point of ``xs`` (all > 0).

    Parameters
    ----------
    xs : iterable of real
        Points, all ``> 0``.
    theta1, theta2, y : real
        As in :func:`stieltjes`.
    dps : int
        Decimal digits.

    Returns
    -------
    list of mpf
        In the order of ``xs``.

    Notes
    -----
    .. math:: \frac{d\nu_\infty}{dx}(x) = \frac{1}{\pi}\operatorname{Im} m(x + i0),

    :math:`m` the root of the quartic (:func:`stieltjes`) with
    :math:`\operatorname{Im} m > 0 > \operatorname{Re} m`; each point is solved on its own.
    """
    dps = integer(dps, "dps", 5)
    with mp.workdps(dps + _GUARD):
        law = _law(theta1, theta2, y)
        pts = [_to_mpf("xs", x) for x in xs]
        if any(p <= 0 for p in pts):
            raise ValueError("xs must all be positive")
        out = _density_many(law.a, law.theta2, law.y, pts)
    with mp.workdps(dps):
        return [+v for v in out]


_CLEAR = 1e-6
"""A double-precision score above this picks the physical root without doubt."""


def _density_many(a, b, y, pts: list) -> list:
    """:func:`_density_at` at many points, the same numbers faster: the quartics' roots in
    double precision by one batched eigenvalue call (the companion matrices of
    ``numpy.roots``), the root with the best score (:func:`_physical`) polished by Newton's
    method at the working precision and kept where its score is clear (above ``_CLEAR`` in
    double precision, above ``_tol()`` at the working one); every other point (off the
    support, near an edge, a root that does not settle) is solved on its own."""
    if not pts:
        return []
    x = np.array([float(p) for p in pts])
    af, bf, yf = float(a), float(b), float(y)
    lead = -af * bf * yf * x * x
    if not (np.all(np.isfinite(lead)) and np.all(lead != 0)):
        return [_density_at(a, b, y, p) for p in pts]
    companion = np.zeros((x.size, 4, 4))
    companion[:, 0, :] = -np.stack([-bf * yf * x * x, (af - bf * yf + bf) * x, x,
                                    np.ones_like(x)], axis=1) / lead[:, None]
    companion[:, 1:, :3] += np.eye(3)
    roots = np.linalg.eigvals(companion)
    u = x[:, None] * roots * roots
    with np.errstate(invalid="ignore", divide="ignore"):
        score = np.minimum(roots.imag / np.abs(roots), -u.imag / np.abs(u))
    best = np.argmax(np.nan_to_num(score, nan=-np.inf), axis=1)
    out = []
    for k, p in enumerate(pts):
        value = None
        if score[k, best[k]] > _CLEAR:
            (m, settled), = _polish(_quartic(a, b, y, p), [mp.mpc(roots[k, best[k]])])
            if settled and _score(m, p) > _tol():
                value = m.imag / mp.pi
        out.append(_density_at(a, b, y, p) if value is None else value)
    return out


# ---------------------------------------------------------------------------
# right edge
# ---------------------------------------------------------------------------


def _critical(law: _JumpLaw, s: mpmath.mpf) -> mpmath.mpf:
    r"""Return :math:`\int (s - 2t)/(s - t)^2\,d\rho(t)`, zero iff :math:`z'(-1/s) = 0`."""
    return law.integrate(lambda t: (s - 2 * t) / (s - t) ** 2)


def _z_of_s(law: _JumpLaw, s: mpmath.mpf) -> mpmath.mpf:
    r"""Return :math:`z(-1/s) = s^2 \int d\rho(t)/(s - t)`."""
    return s * s * law.integrate(lambda t: 1 / (s - t))


def _refine(law: _JumpLaw, lo: mpmath.mpf, hi: mpmath.mpf) -> mpmath.mpf:
    """Root of _critical in the sign-change bracket (lo, hi)."""
    s = mp.findroot(lambda v: _critical(law, v), (lo, hi), solver="illinois", verify=False)
    second = s + (hi - lo) * mp.mpf(10) ** (-mp.dps // 3)  # secant polish from inside
    return mp.findroot(lambda v: _critical(law, v), (s, second), solver="secant", verify=False)


def _edge_point(law: _JumpLaw) -> mpmath.mpf:
    r"""Return :math:`s^* = -1/m^* > t_{\max}` solving :math:`\int (s-2t)/(s-t)^2\,d\rho = 0`."""
    hi = 2 * law.t_max  # s - 2t >= 0 on the support: positive at hi
    gap = mp.mpf(1) / 2
    while _critical(law, law.t_max * (1 + gap)) >= 0:  # -> -infinity as s -> t_max+
        gap /= 8
        if gap < mp.eps ** (mp.mpf(1) / 2):
            raise ArithmeticError("right edge: no sign change of z'(m) found")
    return _refine(law, law.t_max * (1 + gap), hi)



def right_edge(theta1: object, theta2: object, y: object, dps: int = 30) -> mpmath.mpf:
    r"""Right edge of the support of :math:`\nu_\infty`.

    Parameters
    ----------
    theta1, theta2, y : real
        As in :func:`stieltjes`.
    dps : int
        Decimal digits.

    Returns
    -------
    mpf

    Notes
    -----
    With :math:`z(m) = -1/m + \int t/(1+tm)\,d\rho(t)` on :math:`(-1/t_{\max}, 0)`,
    :math:`t_{\max} = \theta_1 - \theta_2 + \theta_2 (1+\sqrt y)^2`, the edge is
    :math:`z(m^*)` at the critical point :math:`z'(m^*) = 0` (unique: :math:`z` is convex
    there). In :math:`s = -1/m > t_{\max}`:

    .. math:: z = s^2 \int \frac{d\rho(t)}{s - t}, \qquad
              z'(m) = 0 \iff \int \frac{s - 2t}{(s - t)^2}\, d\rho(t) = 0,

    whose root lies in :math:`(t_{\max}, 2 t_{\max})`. For :math:`\rho = \delta_{\theta_1}`:
    :math:`s^* = 2\theta_1`, edge :math:`4\theta_1`.
    """
    dps = integer(dps, "dps", 5)
    with mp.workdps(dps + _GUARD):
        law = _law(theta1, theta2, y)
        edge = _z_of_s(law, _edge_point(law))
    with mp.workdps(dps):
        return +edge


# ---------------------------------------------------------------------------
# support: edges from the discriminant
# ---------------------------------------------------------------------------


@functools.cache
def _edge_cubic():
    """``(a, b, y) -> coefficients`` of the cubic C(z) = disc_m P / (b y z^6), from SymPy."""
    a, b, y, z, m = sympy.symbols("a b y z m")
    disc = sympy.discriminant(sympy.Poly(_quartic(a, b, y, z), m))
    cubic = sympy.Poly(sympy.cancel(disc.as_expr() / (b * y * z**6)), z)
    if cubic.degree() != 3:
        raise ArithmeticError(f"edge polynomial of degree {cubic.degree()}, not 3")
    return sympy.lambdify((a, b, y), cubic.all_coeffs(), "mpmath")


def _edge_roots(a, b, y) -> list[mpmath.mpc]:
    """Roots of the edge cubic C(z)."""
    return _roots(list(_edge_cubic()(a, b, y)))


def _is_real(r: mpmath.mpc) -> bool:
    return abs(r.imag) <= _tol() * abs(r)


def _support(a, b, y) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
    """Intervals between 0 and the edge-cubic roots with density > 0 inside, merged."""
    pts = [mp.zero, *sorted(r.real for r in _edge_roots(a, b, y) if _is_real(r) and r.real > 0)]
    out: list = []
    for lo, hi in zip(pts, pts[1:]):
        if _density_at(a, b, y, (lo + hi) / 2) > 0:
            if out and out[-1][1] == lo:
                out[-1] = (out[-1][0], hi)
            else:
                out.append((lo, hi))
    if not out:
        raise ArithmeticError("support: no interval with positive density")
    return out


def support(theta1: object, theta2: object, y: object,
            dps: int = 30) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
    r"""Support of :math:`\nu_\infty` as a list of intervals ``[(0, g1), (g2, E), ...]``.

    Parameters
    ----------
    theta1, theta2, y : real
        As in :func:`stieltjes`.
    dps : int
        Decimal digits.

    Returns
    -------
    list of (mpf, mpf)
        Disjoint intervals in increasing order; the first starts at 0 (rate one: hard
        edge, density :math:`\propto x^{-1/2}`); the last ends at the right edge
        :math:`E` (also :func:`right_edge`, by an independent route).

    Notes
    -----
    An edge is a real :math:`z` where two roots of :math:`P` meet, a root of

    .. math:: \operatorname{disc}_m P(m; z) = b y z^6\, C(z), \qquad \deg C = 3

    (:math:`C` is derived from :math:`P` with SymPy). The points 0 < positive real roots of
    :math:`C` cut :math:`(0, \infty)` into pieces; a piece belongs to the support when
    the density at its midpoint is positive (adjacent ones are merged). All edges are
    found, however narrow a gap. For example :math:`\beta = 1, y = 10` has a gap,
    :math:`\beta = 1, y = 2` has none.
    """
    dps = integer(dps, "dps", 5)
    with mp.workdps(dps + _GUARD):
        law = _law(theta1, theta2, y)
        parts = _support(law.a, law.theta2, law.y)
    with mp.workdps(dps):
        return [(+lo, +hi) for lo, hi in parts]


# ---------------------------------------------------------------------------
# moments of the density (a numerical route to the moments of theory.limit_law)
# ---------------------------------------------------------------------------


@functools.cache
def _gauss_legendre(n: int, prec: int) -> tuple[tuple[mpmath.mpf, mpmath.mpf], ...]:
    """n-point Gauss--Legendre (nodes, weights) on [-1, 1] at ``prec`` bits: NumPy's nodes
    refined by Newton on P_n in mpmath; the rule is symmetric, so half is computed."""

    def p_and_dp(x):  # three-term recurrence: P_n(x), P_n'(x)
        p0, p1 = mp.one, x
        for k in range(2, n + 1):
            p0, p1 = p1, ((2 * k - 1) * x * p1 - (k - 1) * p0) / k
        return p1, n * (x * p1 - p0) / (x * x - 1)

    rule = []
    with mp.workprec(prec):
        positive = np.polynomial.legendre.leggauss(n)[0][(n + 1) // 2:]  # ascending
        for x0 in [0.0] * (n % 2) + list(positive):
            x = mp.mpf(float(x0))
            for _ in range(20):
                p, dp = p_and_dp(x)
                x -= p / dp
                if abs(p / dp) <= mp.eps * 4:
                    break
            else:
                raise ArithmeticError("Gauss-Legendre nodes did not converge")
            w = 2 / ((1 - x * x) * p_and_dp(x)[1] ** 2)
            rule += [(x, w)] if x == 0 else [(x, w), (-x, w)]
    return tuple(rule)


def _piece(qs: list[int], lo, hi, n: int, density: Callable) -> list[mpmath.mpf]:
    r""":math:`\int_{lo}^{hi} x^q \nu(x)\,dx` by n-point Gauss--Legendre in
    :math:`\phi \in (0, \pi/2)`, :math:`x = lo + (hi - lo)\sin^2\phi`; ``density(xs)`` is
    ν at a list of points (one call per piece, so that a batched route serves all n)."""
    nodes = []
    for t, w in _gauss_legendre(n, mp.prec):
        phi = (t + 1) * mp.pi / 4
        s, c = mp.sin(phi), mp.cos(phi)
        nodes.append((lo + (hi - lo) * s * s, w * mp.pi / 2 * (hi - lo) * s * c))
    out = [mp.zero] * len(qs)
    for (x, jacobian), nu in zip(nodes, density([x for x, _ in nodes])):
        f = jacobian * nu
        out = [o + f * x**q for o, q in zip(out, qs)]
    return out


def _pieces(intervals: list, roots: list) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
    """Cut the intervals at the near-cusps (real parts of complex edge roots inside them),
    and grade each piece geometrically toward an end with another edge root closer than
    1/8 of its length (a narrow gap or near-cusp): cuts at distances 4d, 16d, ..."""
    out = []
    for lo, hi in intervals:
        pts = [lo, *sorted(r.real for r in roots if r.imag > 0 and not _is_real(r)
                           and lo < r.real < hi), hi]
        for u, v in zip(pts, pts[1:]):
            cuts = {u, v}
            for end, sign in ((u, 1), (v, -1)):
                near = [abs(r - end) for r in roots if abs(r - end) > _tol() * abs(r)]
                step = 4 * min(near, default=v - u)
                while step < (v - u) / 2:
                    cuts.add(end + sign * step)
                    step *= 4
            cuts = sorted(cuts)
            out += zip(cuts, cuts[1:])
    return out


def density_moments(qs: Sequence[int], theta1: object, theta2: object, y: object,
                    n_nodes: int = 32, dps: int = 30,
                    intervals: Sequence[tuple] | None = None) -> list[mpmath.mpf]:
    r"""Moments :math:`\int x^q\, d\nu_\infty` by quadrature of the density.

    Parameters
    ----------
    qs : sequence of int
        Orders ``q >= 0`` (``q = 0`` gives the total mass).
    theta1, theta2, y : real
        As in :func:`stieltjes`.
    n_nodes : int
        Gauss--Legendre nodes per piece to start with; doubled until converged.
    dps : int
        Decimal digits; the target is a relative accuracy :math:`10^{-\mathrm{dps}}`.
    intervals : sequence of (real, real), optional
        The support, if already computed by :func:`support` (otherwise computed here).

    Returns
    -------
    list of mpf

    Notes
    -----
    :math:`\nu_\infty` has no atom, so the moments are those of the density. Each support
    interval is cut at the real parts of the complex roots of the edge cubic that lie
    inside it (near-cusps, where a gap is about to open), and graded toward an end with
    another edge root at a distance :math:`d` below 1/8 of the piece (cuts at
    :math:`4d, 16d, \dots` from it: a narrow gap or near-cusp). On each piece :math:`[L, R]`
    the substitution :math:`x = L + (R - L)\sin^2\phi` makes the integrand analytic at
    the :math:`x^{-1/2}` hard edge at 0 and at square-root edges:

    .. math:: \int_L^R x^q \nu(x)\,dx
              = \int_0^{\pi/2} x^q\, \nu(x)\, 2(R - L)\sin\phi\cos\phi\,d\phi,

    by Gauss--Legendre with ``n_nodes``, ``2 n_nodes``, ... nodes, until two successive
    estimates agree to :math:`10^{-\mathrm{dps}}` of the moment (at most 2048 nodes,
    or ``2 n_nodes``).
    """
    dps = integer(dps, "dps", 5)
    if isinstance(n_nodes, bool) or not isinstance(n_nodes, int) or n_nodes < 2:
        raise ValueError(f"n_nodes must be an integer >= 2, got {n_nodes!r}")
    qs = list(qs)
    if any(isinstance(q, bool) or not isinstance(q, int) or q < 0 for q in qs):
        raise ValueError(f"qs must be non-negative integers, got {qs!r}")
    with mp.workdps(dps + _GUARD):
        law = _law(theta1, theta2, y)
        a, b, yy = law.a, law.theta2, law.y
        if intervals is None:
            intervals = _support(a, b, yy)
        intervals = [(_to_mpf("intervals", u), _to_mpf("intervals", v)) for u, v in intervals]
        pieces = _pieces(intervals, _edge_roots(a, b, yy))
        nu = lambda xs: _density_many(a, b, yy, xs)  # noqa: E731
        first = [_piece(qs, lo, hi, n_nodes, nu) for lo, hi in pieces]
        target = [mp.mpf(10) ** -dps * mp.fsum(abs(e[i]) for e in first) for i in range(len(qs))]
        out = [mp.zero] * len(qs)
        for (lo, hi), old in zip(pieces, first):
            n = n_nodes
            while True:
                n *= 2
                if n > max(_MAX_NODES, 2 * n_nodes):
                    raise ArithmeticError(f"density moments: no convergence on [{lo}, {hi}]")
                new = _piece(qs, lo, hi, n, nu)
                if all(abs(u - v) <= t for u, v, t in zip(new, old, target)):
                    break
                old = new
            out = [o + u for o, u in zip(out, new)]
    with mp.workdps(dps):
        return [+v for v in out]
