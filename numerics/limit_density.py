r"""Density and right edge of the limit law :math:`\nu_\infty = \rho \boxtimes \mathrm{MP}_1`.

The Stieltjes transform :math:`m(z) = \int d\nu_\infty(x) / (x - z)` solves (ratio one)

.. math:: z = -\frac{1}{m} + \int \frac{t}{1 + t m}\, d\rho(t),

where :math:`\rho` is the law of :math:`\theta_1 - \theta_2 + \theta_2 x`,
:math:`x \sim \mathrm{MP}_y`. The :math:`\rho`-integral is evaluated by quadrature
against the Marchenko--Pastur density, its atom at 0 of mass :math:`1 - 1/y` when
:math:`y > 1` included (see ``_JumpLaw``); nothing here uses a closed form for the MP
Stieltjes transform or the moments, so these numbers are independent of
:mod:`theory.limit_law`.

:func:`stieltjes`, :func:`density`, :func:`density_grid` solve the equation;
:func:`right_edge` and :func:`support` locate the edges from the critical points of
:math:`z(m)` on the real axis (for :math:`y > 1` the support can split in two: e.g.
:math:`\beta = 1, y = 10`); :func:`density_moments` integrates the density.

All work runs inside ``mp.workdps``; results are ``mpf`` rounded to the requested ``dps``.

Examples
--------
>>> from mpmath import mpf
>>> e = right_edge(1, 0, 1, dps=20)      # theta2 = 0: nu is MP_1, edge 4
>>> abs(e - 4) < mpf(10) ** -15
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import mpmath
import sympy
from mpmath import mp

from theory.inputs import integer

__all__ = ["density", "density_grid", "density_moments", "right_edge", "stieltjes", "support"]

_GUARD = 10  # extra decimal digits carried internally


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
# Stieltjes transform and density
# ---------------------------------------------------------------------------


def _solve(law: _JumpLaw, z: mpmath.mpc, start: mpmath.mpc) -> mpmath.mpc:
    """Root of z(m) = z by Newton's method from ``start`` (F' from the same quadrature)."""
    m = mp.mpc(start)
    for _ in range(100):
        f, df = law.z_of_m(m, z)
        step = f / df
        m -= step
        if abs(step) <= abs(m) * mp.eps * 2**8:
            break
    else:
        raise ArithmeticError(f"Stieltjes equation did not converge at z = {z}")
    return m


def _branch(m: mpmath.mpc, z: mpmath.mpc) -> mpmath.mpc:
    """Put a root on the physical branch Im m >= 0 (for real z the conjugate is a root)."""
    if m.imag >= 0:
        return m
    if z.imag == 0:
        return mp.conj(m)
    raise ArithmeticError(f"Stieltjes equation: root with Im m < 0 at z = {z}")


def _continue_to(law: _JumpLaw, z: mpmath.mpc, start: mpmath.mpc | None = None) -> mpmath.mpc:
    """Solve at z from ``start``, or follow the physical branch from far above the axis."""
    if start is not None:
        return _branch(_solve(law, z, start), z)
    scale = max(abs(z), law.t_max)
    eta = max(z.imag, 4 * scale)
    m = -1 / mp.mpc(z.real, eta)
    while True:
        eta = eta / 4
        if eta <= max(z.imag, scale * mp.mpf(10) ** -3):
            eta = z.imag
        m = _branch(_solve(law, mp.mpc(z.real, eta), m), mp.mpc(z.real, eta))
        if eta == z.imag:
            return m


def stieltjes(z: object, theta1: object, theta2: object, y: object,
              dps: int = 30) -> mpmath.mpc:
    r"""Stieltjes transform :math:`m(z)` of :math:`\nu_\infty`, :math:`\operatorname{Im} z \ge 0`.

    Parameters
    ----------
    z : complex
        Spectral parameter, ``Im z >= 0`` (``Im z = 0`` gives the boundary value
        :math:`m(x + i0)`).
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
              z = -\frac{1}{m} + \int \frac{t}{1 + t m}\, d\rho(t),

    solved by continuation in :math:`\operatorname{Im} z` from :math:`m \approx -1/z`.

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
        if zz.imag < 0 or not mp.isfinite(zz):
            raise ValueError(f"z must be finite with Im z >= 0, got {z!r}")
        law = _law(theta1, theta2, y)
        m = _continue_to(law, zz)
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
    .. math:: \frac{d\nu_\infty}{dx}(x) = \frac{1}{\pi}\operatorname{Im} m(x + i0).

    The points are visited in increasing order; each solve starts from an extrapolation
    of the previous points' :math:`m` (linear, or :math:`m \propto x^{-1/2}` after a
    jump in scale near the hard edge at 0), the first from a continuation in
    :math:`\operatorname{Im} z`.
    A solve that lands on the conjugate root is reflected to :math:`\operatorname{Im} m > 0`;
    one that fails falls back to the continuation.
    """
    dps = integer(dps, "dps", 5)
    with mp.workdps(dps + _GUARD):
        law = _law(theta1, theta2, y)
        pts = [_to_mpf("xs", x) for x in xs]
        if any(p <= 0 for p in pts):
            raise ValueError("xs must all be positive")
        out: list = [None] * len(pts)
        done: list[tuple] = []  # (x, m) of the points solved so far, increasing x
        for i in sorted(range(len(pts)), key=lambda k: pts[k]):
            z = mp.mpc(pts[i], 0)
            start = None
            if done and pts[i] > 2 * done[-1][0]:  # near 0, m(x) ~ c / sqrt(x)
                start = done[-1][1] * mp.sqrt(done[-1][0] / pts[i])
            elif len(done) >= 2 and done[-1][0] != done[-2][0]:  # linear extrapolation
                (x0, m0), (x1, m1) = done[-2:]
                start = m1 + (m1 - m0) * (pts[i] - x1) / (x1 - x0)
            elif done:
                start = done[-1][1]
            if start is not None and abs(start.imag) < abs(start) / 100:
                start += 1j * abs(start) / 10  # off the axis, or Newton stays on a real root
            try:
                m = _continue_to(law, z, start)
                if start is not None and abs(m.imag) <= abs(m) * mp.eps * 2**30:
                    raise ArithmeticError  # real root: re-check by continuation
            except (ArithmeticError, ZeroDivisionError):
                m = _continue_to(law, z)
            done.append((pts[i], m))
            out[i] = abs(m.imag) / mp.pi
    with mp.workdps(dps):
        return [+v for v in out]


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


def _gap_points(law: _JumpLaw, n_scan: int) -> list[mpmath.mpf]:
    r"""Critical points :math:`s \in (2a, t_c)` between the atom and the continuous part."""
    # on (a, 2a] both the atom's term and the continuous part's are negative
    lo, hi = 2 * law.a, law.a + law.theta2 * (1 - law.sy) ** 2
    if law.y <= 1 or law.theta2 == 0 or not lo < hi:
        return []
    for n in (n_scan, 4 * n_scan):
        # negative at lo, -> -infinity at hi; scan points clustered at both ends
        ss = [lo, *(lo + (hi - lo) * (1 - mp.cospi(mp.mpf(k) / n)) / 2 for k in range(1, n))]
        vals = [_critical(law, v) for v in ss]
        roots = [_refine(law, ss[k], ss[k + 1])
                 for k in range(len(ss) - 1) if (vals[k] < 0) != (vals[k + 1] < 0)]
        if len(roots) % 2 == 0:
            return roots
    raise ArithmeticError("support: odd number of inner edges found; raise n_scan")


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


def support(theta1: object, theta2: object, y: object, dps: int = 30,
            n_scan: int = 32) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
    r"""Support of :math:`\nu_\infty` as a list of intervals ``[(0, g1), (g2, E), ...]``.

    Parameters
    ----------
    theta1, theta2, y : real
        As in :func:`stieltjes`.
    dps : int
        Decimal digits.
    n_scan : int
        Points of the scan for a gap (only used when :math:`y > 1`).

    Returns
    -------
    list of (mpf, mpf)
        Disjoint intervals in increasing order; the first starts at 0 (rate one: hard
        edge, density :math:`\propto x^{-1/2}`), the last ends at :func:`right_edge`.

    Notes
    -----
    Real points outside the support are the values :math:`z(m)` on the real intervals
    where :math:`z'(m) > 0` (Silverstein--Choi). In :math:`s = -1/m`,
    :math:`z = s^2\int d\rho/(s-t)` and :math:`z' = 0 \iff \int (s-2t)/(s-t)^2\,d\rho = 0`.
    Below every jump (:math:`s < t` on :math:`\operatorname{supp}\rho`) the integrand is
    negative, so the only place for inner edges is between the atom :math:`a = \theta_1 -
    \theta_2` of :math:`\rho` (present when :math:`y > 1`) and its continuous part
    :math:`[t_c, t_{\max}]`, :math:`t_c = a + \theta_2(1-\sqrt y)^2`; more precisely in
    :math:`(2a, t_c)`, since the atom's term is negative for :math:`s < 2a`. The critical
    function is negative at :math:`2a` and tends to :math:`-\infty` at :math:`t_c`; a gap
    opens where it turns positive. A scan (``n_scan`` points, clustered at both ends;
    repeated with four times as many if it finds an odd number) brackets its roots,
    which are refined. A positive excursion narrower than the scan is missed.
    For example :math:`\beta = 1, y = 10` has a gap, :math:`\beta = 1, y = 2` has none.

    Examples
    --------
    >>> [(float(a), round(float(b), 6)) for a, b in support(1, 0, 3, dps=15)]
    [(0.0, 4.0)]
    """
    dps = integer(dps, "dps", 5)
    if isinstance(n_scan, bool) or not isinstance(n_scan, int) or n_scan < 4:
        raise ValueError(f"n_scan must be an integer >= 4, got {n_scan!r}")
    with mp.workdps(dps + _GUARD):
        law = _law(theta1, theta2, y)
        inner = sorted(_z_of_s(law, s) for s in _gap_points(law, n_scan))
        edges = [mp.zero, *inner, _z_of_s(law, _edge_point(law))]
    with mp.workdps(dps):
        return [(+edges[k], +edges[k + 1]) for k in range(0, len(edges), 2)]


# ---------------------------------------------------------------------------
# moments of the density (a numerical route to the moments of theory.limit_law)
# ---------------------------------------------------------------------------


def _gauss_legendre(n: int) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
    """Nodes and weights of n-point Gauss--Legendre on [-1, 1] (Newton on P_n)."""

    def p_and_dp(x):  # three-term recurrence: P_n(x), P_n'(x)
        p0, p1 = mp.one, x
        for k in range(2, n + 1):
            p0, p1 = p1, ((2 * k - 1) * x * p1 - (k - 1) * p0) / k
        return p1, n * (x * p1 - p0) / (x * x - 1)

    rules = []
    for k in range(1, n + 1):
        x = mp.cos(mp.pi * (k - mp.mpf(1) / 4) / (n + mp.mpf(1) / 2))
        for _ in range(100):
            p, dp = p_and_dp(x)
            step = p / dp
            x -= step
            if abs(step) <= mp.eps * 4:
                break
        else:
            raise ArithmeticError("Gauss-Legendre nodes did not converge")
        dp = p_and_dp(x)[1]
        rules.append((x, 2 / ((1 - x * x) * dp * dp)))
    return rules


def density_moments(qs: Sequence[int], theta1: object, theta2: object, y: object,
                    n_nodes: int = 32, dps: int = 30,
                    intervals: Sequence[tuple] | None = None) -> list[mpmath.mpf]:
    r"""Moments :math:`\int x^q\, d\nu_\infty` by quadrature of :func:`density`.

    Parameters
    ----------
    qs : sequence of int
        Orders ``q >= 0`` (``q = 0`` gives the total mass).
    theta1, theta2, y : real
        As in :func:`stieltjes`.
    n_nodes : int
        Gauss--Legendre nodes in :math:`\phi`, per interval.
    dps : int
        Decimal digits.
    intervals : sequence of (real, real), optional
        The support, if already computed by :func:`support` (otherwise computed here).

    Returns
    -------
    list of mpf

    Notes
    -----
    The support is a union of intervals (:func:`support`): the first is :math:`[0, g_1]`
    with a :math:`x^{-1/2}` hard edge at 0 (rate one), every other edge is a square-root
    soft edge. On each interval :math:`[L, R]` the substitution
    :math:`x = L + (R - L)\sin^2\phi` makes the integrand analytic:

    .. math:: \int_L^R x^q \nu(x)\,dx
              = \int_0^{\pi/2} x^q\, \nu(x)\, 2(R - L)\sin\phi\cos\phi\,d\phi,

    integrated by Gauss--Legendre with ``n_nodes`` nodes per interval.
    """
    dps = integer(dps, "dps", 5)
    if isinstance(n_nodes, bool) or not isinstance(n_nodes, int) or n_nodes < 2:
        raise ValueError(f"n_nodes must be an integer >= 2, got {n_nodes!r}")
    if any(isinstance(q, bool) or not isinstance(q, int) or q < 0 for q in qs):
        raise ValueError(f"qs must be non-negative integers, got {qs!r}")
    with mp.workdps(dps + _GUARD):
        rule = _gauss_legendre(n_nodes)
        phis = [(x + 1) * mp.pi / 4 for x, _ in rule]
        out = [mp.zero for _ in qs]
        if intervals is None:
            intervals = support(theta1, theta2, y, dps=dps)
        for lo, hi in ((_to_mpf("intervals", u), _to_mpf("intervals", v)) for u, v in intervals):
            xs = [lo + (hi - lo) * mp.sin(p) ** 2 for p in phis]
            dens = density_grid(xs, theta1, theta2, y, dps=dps)
            jac = [(mp.pi / 4) * w * 2 * (hi - lo) * mp.sin(p) * mp.cos(p)
                   for (_, w), p in zip(rule, phis)]
            for i, q in enumerate(qs):
                out[i] += mp.fsum(x**q * d * j for x, d, j in zip(xs, dens, jac))
    with mp.workdps(dps):
        return [+v for v in out]
