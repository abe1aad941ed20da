r"""Law objects: a limit law of the theory with the conventions of ``scipy.stats``' frozen
distributions (docs/math.md §5, §7).

A :class:`Law` is built once from a ``theory.laws.Description`` (:func:`law` takes the
natural parameters) and answers ``pdf``, ``cdf``, ``ppf``, ``moment``, ``mean``, ``var``,
``support``, ``edge``, ``stieltjes``, ``rvs`` and ``plot``. Behind each is one canonical
route; the others are the checks of it (tests/numerics/test_laws.py):

* density and Stieltjes transform: ν∞ from the physical root of its quartic
  (``numerics.limit_density``), every other law from the physical root of its algebraic
  curve (``numerics.multi_head_law``);
* right edge: ν∞ as the minimum of :math:`x^2\int d\rho(t)/(x - t)` (``limit_density``),
  the others by walking up the layers (``multi_head_law.right_edge``); the checks are the
  discriminant's roots and the curve's double root;
* moments: exact, from ``theory.laws.Description.moments``; the check is quadrature of the
  density;
* the mass at 0: exact, from ``Description.atom``; the check is one minus the integral of
  the density;
* cdf and ppf: the density integrated on each interval of the support, in the variable
  φ of :math:`x = L + (R - L)\sin^k\varphi` (k = 2, or 1/(1 − a) at a hard edge
  :math:`x^{-a}`, a > 1/2), which makes square-root edges and hard edges analytic: a
  Chebyshev interpolant of the integrand (NumPy) whose coefficients fall below
  :math:`10^{-13}` of the largest, integrated exactly. The check is mpmath quadrature of
  the density to 1e-10.

Examples
--------
>>> nu = law(beta=1, y=2)
>>> round(nu.edge, 6), round(nu.mean(), 6)
(10.897504, 1.718282)
>>> abs(nu.cdf(nu.ppf(0.25)) - 0.25) < 1e-10
True
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import mpmath
import numpy as np
import sympy
from mpmath import mp
from numpy.polynomial import chebyshev as C

from attnge.numerics import limit_density as ld
from attnge.numerics import multi_head_law as mhl
from attnge.theory.inputs import integer
from attnge.theory.laws import Description, describe

__all__ = ["Atom", "Law", "Support", "law"]

_TAIL = 1e-13          # relative size of the last Chebyshev coefficients (the noise
                       # floor of a 15-digit density is near 2e-14)
_MAX_DEGREE = 1024     # of the cdf's interpolant on one interval
_DPS = 15              # digits of the density and Stieltjes transform


@dataclass(frozen=True)
class Atom:
    """A point mass: ``location`` and ``mass``."""

    location: float
    mass: float


@dataclass(frozen=True)
class Support:
    """The support: ``intervals`` ((lo, hi) in increasing order, where the density is
    positive) and ``atoms`` (point masses)."""

    intervals: tuple[tuple[float, float], ...]
    atoms: tuple[Atom, ...]


def law(beta: object = None, y: object = None, **parameters: Any) -> Law:
    """The :class:`Law` of ``theory.laws.describe(beta, y, **parameters)``.

    Parameters
    ----------
    beta, y : number, optional
        Inverse temperature and ratio; or ``theta1=``, ``theta2=``, ``gamma_k=``.
    **parameters
        ``theta1``, ``theta2``, ``heads``, ``gamma_k``, ``gamma_v``, ``gamma_o``, ``kind``
        (``"attention"``, ``"values"``, ``"output"``, ``"marchenko-pastur"``), ``sharing``
        (``"none"``, ``"mqa"``, ``"kv"``).

    Returns
    -------
    Law

    Examples
    --------
    >>> law(beta=1, y=2, heads=4).moment(1, exact=True)
    -1 + E
    """
    return Law(describe(beta, y, **parameters))


class Law:
    r"""A limit law, frozen: its :class:`~attnge.theory.laws.Description` and what follows.

    Parameters
    ----------
    description : theory.laws.Description

    Notes
    -----
    Arrays in, arrays out, as in ``scipy.stats``: ``pdf`` is 0 off the support (atoms are
    not part of it), ``cdf`` is 0 below the support and 1 above, ``ppf`` is NaN outside
    [0, 1]. Everything is computed once, when first asked for, and kept.
    """

    def __init__(self, description: Description) -> None:
        if not isinstance(description, Description):
            raise ValueError(f"description must be a theory.laws.Description "
                             f"(got {type(description).__name__})")
        self.description = description

    def __repr__(self) -> str:
        d = self.description
        given = f"beta={d.beta}" if d.beta is not None else f"theta1={d.theta1}, " \
                                                            f"theta2={d.theta2}"
        if d.kind == "marchenko-pastur":
            return f"Law(kind='marchenko-pastur', {given})"
        extra = "".join(f", {k}={v}" for k, v in (("gamma_v", d.gamma_v), ("gamma_o", d.gamma_o))
                        if v is not None)
        share = "" if d.sharing == "none" else f", sharing={d.sharing!r}"
        return f"Law(kind={d.kind!r}, {given}, heads={d.heads}, y={d.y}{extra}{share})"

    # -- the routes, as mpmath numbers ----------------------------------------------

    @functools.cached_property
    def _layered(self):
        return self.description.layered()

    def _density(self, xs: list, dps: int = _DPS) -> list:
        d = self.description
        if d.single:
            return ld.density_grid(xs, d.theta1, d.theta2, d.y, dps=dps)
        return mhl.density_grid(xs, self._layered, dps=dps)

    def edge_mp(self, dps: int = 30) -> mpmath.mpf:
        """The right edge E of the support to ``dps`` digits (mpf)."""
        d = self.description
        if d.kind == "marchenko-pastur":
            with mp.workdps(integer(dps, "dps", 5)):
                return +mp.mpf(sympy.N(4 * d.theta1, dps + 5)._mpf_)
        if d.single:
            return ld.right_edge(d.theta1, d.theta2, d.y, dps=dps)
        return mhl.right_edge(self._layered, dps=dps)

    @functools.cached_property
    def edge(self) -> float:
        """The right edge E of the support."""
        return float(self.edge_mp(20))

    # -- support and atoms -----------------------------------------------------------

    @functools.cached_property
    def _atom(self) -> float:
        return float(self.description.atom())

    def support(self) -> Support:
        """The intervals of the support and the atoms (here only ever at 0).

        Returns
        -------
        Support
        """
        return Support(self._intervals, (Atom(0.0, self._atom),) if self._atom > 0 else ())

    @functools.cached_property
    def _intervals(self) -> tuple[tuple[float, float], ...]:
        d = self.description
        if d.kind == "marchenko-pastur":
            return ((0.0, self.edge),)
        if d.single:
            parts = ld.support(d.theta1, d.theta2, d.y, dps=20)
        else:
            parts = mhl.support(self._layered, dps=20)
        return tuple((float(lo), float(hi)) for lo, hi in parts)

    # -- density, distribution and quantiles ----------------------------------------

    def pdf(self, x: object) -> np.ndarray | float:
        r"""The density at x (0 off the support; an atom is not part of it).

        Notes
        -----
        .. math:: \frac{d\nu}{dx}(x) = \frac{1}{\pi}\operatorname{Im} g(x + i0),\qquad
                  g(z) = \int \frac{d\nu(t)}{t - z},

        g the physical root of the law's polynomial equation, at 15 digits.
        """
        xs, shape = _array("x", x)
        out = np.zeros(xs.shape)
        inside = self._inside(xs)
        if inside.any():
            out[inside] = [float(v) for v in self._density(list(xs[inside]))]
        return _shaped(out, shape)

    def _inside(self, xs: np.ndarray) -> np.ndarray:
        mask = np.zeros(xs.shape, bool)
        for lo, hi in self._intervals:
            mask |= (xs > lo) & (xs < hi)
        return mask

    @functools.cached_property
    def _pieces(self) -> tuple:
        """Per interval (lo, hi, k, antiderivative in φ, mass), the cdf's interpolants in
        x = lo + (hi − lo) sin^k φ (:meth:`_power`)."""
        out = []
        for lo, hi in self._intervals:
            width = hi - lo
            k = self._power(lo, width)

            def integrand(phi, lo=lo, width=width, k=k):
                s = np.sin(phi)
                x = lo + width * s**k
                dens = np.zeros_like(phi)
                ok = (x > lo) & (x < lo + width)
                if ok.any():
                    dens[ok] = [float(v) for v in self._density(list(x[ok]))]
                return dens * width * k * s ** (k - 1) * np.cos(phi)

            series = _interpolate(integrand, (0.0, np.pi / 2))
            anti = series.integ(lbnd=0.0)
            out.append((lo, hi, k, anti, float(anti(np.pi / 2))))
        return tuple(out)

    def _power(self, lo: float, width: float) -> int:
        r"""The k of x = lo + w sin^k φ that makes the integrand analytic at lo.

        A soft edge (:math:`f \propto (x - lo)^{1/2}`) and the hard edge of MP₁
        (:math:`x^{-1/2}`) take k = 2; a hard edge :math:`f \propto x^{-a}` with a > 1/2 (a
        product of several MP₁: a = 2/3, 3/4, …) takes k = 1/(1 − a), so that
        :math:`f\,dx/d\varphi \propto \varphi^{k(1 - a) - 1}` is a power of φ. The exponent
        a is read from the density at lo + 10⁻¹² w and lo + 10⁻¹⁰ w.
        """
        if lo > 0:
            return 2
        near, far = (float(v) for v in self._density([width * 1e-12, width * 1e-10]))
        if not (near > 0 and far > 0):
            return 2
        a = -np.log(far / near) / np.log(100.0)
        return 2 if a < 0.5 + 0.05 else max(2, round(1 / (1 - a)))

    def cdf(self, x: object) -> np.ndarray | float:
        r"""The distribution function :math:`F(x) = \nu((-\infty, x])`, to 1e-10.

        Notes
        -----
        .. math:: F(x) = \nu\{0\}\,[x \ge 0] + \sum_{[L, R]} \int_0^{\varphi(x)}
                  f(L + (R - L)\sin^k\varphi)\,(R - L)\,k\sin^{k-1}\varphi\cos\varphi
                  \,d\varphi,

        :math:`\varphi(x) = \arcsin(((x - L)/(R - L))^{1/k})` clipped to [0, π/2]; k = 2,
        or more at a hard edge steeper than :math:`x^{-1/2}`.
        """
        xs, shape = _array("x", x)
        out = np.where(xs >= 0, self._atom, 0.0)
        for lo, hi, k, anti, _ in self._pieces:
            t = np.clip((xs - lo) / (hi - lo), 0.0, 1.0)
            out = out + anti(np.arcsin(t ** (1 / k)))
        return _shaped(np.clip(out / self._total, 0.0, 1.0), shape)

    @functools.cached_property
    def _total(self) -> float:
        """The atom plus the integrated density: 1 to within the interpolants' error, which
        the cdf is divided by (tests check it is 1 to 1e-10: the atoms' second route)."""
        return self._atom + sum(piece[-1] for piece in self._pieces)

    def ppf(self, q: object) -> np.ndarray | float:
        """The quantile function, the least x with F(x) ≥ q (NaN outside [0, 1]); q at or
        below the atom at 0 gives 0.

        Notes
        -----
        On the interval that holds q, φ solves :math:`F(\\varphi) = q` by 64 steps of
        bisection on the cdf's interpolant (to 1e-16 in φ, all q at once), and
        :math:`x = L + (R - L)\\sin^k\\varphi`.
        """
        qs, shape = _array("q", q)
        out = np.full(qs.shape, np.nan)
        valid = (qs >= 0) & (qs <= 1)
        target = qs * self._total
        below = self._atom
        out[valid & (target <= below)] = 0.0 if self._atom > 0 else self._intervals[0][0]
        for lo, hi, k, anti, mass in self._pieces:
            here = valid & (target > below) & (target <= below + mass)
            if here.any():
                want = target[here] - below
                a, b = np.zeros(want.shape), np.full(want.shape, np.pi / 2)
                for _ in range(64):
                    mid = (a + b) / 2
                    up = anti(mid) >= want
                    b, a = np.where(up, mid, b), np.where(up, a, mid)
                out[here] = lo + (hi - lo) * np.sin(b) ** k
            below += mass
        out[valid & (target > below)] = self._intervals[-1][1]
        return _shaped(out, shape)

    def rvs(self, size: int | tuple[int, ...] | None = None,
            random_state: int | np.random.Generator | None = None) -> np.ndarray | float:
        """Independent draws from the law, by its quantile function at uniform draws
        (``random_state``: a seed or a ``numpy.random.Generator``)."""
        rng = np.random.default_rng(random_state)
        u = rng.random(size)
        return self.ppf(u)

    # -- moments -------------------------------------------------------------------------

    @functools.cache  # noqa: B019 (one law object per description)
    def _moments(self, K: int) -> tuple:
        return tuple(self.description.moments(K))

    def moment(self, k: int, exact: bool = False) -> sympy.Expr | float:
        r"""The k-th moment :math:`\int x^k\,d\nu(x)`, exact (SymPy) or as a float.

        Examples
        --------
        >>> law(theta1=1, theta2=0, y=1).moment(3, exact=True)   # MP_1: the Catalan number
        5
        """
        k = integer(k, "k", 1, 60)
        value = self._moments(k)[k - 1]
        return value if exact else float(sympy.N(value, 20))

    def mean(self) -> float:
        """The first moment."""
        return self.moment(1)

    def var(self) -> float:
        """The variance :math:`m_2 - m_1^2` (exact, then a float)."""
        m1, m2 = self.moment(1, exact=True), self.moment(2, exact=True)
        return float(sympy.N(m2 - m1**2, 20))

    # -- Stieltjes transform ---------------------------------------------------------

    def stieltjes(self, z: object) -> np.ndarray | complex:
        r""":math:`g(z) = \int d\nu(t)/(t - z)` for Im z > 0, at 15 digits."""
        zs = np.asarray(z, dtype=complex)
        if not np.all(zs.imag > 0) or not np.all(np.isfinite(zs)):
            raise ValueError("z must be finite with Im z > 0")
        d = self.description
        flat = []
        for v in zs.ravel():
            if d.single:
                flat.append(complex(ld.stieltjes(complex(v), d.theta1, d.theta2, d.y, _DPS)))
            else:
                flat.append(complex(mhl.stieltjes(complex(v), self._layered, _DPS)))
        out = np.array(flat, dtype=complex).reshape(zs.shape)
        return complex(out) if out.ndim == 0 else out

    # -- a figure ----------------------------------------------------------------------

    def plot(self, ax=None, points: int = 400, **style):
        """The density on each interval of the support (and the atoms, as stems) on a
        matplotlib axis (a new figure's by default); returns the axis. Needs the ``plot``
        extra."""
        import matplotlib.pyplot as plt

        if ax is None:
            ax = plt.figure().add_subplot()
        style.setdefault("color", "C0")
        label = style.pop("label", self._label())
        for lo, hi in self._intervals:
            xs = lo + (hi - lo) * np.sin(np.linspace(0, np.pi / 2, points)[1:-1]) ** 2
            ax.plot(xs, self.pdf(xs), label=label, **style)
            label = None
        for atom in self.support().atoms:
            ax.axvline(atom.location, ymax=0.9, linestyle=":", color=style["color"],
                       label=f"atom {atom.mass:.3g} at {atom.location:g}")
        ax.set_xlabel(r"$x$")
        ax.set_ylabel(r"density $d\nu/dx$")
        return ax

    def _label(self) -> str:
        d = self.description
        if d.kind == "marchenko-pastur":
            return r"$\theta_1\,\mathrm{MP}_1$"
        if d.single:
            return r"$\nu_\infty$"
        return {"attention": r"$\nu_{\infty,h}$", "values": "values",
                "output": "output"}[d.kind]


def _interpolate(f, domain: tuple[float, float]) -> C.Chebyshev:
    """A Chebyshev interpolant of f on ``domain``, its degree doubled from 32 until the
    last eight coefficients fall below ``_TAIL`` of the largest (at most ``_MAX_DEGREE``)."""
    degree = 32
    while True:
        series = C.Chebyshev.interpolate(f, degree, domain=domain)
        coef = np.abs(series.coef)
        if coef[-8:].max() <= _TAIL * coef.max() or degree >= _MAX_DEGREE:
            if coef[-8:].max() > 1e-11 * coef.max():
                raise ArithmeticError("the density's cdf did not converge to 1e-11")
            return series
        degree *= 2


def _array(name: str, value: object) -> tuple[np.ndarray, tuple]:
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be real numbers (got {value!r})") from None
    if np.isnan(arr).any():
        raise ValueError(f"{name} must not be NaN")
    return arr.ravel(), arr.shape


def _shaped(out: np.ndarray, shape: tuple) -> np.ndarray | float:
    return float(out[0]) if shape == () else out.reshape(shape)
