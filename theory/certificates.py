r"""Claims proved in exact rational arithmetic (docs/math.md §8).

* :func:`exp_bounds` -- rational :math:`lo \le e^x \le hi` for rational :math:`x \ge 0`, from
  the Taylor series and its remainder, so :math:`\theta_1 = e^{\beta^2} - 1` is enclosed at a
  rational β without floating point.
* :func:`quartic_moments` -- the moments of :math:`\nu_\infty` from its quartic (§5), an
  integer recursion of :math:`O(K^2)` steps.
* :func:`ratio_bound` -- :math:`\nu` lives on :math:`[0, E]`, so :math:`m_{k+1}/m_k \le E`
  for every k; with moments that grow with :math:`\theta_1` (every law here: its moments are
  polynomials with non-negative coefficients in the base law's :math:`\theta_1 - \theta_2`),
  :math:`m_{k+1}(\theta_1^{lo})/m_k(\theta_1^{hi})` is a rational lower bound of the ratio, and
  one above :math:`R` times the surrogate's edge proves :math:`E > R\,E_{\rm MP}`.
* :func:`m2_gap` -- :math:`m_2(\nu) - m_2(\nu|_{\theta_2 = 0})`, exact
  (:math:`y\theta_2^2` for one head).

Examples
--------
>>> from fractions import Fraction
>>> lo, hi = exp_bounds(Fraction(1), 20)          # e to 20 digits, rounded outward
>>> decimal_down(lo, 20), decimal_up(hi, 20)      # e = 2.71828182845904523536...
('2.7182818284590452353', '2.7182818284590452354')
>>> quartic_moments(3, Fraction(0), Fraction(1), Fraction(1))   # a = 0, b = y = 1
[Fraction(1, 1), Fraction(3, 1), Fraction(12, 1)]
"""

from __future__ import annotations

from decimal import ROUND_CEILING, ROUND_FLOOR, Context, Decimal
from fractions import Fraction
from math import ceil, floor, isqrt

import sympy

from attnge.theory import multi_head as mh
from attnge.theory.inputs import integer
from attnge.theory.laws import Description

THETA1 = sympy.Symbol("theta1", positive=True)
"""θ₁ as a symbol in the laws whose edges are enclosed (its value comes as an interval)."""

__all__ = ["THETA1", "decimal_down", "decimal_up", "exp_bounds", "law_moments_at", "law_of",
           "m2_gap",
           "positive", "quartic_moments", "ratio_bound", "small_digits", "sqrt_bounds",
           "theta1_bounds"]


def _fraction(value: object, name: str) -> Fraction:
    """An exact rational (int, Fraction, SymPy Rational or a decimal/ratio string)."""
    if isinstance(value, sympy.Rational):
        return Fraction(int(value.p), int(value.q))
    try:
        return Fraction(value)
    except (TypeError, ValueError, ZeroDivisionError) as exc:
        raise ValueError(f"{name} must be a rational number, got {value!r}") from exc


def exp_bounds(x: object, digits: int = 40) -> tuple[Fraction, Fraction]:
    r"""Rational bounds :math:`lo \le e^x \le hi`, :math:`hi - lo \le 3 \cdot 10^{-d}\,e^x`.

    .. math:: e^x = \sum_{n \le N} \frac{x^n}{n!} + r_N, \qquad
              0 \le r_N \le \frac{x^{N+1}}{(N+1)!}\,\frac{1}{1 - x/(N+2)} \quad (N + 2 > x),

    with :math:`r_N \le 10^{-d} e^x/4`, both ends then rounded outward to multiples of
    :math:`10^{k-d}`, :math:`10^k \le e^x` (the leading digit's place).
    """
    x = _fraction(x, "x")
    digits = integer(digits, "digits", 1)
    if x < 0:
        raise ValueError(f"x must be non-negative, got {x}")
    total, term, n = Fraction(1), Fraction(1), 0
    scale = Fraction(1, 10**digits)
    while True:
        n += 1
        term = term * x / n
        total += term
        if n + 2 > 2 * x:
            rest = term * x / (n + 1) / (1 - x / (n + 2))
            if rest <= scale * total / 4:
                break
    unit = scale * 10 ** (len(str(int(total))) - 1)   # at most 10^-d e^x
    return floor(total / unit) * unit, ceil((total + rest) / unit) * unit


