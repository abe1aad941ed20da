r"""Moments of the limit law :math:`\nu_\infty = \rho \boxtimes \mathrm{MP}_1` (docs/math.md §5).

The jump law :math:`\rho` is the law of :math:`\theta_1 - \theta_2 + \theta_2 x` with
:math:`x \sim \mathrm{MP}_y`, the mean-one Marchenko--Pastur law of ratio :math:`y`.
:math:`\nu_\infty` is the free Poisson law of rate one and jump law :math:`\rho`, so its
free cumulants are the moments of :math:`\rho`.

Two independent routes give the moments of :math:`\nu_\infty` from its free cumulants:

* :func:`moments_from_free_cumulants` -- the non-crossing-partition recursion, run as a
  table of convolution powers of the moment series;
* :func:`moments_from_free_cumulants_series` -- the functional equation
  :math:`M(w) = 1 + \sum_n \kappa_n w^n M(w)^n`, solved by Lagrange inversion in
  truncated power series.

All arithmetic is exact: inputs are turned into a polynomial ring over ZZ, QQ (or RR for
floats) whose generators are the symbols and transcendental atoms of the input (for
example ``exp(beta**2)``), and results are returned as expanded SymPy expressions.

Examples
--------
>>> import sympy as sp
>>> t1, t2, y = sp.symbols("theta1 theta2 y", positive=True)
>>> limit_moments(2, t1, t2, y)
[theta1, 2*theta1**2 + theta2**2*y]
>>> narayana_moments(3, y)
[1, y + 1, y**2 + 3*y + 1]
>>> mp_surrogate_moments(3, 2)
[2, 8, 40]
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy
from sympy import Expr, binomial, catalan
from sympy.polys.ring_series import rs_mul
from sympy.polys.rings import ring

from attnge.theory import exponential as ex
from attnge.theory.inputs import integer
from attnge.theory.rings import ExactRing
from attnge.theory.symbols import beta as beta_symbol

__all__ = [
    "from_beta",
    "jump_moments",
    "limit_moments",
    "limit_moments_functional",
    "moments_from_free_cumulants",
    "moments_from_free_cumulants_series",
    "mp_edge",
    "mp_surrogate_moments",
    "narayana_moments",
]


# ---------------------------------------------------------------------------
# input checks
# ---------------------------------------------------------------------------


def _check_param(name: str, value: object, *, strict: bool) -> Expr:
    """Sympify ``value`` and reject it when it is provably not (strictly) positive."""
    try:
        expr = sympy.sympify(value, strict=True)
    except (sympy.SympifyError, TypeError) as exc:
        raise ValueError(f"{name} must be a number or SymPy expression, got {value!r}") from exc
    if not isinstance(expr, Expr):  # a user error is a ValueError
        msg = f"{name} must be a number or SymPy expression, got {value!r}"
        raise ValueError(msg)  # noqa: TRY004
    if expr.is_number and not (expr.is_extended_real and expr.is_finite):
        raise ValueError(f"{name} must be real and finite, got {value!r}")
    bad = expr.is_positive is False if strict else expr.is_nonnegative is False
    if bad:
        kind = "positive" if strict else "non-negative"
        raise ValueError(f"{name} must be {kind}, got {value!r}")
    return expr


def _check_cumulants(kappas: Sequence[object]) -> list[Expr]:
    if isinstance(kappas, (str, bytes)) or not isinstance(kappas, Sequence) or not kappas:
        raise ValueError("kappas must be a non-empty sequence of free cumulants")
    out = []
    for i, k in enumerate(kappas, start=1):
        try:
            out.append(sympy.sympify(k, strict=True))
        except (sympy.SympifyError, TypeError) as exc:
            raise ValueError(f"kappas[{i - 1}] is not a number or expression: {k!r}") from exc
    return out


# ---------------------------------------------------------------------------
# jump law rho
# ---------------------------------------------------------------------------


def from_beta(beta: object) -> tuple[Expr, Expr]:
    r"""Return :math:`(\theta_1, \theta_2) = (e^{\beta^2} - 1, \beta^2)`.

    Parameters
    ----------
    beta : number or sympy.Expr
        Inverse temperature of the softmax.

    Returns
    -------
    tuple of sympy.Expr
        ``(theta1, theta2)``.

    Notes
    -----
    .. math:: \theta_1 = e^{\beta^2} - 1, \qquad \theta_2 = \beta^2 .

    Examples
    --------
    >>> from_beta(1)
    (-1 + E, 1)
    """
    try:
        b = sympy.sympify(beta, strict=True)
    except (sympy.SympifyError, TypeError) as exc:
        raise ValueError(f"beta must be a number or SymPy expression, got {beta!r}") from exc
    if b.is_number and not (b.is_extended_real and b.is_finite):
        raise ValueError(f"beta must be real and finite, got {beta!r}")
    if b.is_zero:
        raise ValueError("beta must be non-zero (theta1 = 0 makes the limit law degenerate)")
    return ex.theta1().subs(beta_symbol, b), ex.theta2().subs(beta_symbol, b)


def narayana_moments(n: int, y: object) -> list[Expr]:
    r"""Moments :math:`\mathbb{E}x^k`, :math:`k = 1..n`, of the mean-one MP law of ratio y.

    Parameters
    ----------
    n : int
        Number of moments, ``n >= 1``.
    y : number or sympy.Expr
        Ratio, ``y > 0``.

    Returns
    -------
    list of sympy.Expr
        ``[E x, E x^2, ..., E x^n]``.

    Notes
    -----
    The moments are the Narayana polynomials

    .. math:: \mathbb{E}\,x^k = \sum_{j=1}^{k} N(k, j)\, y^{j-1},
              \qquad N(k, j) = \frac{1}{k}\binom{k}{j}\binom{k}{j-1}.
    """
    n = integer(n, "n", 1)
    y = _check_param("y", y, strict=True)
    return [
        sympy.expand(sum(binomial(k, j) * binomial(k, j - 1) / k * y ** (j - 1)
                         for j in range(1, k + 1)))
        for k in range(1, n + 1)
    ]


def jump_moments(n: int, theta1: object, theta2: object, y: object) -> list[Expr]:
    r"""First n moments of the jump law :math:`\rho` (the free cumulants of :math:`\nu_\infty`).

    Parameters
    ----------
    n : int
        Number of moments, ``n >= 1``.
    theta1, theta2 : number or sympy.Expr
        :math:`\theta_1 > 0`, :math:`\theta_2 \ge 0`.
    y : number or sympy.Expr
        Ratio :math:`\ell / d_{qk} > 0`.

    Returns
    -------
    list of sympy.Expr
        ``[E t, ..., E t^n]`` for :math:`t \sim \rho`, expanded.

    Notes
    -----
    With :math:`a = \theta_1 - \theta_2` and :math:`x \sim \mathrm{MP}_y`,

    .. math:: \kappa_k(\nu_\infty) = \mathbb{E}\,t^k
              = \sum_{j=0}^{k} \binom{k}{j} a^{k-j} \theta_2^{j}\, \mathbb{E}\,x^j .

    Examples
    --------
    >>> import sympy as sp
    >>> t1, t2, y = sp.symbols("theta1 theta2 y")
    >>> jump_moments(2, t1, t2, y)
    [theta1, theta1**2 + theta2**2*y]
    """
    n = integer(n, "n", 1)
    E, gens = _ring_of(theta1, theta2, y)
    return [E.to_sympy(k) for k in _jump_moments_ring(n, *gens)]


def _ring_of(theta1: object, theta2: object, y: object) -> tuple:
    """Check the parameters and put them in one polynomial ring (exact arithmetic)."""
    t1 = _check_param("theta1", theta1, strict=True)
    t2 = _check_param("theta2", theta2, strict=False)
    yy = _check_param("y", y, strict=True)
    E = ExactRing([t1, t2, yy])
    return E, [E(t1), E(t2), E(yy)]


def _jump_moments_ring(n: int, t1, t2, y) -> list:
    """Moments 1..n of rho as elements of the ring of ``t1, t2, y`` (see jump_moments)."""
    one = t1.ring.one
    ex = [one]
    for k in range(1, n + 1):  # Narayana polynomials
        ex.append(sum((int(binomial(k, j) * binomial(k, j - 1)) // k * y ** (j - 1)
                       for j in range(1, k + 1)), t1.ring.zero))
    a = t1 - t2
    a_pow, t2_pow = [one], [one]
    for _ in range(n):
        a_pow.append(a_pow[-1] * a)
        t2_pow.append(t2_pow[-1] * t2)
    return [
        sum((int(binomial(k, j)) * a_pow[k - j] * t2_pow[j] * ex[j] for j in range(k + 1)),
            t1.ring.zero)
        for k in range(1, n + 1)
    ]


# ---------------------------------------------------------------------------
# free cumulants -> moments, route 1: non-crossing recursion
# ---------------------------------------------------------------------------


def moments_from_free_cumulants(kappas: Sequence[object]) -> list[Expr]:
    r"""Moments from free cumulants by the non-crossing-partition recursion.

    Parameters
    ----------
    kappas : sequence
        Free cumulants :math:`\kappa_1, \dots, \kappa_K` (numbers or SymPy expressions).

    Returns
    -------
    list of sympy.Expr
        Moments :math:`m_1, \dots, m_K`, expanded.

    Notes
    -----
    Splitting a non-crossing partition at the block that contains 1 gives, with
    :math:`m_0 = 1` and :math:`M(w) = \sum_{i \ge 0} m_i w^i`,

    .. math:: m_n = \sum_{s=1}^{n} \kappa_s
              \sum_{i_1 + \dots + i_s = n - s} m_{i_1} \cdots m_{i_s}
              = \sum_{s=1}^{n} \kappa_s\, [w^{n-s}]\, M(w)^s .

    The table :math:`P_{s,j} = [w^j] M^s` is filled by increasing :math:`s + j`, which
    needs only moments already known: :math:`O(K^3)` ring operations.

    Examples
    --------
    >>> moments_from_free_cumulants([1, 1, 1, 1])   # free Poisson: Catalan sums
    [1, 2, 5, 14]
    """
    kappas = _check_cumulants(kappas)
    E = ExactRing(kappas)
    return [E.to_sympy(v) for v in _nc_recursion(E.ring, [E(k) for k in kappas])]


def _nc_recursion(R, kr: list) -> list:
    """Route 1 on ring elements: moments m_1..m_K from free cumulants ``kr``."""
    K = len(kr)
    one, zero = R.one, R.zero
    m = [one]
    # P[s][j] = [w^j] M(w)^s, for s + j <= current stage
    P: list[list] = [[one]] + [[one] for _ in range(K)]
    for n in range(1, K + 1):
        for s in range(1, n):
            j = n - s  # fill P[s][j] from m_0..m_j and P[s-1][0..j]
            prev = P[s - 1]
            acc = zero
            for i in range(j + 1):
                if j - i < len(prev):
                    acc += m[i] * prev[j - i]
            P[s].append(acc)
        m.append(sum((kr[s - 1] * P[s][n - s] for s in range(1, n + 1)), zero))
    return m[1:]


# ---------------------------------------------------------------------------
# free cumulants -> moments, route 2: functional equation in power series
# ---------------------------------------------------------------------------


def moments_from_free_cumulants_series(kappas: Sequence[object]) -> list[Expr]:
    r"""Moments from free cumulants by solving the R-transform functional equation.

    Parameters
    ----------
    kappas : sequence
        Free cumulants :math:`\kappa_1, \dots, \kappa_K`.

    Returns
    -------
    list of sympy.Expr
        Moments :math:`m_1, \dots, m_K`, expanded.

    Notes
    -----
    The moment series :math:`M(w) = 1 + \sum_{n \ge 1} m_n w^n` satisfies

    .. math:: M(w) = 1 + \sum_{n \ge 1} \kappa_n\, \bigl(w M(w)\bigr)^n ,

    the R-transform relation :math:`G(R(w) + 1/w) = w` written for moment series. With
    :math:`\Phi(u) = 1 + \sum_n \kappa_n u^n`, the series :math:`u(w) = w M(w)` solves
    :math:`u = w\,\Phi(u)`, so Lagrange inversion gives every order directly:

    .. math:: m_n = [w^{n+1}]\, u(w) = \frac{1}{n+1}\, [u^n]\, \Phi(u)^{n+1} .

    The powers :math:`\Phi^{n+1}` are built in truncated power series
    (``sympy.polys.ring_series.rs_mul``), :math:`O(K^3)` ring operations. This route
    shares no code with :func:`moments_from_free_cumulants` (whose recursion sums
    :math:`\kappa_s [w^{n-s}] M^s` over moments already found).

    Examples
    --------
    >>> moments_from_free_cumulants_series([1, 1, 1, 1])
    [1, 2, 5, 14]
    """
    kappas = _check_cumulants(kappas)
    E = ExactRing(kappas)
    return [E.to_sympy(v) for v in _lagrange_inversion(E.ring, [E(k) for k in kappas])]


def _lagrange_inversion(R, kr: list) -> list:
    """Route 2 on ring elements: m_n = [u^n] Phi(u)^(n+1) / (n+1), Phi = 1 + sum kappa_n u^n."""
    K = len(kr)
    D = R.to_domain()
    S, u = ring([sympy.Dummy("u")], D)
    phi = S.one + sum((D.convert(k) * u**n for n, k in enumerate(kr, start=1)), S.zero)
    power = phi  # Phi^(n+1), truncated after u^K
    out = []
    for n in range(1, K + 1):
        power = rs_mul(power, phi, u, K + 1)
        coeff = R(power.coeff(u**n))
        quotient = coeff.quo_ground(R.domain.convert(n + 1))
        if R.domain.is_Exact and quotient * (n + 1) != coeff:  # Lagrange: always divisible
            raise ArithmeticError(f"[u^{n}] Phi^{n + 1} not divisible by {n + 1}")
        out.append(quotient)
    return out


# ---------------------------------------------------------------------------
# the limit law and its i.i.d. surrogate
# ---------------------------------------------------------------------------


def limit_moments(K: int, theta1: object, theta2: object, y: object) -> list[Expr]:
    r"""Moments :math:`m_1, \dots, m_K` of :math:`\nu_\infty = \rho \boxtimes \mathrm{MP}_1`.

    Parameters
    ----------
    K : int
        Number of moments, ``K >= 1``.
    theta1, theta2 : number or sympy.Expr
        :math:`\theta_1 > 0`, :math:`\theta_2 \ge 0`.
    y : number or sympy.Expr
        Ratio :math:`\ell / d_{qk} > 0`.

    Returns
    -------
    list of sympy.Expr
        Expanded moments (polynomials in the generators of the input).

    Notes
    -----
    Free cumulants :math:`\kappa_n = \mathbb{E}_\rho t^n` (:func:`jump_moments`) and the
    non-crossing recursion (:func:`moments_from_free_cumulants`):

    .. math:: m_n = \sum_{s=1}^{n} \kappa_s \sum_{i_1+\dots+i_s = n-s}
              m_{i_1}\cdots m_{i_s}, \qquad m_1 = \theta_1,\;
              m_2 = 2\theta_1^2 + y\,\theta_2^2 .

    Examples
    --------
    >>> import sympy as sp
    >>> limit_moments(3, 1, 0, 1)      # theta2 = 0: MP_1 moments
    [1, 2, 5]
    """
    K = integer(K, "K", 1)
    E, gens = _ring_of(theta1, theta2, y)
    return [E.to_sympy(v) for v in _nc_recursion(E.ring, _jump_moments_ring(K, *gens))]


def limit_moments_functional(K: int, theta1: object, theta2: object, y: object) -> list[Expr]:
    r"""Moments of :math:`\nu_\infty` by the functional equation (second, independent route).

    Parameters
    ----------
    K : int
        Number of moments, ``K >= 1``.
    theta1, theta2, y : number or sympy.Expr
        As in :func:`limit_moments`.

    Returns
    -------
    list of sympy.Expr
        Expanded moments :math:`m_1, \dots, m_K`.

    Notes
    -----
    .. math:: M(w) = 1 + \sum_{n\ge1} \kappa_n\, w^n M(w)^n,
              \qquad \kappa_n = \mathbb{E}_\rho\, t^n,

    solved by Lagrange inversion (:func:`moments_from_free_cumulants_series`).

    Examples
    --------
    >>> limit_moments_functional(3, 1, 0, 1)
    [1, 2, 5]
    """
    K = integer(K, "K", 1)
    E, gens = _ring_of(theta1, theta2, y)
    return [E.to_sympy(v) for v in _lagrange_inversion(E.ring, _jump_moments_ring(K, *gens))]


def mp_surrogate_moments(K: int, theta1: object) -> list[Expr]:
    r"""Moments of the i.i.d. surrogate :math:`\theta_1 \cdot \mathrm{MP}_1`.

    Parameters
    ----------
    K : int
        Number of moments, ``K >= 1``.
    theta1 : number or sympy.Expr
        Scale :math:`\theta_1 > 0`.

    Returns
    -------
    list of sympy.Expr
        ``[theta1**n * Catalan(n) for n = 1..K]``.

    Notes
    -----
    .. math:: \int x^n \, d(\theta_1 \mathrm{MP}_1)(x) = \theta_1^n\, C_n,
              \qquad C_n = \frac{1}{n+1}\binom{2n}{n}.
    """
    K = integer(K, "K", 1)
    t1 = _check_param("theta1", theta1, strict=True)
    return [sympy.expand(t1**n * catalan(n)) for n in range(1, K + 1)]


def mp_edge(theta1: object) -> Expr:
    r"""Right edge :math:`4\theta_1` of the surrogate :math:`\theta_1 \cdot \mathrm{MP}_1`.

    Parameters
    ----------
    theta1 : number or sympy.Expr
        Scale :math:`\theta_1 > 0`.

    Returns
    -------
    sympy.Expr

    Notes
    -----
    .. math:: \operatorname{supp}\,\theta_1 \mathrm{MP}_1 = [0, (1 + 1)^2 \theta_1]
              = [0, 4\theta_1].

    Examples
    --------
    >>> mp_edge(3)
    12
    """
    return 4 * _check_param("theta1", theta1, strict=True)