def theta1_bounds(beta: object, digits: int = 40) -> tuple[Fraction, Fraction]:
    r"""Rational bounds of :math:`\theta_1 = e^{\beta^2} - 1` at a rational β, to ``digits``
    relative to :math:`\theta_1 - \theta_2 \approx \beta^4/2` (:func:`small_digits` more)."""
    b = _fraction(beta, "beta")
    lo, hi = exp_bounds(b * b, digits + small_digits(b))
    return lo - 1, hi - 1


def small_digits(beta: object) -> int:
    r"""Extra digits for a small β: :math:`\theta_1 - \theta_2 = e^{\beta^2} - 1 - \beta^2`
    loses about :math:`\log_{10}(2/\beta^4)` digits to cancellation."""
    b = _fraction(beta, "beta")
    return 0 if b >= 1 else 4 * len(str(b.denominator // b.numerator)) + 1


def sqrt_bounds(x: object, digits: int = 40) -> tuple[Fraction, Fraction]:
    r"""Rational :math:`lo \le \sqrt{x} \le hi` (integer square roots at scale
    :math:`10^{-d}`)."""
    x = _fraction(x, "x")
    scale = 10**digits
    root = isqrt(x.numerator * scale**2 // x.denominator)
    exact = Fraction(root, scale) ** 2 == x
    return Fraction(root, scale), Fraction(root + (0 if exact else 1), scale)


def decimal_down(value: Fraction, digits: int) -> str:
    """The largest decimal of ``digits`` significant digits that is ≤ ``value``."""
    return _decimal(Fraction(value), digits, down=True)


def decimal_up(value: Fraction, digits: int) -> str:
    """The smallest decimal of ``digits`` significant digits that is ≥ ``value``."""
    return _decimal(Fraction(value), digits, down=False)


def _decimal(value: Fraction, digits: int, down: bool) -> str:
    """``value`` rounded outward (toward −∞ if ``down``, else +∞) to ``digits`` significant
    digits, in plain notation: ``decimal``'s division is correctly rounded in either
    direction, and the quantize pads the trailing zeros."""
    if value == 0:
        return "0"
    context = Context(prec=digits, rounding=ROUND_FLOOR if down else ROUND_CEILING)
    rounded = context.divide(Decimal(value.numerator), Decimal(value.denominator))
    exponent = Decimal(1).scaleb(rounded.adjusted() - digits + 1)
    return f"{rounded.quantize(exponent, context=Context(prec=digits + 1)):f}"


# ---------------------------------------------------------------------------
# moments
# ---------------------------------------------------------------------------


def quartic_moments(K: int, a: object, b: object, y: object) -> list[Fraction]:
    r"""Moments :math:`m_1..m_K` of :math:`\nu_\infty` for :math:`\rho = a + b\,\mathrm{MP}_y`.

    With :math:`m(z) = -w M(w)`, :math:`w = 1/z`, the quartic of §5 reads

    .. math:: M = 1 + (a + b - by)\,w M^2 + by\,w M^3 - aby\,w^2 M^4,

    so :math:`m_n = (a + b - by)[w^{n-1}]M^2 + by[w^{n-1}]M^3 - aby[w^{n-2}]M^4`, each
    coefficient of a power known from :math:`m_0..m_{n-1}`. Run in integers: with
    :math:`a = A/D`, :math:`b = B/D`, :math:`y = Y/Q`, :math:`\mu_n = (DQ)^n m_n` obeys the same
    recursion with coefficients :math:`Q(A + B) - BY`, :math:`BY` and :math:`ABYQ`.
    This shares nothing with the non-crossing recursion of :mod:`theory.limit_law`.
    """
    K = integer(K, "K", 1)
    a, b, y = (_fraction(v, n) for v, n in ((a, "a"), (b, "b"), (y, "y")))
    D = a.denominator * b.denominator
    A, B = int(a * D), int(b * D)
    Y, Q = y.numerator, y.denominator
    c2, c3, c4 = Q * (A + B) - B * Y, B * Y, A * B * Y * Q
    mu, p2, p3, p4 = [1], [1], [1], [1]   # mu_n and [w^n] of M^2, M^3, M^4 (scaled)
    for n in range(1, K + 1):
        mu.append(c2 * p2[n - 1] + c3 * p3[n - 1] - (c4 * p4[n - 2] if n >= 2 else 0))
        p2.append(sum(mu[i] * mu[n - i] for i in range(n + 1)))
        p3.append(sum(mu[i] * p2[n - i] for i in range(n + 1)))
        p4.append(sum(mu[i] * p3[n - i] for i in range(n + 1)))
    scale = D * Q
    return [Fraction(mu[n], scale**n) for n in range(1, K + 1)]


def law_moments_at(theta1: Fraction, K: int, spec: dict, route: str) -> list[Fraction]:
    r"""Moments :math:`m_1..m_K` of the law of ``spec`` at a rational :math:`\theta_1`, exact.

    ``spec``: ``kind``, ``theta2``, ``heads``, ``gamma_k``, ``gamma_v``, ``gamma_o``,
    ``sharing`` (:func:`theory.multi_head.law`); ``route``: ``"quartic"`` (one head,
    :func:`quartic_moments`), ``"matrix"`` or ``"stated"`` (:func:`theory.multi_head.moments`).
    """
    t1 = sympy.Rational(theta1.numerator, theta1.denominator)
    t2 = sympy.Rational(str(spec["theta2"]))
    if route == "quartic":
        if spec["kind"] != "attention" or sympy.Rational(str(spec["heads"])) != 1:
            raise ValueError("the quartic route is the single head's")
        y = 1 / sympy.Rational(str(spec["gamma_k"]))
        return quartic_moments(K, _fraction(t1 - t2, "a"), _fraction(t2, "b"), _fraction(y, "y"))
    law = law_of(spec, t1, t2, route)
    return [_fraction(m, "moment") for m in mh.moments(law, K, route)]


def law_of(spec: dict, t1, t2, route: str) -> mh.Law:
    """The law of a cell's ``spec`` at θ₁ = ``t1`` (a number or :data:`THETA1`), θ₂ = ``t2``."""
    given = {k: None if spec.get(k) is None else sympy.Rational(str(spec[k]))
             for k in ("heads", "gamma_k", "gamma_v", "gamma_o")}
    # the one law description (theory.laws), built directly: θ₁ may be a symbol here
    return Description(spec["kind"], t1, t2, given["heads"], given["gamma_k"],
                       given["gamma_v"], given["gamma_o"],
                       spec.get("sharing", "none")).layered(route)


def ratio_bound(k: int, lower: list[Fraction], upper: list[Fraction]) -> Fraction:
    r"""Rational lower bound :math:`m_{k+1}(\theta_1^{lo})/m_k(\theta_1^{hi})` of
    :math:`m_{k+1}/m_k` from moments at the two ends (``lower[i]``, ``upper[i]`` =
    :math:`m_{i+1}`)."""
    return lower[k] / upper[k - 1]


def m2_gap(spec: dict, route: str = "stated") -> sympy.Expr:
    r""":math:`m_2(\nu) - m_2(\nu|_{\theta_2 = 0})`, exact, with :math:`\theta_1` the symbol
    :data:`THETA1`.

    One head: :math:`m_2 = 2\theta_1^2 + y\theta_2^2` against :math:`2\theta_1^2`; h heads:
    :math:`\theta_2^2/\gamma_K`; the output law: :math:`\gamma_O^2\theta_2^2/\gamma_K`. Tied
    keys and values (K = V) move m₁ too, and the output law's gap is then a polynomial in
    :math:`\theta_1` (see :func:`positive`).
    """
    t2 = sympy.Rational(str(spec["theta2"]))
    full = mh.moments(law_of(spec, THETA1, t2, route), 2, route)[1]
    surrogate = mh.moments(law_of(spec, THETA1, sympy.Integer(0), route), 2, route)[1]
    return sympy.expand(full - surrogate)


def positive(gap: sympy.Expr) -> bool:
    r"""Whether a polynomial in :math:`\theta_1 > 0` is provably positive: not zero, and
    every coefficient non-negative."""
    coeffs = sympy.Poly(gap, THETA1).all_coeffs()
    return gap != 0 and all(c >= 0 for c in coeffs)
