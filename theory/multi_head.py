r"""Multi-head attention and the layer's output: their limit laws and exact moments
(docs/math.md §7).

h heads of n tokens, key, value and output widths d_K, d_V, d_O, with
:math:`\gamma_K = h d_K/n`, :math:`\gamma_V = h d_V/n`, :math:`\gamma_O = d_O/n`. The laws,
as the theory states them (``route="stated"``):

* attention, the law of :math:`\sqrt{n/h}\,[A_1^\perp, \dots, A_h^\perp]`:
  :math:`\nu_{\infty,h} = \rho(1/\gamma_K) \boxtimes \mathrm{MP}_{1/h}`, where
  :math:`\rho(c)` is the law of :math:`\theta_1 - \theta_2 + \theta_2 x`,
  :math:`x \sim \mathrm{MP}_c`;
* values, the law of :math:`[A_1^\perp V_1, \dots, A_h^\perp V_h]`:
  :math:`D_{\gamma_V}(\nu_{\infty,h} \boxtimes \mathrm{MP}_{1/\gamma_V})`, and for tied
  keys and values (K = V) :math:`\pi(\mu_{KV}, h)`, :math:`\mu_{KV} = \varphi_\#\pi_{\gamma_K/h}`,
  :math:`\varphi(x) = (\theta_1 - \theta_2)x + (h\theta_2/\gamma_K)x^2`;
* output, the law of :math:`\mathrm{MHA}^\perp`: :math:`D_{1/\gamma_V}(\text{values})
  \boxtimes \pi_{\gamma_O}`, i.e. :math:`\nu_{\infty,h} \boxtimes \mathrm{MP}_{1/\gamma_V}
  \boxtimes \pi_{\gamma_O}` for independent V.

:math:`\mathrm{MP}_c` is the mean-one Marchenko--Pastur law of ratio c, :math:`\pi_t` the free
Poisson law of rate t, :math:`\pi(\mu, t)` the compound free Poisson law (free cumulants
:math:`t\,m_n(\mu)`), :math:`D_c` the dilation :math:`x \mapsto cx`. A multi-query layer (keys
and values shared by groups of heads) has the laws of independent heads: only the spectrum of
the block-diagonal covariance enters (docs/math.md §7).

The matrix model (``route="matrix"``) derives the same laws from the Gaussian model alone,
by one lemma: for Z (p×N) with i.i.d. N(0, 1) entries and T (N×N) independent with law τ,
:math:`\tfrac1p Z T Z^\top \to \pi(\tau, N/p)`. The rows of the Gaussian model
:math:`Y^G_r` are N(0, Σ_r/n) given the keys, Σ_r = θ₂K_rK_rᵀ/d_K + (θ₁ − θ₂)I with law
:math:`\rho(h/\gamma_K)` (MP ratio n/d_K), so

* attention: :math:`D_{1/h}\,\pi(\rho(h/\gamma_K), h)`;
* values: :math:`\pi(\mu_B, \gamma_V)`, the blocks :math:`V_r^\top \Sigma_r V_r/n` having law
  :math:`\mu_B = D_{\gamma_V/h}\,\pi(\rho(h/\gamma_K), h/\gamma_V)` (or, K = V,
  :math:`\varphi_\#\mathrm{MP}_{\gamma_K/h}`);
* output: :math:`\pi(\mu_{VO}, \gamma_O)`,
  :math:`\mu_{VO} = D_{\gamma_O/\gamma_V}\,\pi(\mu_B, \gamma_V/\gamma_O)`, the law of
  :math:`\Sigma_{VO} = W^{O\top} V_\oplus^\top \Sigma_\oplus V_\oplus W^O/n`.

Both are data (:class:`Law`: a base law and layers); :func:`moments` takes the stated law
through S-transforms and the matrix law through free cumulants and the non-crossing recursion
(:mod:`theory.limit_law`): the two routes share only the base law's moments.
``numerics.multi_head_law`` evaluates the same data (densities, edges).

Examples
--------
>>> import sympy as sp
>>> t1, t2, h, g = sp.symbols("theta1 theta2 h gamma_K", positive=True)
>>> law_moments("attention", 2, t1, t2, h, g)[1] == sp.expand((1 + 1/h)*t1**2 + t2**2/g)
True
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy
from sympy import Expr, binomial

from attnge.theory.inputs import integer
from attnge.theory.limit_law import _check_param, _nc_recursion
from attnge.theory.rings import ExactRing

KINDS = ("attention", "values", "output")
"""attention: √(n/h)A⊥; values: [A_r⊥V_r]; output: MHA⊥."""
SHARING = ("none", "mqa", "kv")
"""none: independent heads; mqa: keys and values shared by groups of heads (the laws of
independent heads); kv: each head's values are its keys (K = V, d_K = d_V)."""
ROUTES = ("stated", "matrix")

__all__ = ["KINDS", "Law", "Layer", "ROUTES", "SHARING", "chain", "law", "law_moments", "moments"]


@dataclass(frozen=True)
class Layer:
    r"""One step from a law μ to the next, on moment series :math:`\psi(z) = \sum_n m_n z^n`.

    ``kind="free"``: :math:`u = s\,\psi_\mu(z(a + c u))` for :math:`u = \psi_{\rm new}`, i.e.
    :math:`\zeta_{\rm new}(w) = (a + c w)\,\zeta_\mu(w/s)` with :math:`\zeta = 1/\chi`
    (:math:`\chi = \psi^{-1}`). It is :math:`\pi(\mu, t)` for ``(s, a, c) = (t, 1, 1)``,
    :math:`\mu \boxtimes \mathrm{MP}_c` for ``(1, 1, c)`` and :math:`\mu \boxtimes \pi_t` for
    ``(1, t, 1)`` (S-transforms :math:`S_\mu(w/t)/(t + w)`, :math:`S_\mu(w)/(1 + cw)`,
    :math:`S_\mu(w)/(t + w)`). ``kind="dilate"``: :math:`D_s\mu`, :math:`m_n \mapsto s^n m_n`.
    """

    kind: str
    s: Expr
    a: Expr = sympy.Integer(1)
    c: Expr = sympy.Integer(1)

    @property
    def compound(self) -> bool:
        """Whether this is π(μ, s) (a = c = 1), the one free layer of the matrix model."""
        return self.kind == "free" and self.a == 1 and self.c == 1


def compound(t: Expr) -> Layer:
    """π(μ, t), the compound free Poisson law of rate t and jump law μ."""
    return Layer("free", t)


def times_mp(c: Expr) -> Layer:
    """μ ⊠ MP_c."""
    return Layer("free", sympy.Integer(1), sympy.Integer(1), c)


def times_poisson(t: Expr) -> Layer:
    """μ ⊠ π_t."""
    return Layer("free", sympy.Integer(1), t, sympy.Integer(1))


def dilate(s: Expr) -> Layer:
    """D_s μ, the law of s x."""
    return Layer("dilate", s)


@dataclass(frozen=True)
class Law:
    r"""A base law :math:`p_\#\mathrm{MP}_r` (the law of :math:`p(x) = \sum_k p_k x^k`,
    :math:`x \sim \mathrm{MP}_r`, deg p ≤ 2) taken through ``layers`` in order."""

    poly: tuple[Expr, ...]
    ratio: Expr
    layers: tuple[Layer, ...]


def law(kind: str, theta1: object, theta2: object, heads: object, gamma_k: object,
        gamma_v: object = None, gamma_o: object = None, sharing: str = "none",
        route: str = "stated") -> Law:
    r"""The law of ``kind`` (``KINDS``) for ``sharing`` (``SHARING``) by ``route``.

    Parameters
    ----------
    kind : {"attention", "values", "output"}
    theta1, theta2 : number or sympy.Expr
        :math:`\theta_1 > 0`, :math:`\theta_2 \ge 0`.
    heads, gamma_k, gamma_v, gamma_o : number or sympy.Expr
        h and the ratios :math:`\gamma_K = h d_K/n`, :math:`\gamma_V = h d_V/n`,
        :math:`\gamma_O = d_O/n` (positive; ``gamma_v`` for values and output,
        ``gamma_o`` for output; K = V needs :math:`\gamma_V = \gamma_K`).
    sharing : {"none", "mqa", "kv"}
    route : {"stated", "matrix"}

    Returns
    -------
    Law

    Notes
    -----
    See the module docstring for both routes' formulas.
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)} (got {kind!r})")
    if sharing not in SHARING:
        raise ValueError(f"sharing must be one of {', '.join(SHARING)} (got {sharing!r})")
    if route not in ROUTES:
        raise ValueError(f"route must be one of {', '.join(ROUTES)} (got {route!r})")
    t1 = _check_param("theta1", theta1, strict=True)
    t2 = _check_param("theta2", theta2, strict=False)
    if (t1 - t2).is_negative:
        raise ValueError(f"theta2 must be at most theta1 (theta1 - theta2 is a variance), got "
                         f"theta1={t1}, theta2={t2}")
    h = _check_param("heads", heads, strict=True)
    gk = _check_param("gamma_k", gamma_k, strict=True)
    gv = gk if gamma_v is None and kind == "attention" else \
        _check_param("gamma_v", gamma_v, strict=True)
    go = None if kind != "output" else _check_param("gamma_o", gamma_o, strict=True)
    if sharing == "kv" and kind != "attention" and sympy.simplify(gv - gk) != 0:
        raise ValueError(f"gamma_v must equal gamma_k for tied keys and values (d_V = d_K), "
                         f"got gamma_v={gv}, gamma_k={gk}")
    a, one = t1 - t2, sympy.Integer(1)
    if kind == "attention" or sharing != "kv":
        if route == "stated":
            base, layers = ((a, t2), 1 / gk), [times_mp(1 / h)]
            if kind != "attention":
                layers += [times_mp(1 / gv), dilate(gv)]
        else:
            base, layers = ((a, t2), h / gk), [compound(h), dilate(1 / h)]
            if kind != "attention":
                layers = [compound(h / gv), dilate(gv / h), compound(gv)]
    else:
        lam, quad = gk / h, h * t2 / gk
        if route == "stated":   # phi_# pi_lam, pi_lam = D_lam MP_(1/lam)
            base, layers = ((0, a * lam, quad * lam**2), 1 / lam), [compound(h)]
        else:
            base, layers = ((0, a, quad), lam), [compound(gv)]
    if kind == "output":
        if route == "stated":
            layers += [dilate(1 / gv), times_poisson(go)]
        else:   # pi(mu_B, gamma_V) -> pi(D_(gO/gV) pi(mu_B, gV/gO), gO)
            layers = layers[:-1] + [compound(gv / go), dilate(go / gv), compound(go)]
    poly = tuple(sympy.sympify(p) for p in base[0])
    return Law(poly, sympy.sympify(base[1]) * one, tuple(layers))


def chain(law_: Law, values: dict, number) -> tuple[list, object, list]:
    r"""A matrix-route law in another arithmetic: ``(poly, ratio, layers)``.

    ``values`` gives each free symbol of the law a number; ``number(p, q)`` makes the rational
    p/q in the target arithmetic (an arb ball, an mpmath interval). Only rationals, those
    symbols, sums, products and integer powers are allowed, so nothing is rounded outside
    that arithmetic. ``poly`` drops its exact zero top coefficients; ``layers`` are
    ``("compound", t)`` for π(μ, t) and ``("dilate", c)`` for D_c.
    """

    def value(expr):
        expr = sympy.sympify(expr)
        if expr.is_Rational:
            return number(int(expr.p), int(expr.q))
        if expr.is_Symbol:
            return values[expr]
        if expr.is_Add or expr.is_Mul:
            out = value(expr.args[0])
            for arg in expr.args[1:]:
                out = out + value(arg) if expr.is_Add else out * value(arg)
            return out
        if expr.is_Pow and expr.exp.is_Integer:
            base, n = value(expr.base), int(expr.exp)
            return base**n if n >= 0 else 1 / base ** (-n)
        raise ValueError(f"cannot evaluate {expr} exactly in another arithmetic")

    poly = list(law_.poly)
    while len(poly) > 1 and sympy.sympify(poly[-1]) == 0:
        poly.pop()
    layers = []
    for layer in law_.layers:
        if layer.kind == "dilate":
            layers.append(("dilate", value(layer.s)))
        elif layer.compound:
            layers.append(("compound", value(layer.s)))
        else:
            raise ValueError("a chain takes compound free Poisson layers and dilations only "
                             "(the matrix route)")
    return [value(c) for c in poly], value(law_.ratio), layers


# ---------------------------------------------------------------------------
# moments
# ---------------------------------------------------------------------------


def _base_moments(n: int, law_: Law, R) -> list:
    r"""Moments 1..n of :math:`p(x)`, :math:`x \sim \mathrm{MP}_r`, in the ring R (Narayana
    polynomials :math:`\mathbb{E}x^k = \sum_j N(k, j) r^{j-1}`, then :math:`p(x)^k` expanded)."""
    r = R(law_.ratio)
    mp_moments = [R.one] + [sum((int(binomial(k, j) * binomial(k, j - 1)) // k * r ** (j - 1)
                                 for j in range(1, k + 1)), R.zero) for k in range(1, 2 * n + 1)]
    poly = [R(c) for c in law_.poly]
    power = [R.one]        # coefficients of p(x)^k, low degree first
    out = []
    for _ in range(n):
        new = [R.zero] * (len(power) + len(poly) - 1)
        for i, u in enumerate(power):
            for j, v in enumerate(poly):
                new[i + j] += u * v
        power = new
        out.append(sum((c * mp_moments[i] for i, c in enumerate(power)), R.zero))
    return out


def _free_layer(m: list, s, a, c, R) -> list:
    r"""Moments of the law after a free layer: :math:`u = s\,\psi_\mu(z(a + cu))`, order by order.

    :math:`[z^n]u = s \sum_{k=1}^{n} m_k\, [z^{n-k}] (a + c u)^k`, and
    :math:`[z^j](a + cu)^k` needs u to order j < n only; a table of these is filled as the
    orders come (:math:`O(n^3)` ring operations).
    """
    K = len(m)
    u = [R.zero]                                  # u_0 = 0
    P = [[R.one]] + [[a**k] for k in range(1, K + 1)]   # P[k][j] = [z^j](a + c u)^k
    for n in range(1, K + 1):
        for k in range(1, n):
            j = n - k   # P[k][j] = sum_i [z^i](a + cu) P[k-1][j-i], [z^0] = a, [z^i] = c u_i
            acc = a * P[k - 1][j] if j < len(P[k - 1]) else R.zero
            for i in range(1, j + 1):
                if j - i < len(P[k - 1]):
                    acc += c * u[i] * P[k - 1][j - i]
            P[k].append(acc)
        u.append(s * sum((m[k - 1] * P[k][n - k] for k in range(1, n + 1)), R.zero))
    return u[1:]


def _stated_moments(K: int, law_: Law, R) -> list:
    """Route A: the base moments through each layer's S-transform relation."""
    m = _base_moments(K, law_, R)
    for layer in law_.layers:
        s = R(layer.s)
        if layer.kind == "dilate":
            m = [s ** (n + 1) * v for n, v in enumerate(m)]
        else:
            m = _free_layer(m, s, R(layer.a), R(layer.c), R)
    return m


def _matrix_moments(K: int, law_: Law, R) -> list:
    """Route B: compound layers by free cumulants t m_n and the non-crossing recursion."""
    m = _base_moments(K, law_, R)
    for layer in law_.layers:
        s = R(layer.s)
        if layer.kind == "dilate":
            m = [s ** (n + 1) * v for n, v in enumerate(m)]
        elif layer.compound:
            m = _nc_recursion(R, [s * v for v in m])
        else:
            raise ValueError("the matrix route takes compound free Poisson layers only")
    return m


def moments(law_: Law, K: int, route: str = "stated") -> list[Expr]:
    r"""Moments :math:`m_1, \dots, m_K` of a :class:`Law`, expanded.

    ``route="stated"`` runs each free layer as its S-transform relation
    :math:`u = s\,\psi_\mu(z(a + cu))` (:func:`_free_layer`); ``route="matrix"`` takes each
    compound layer through its free cumulants :math:`\kappa_n = t\,m_n(\mu)` and the
    non-crossing recursion of :mod:`theory.limit_law` (and refuses other layers). Exact:
    the arithmetic runs in a polynomial ring over QQ whose generators are the symbols and
    atoms of the law (with 1/h, 1/γ as generators of their own; :mod:`theory.rings`).
    """
    K = integer(K, "K", 1)
    if route not in ROUTES:
        raise ValueError(f"route must be one of {', '.join(ROUTES)} (got {route!r})")
    exprs = [*law_.poly, law_.ratio]
    for layer in law_.layers:
        exprs += [layer.s, layer.a, layer.c]
    E = ExactRing(exprs)
    run = _stated_moments if route == "stated" else _matrix_moments
    return [E.to_sympy(v) for v in run(K, law_, E)]


def law_moments(kind: str, K: int, theta1: object, theta2: object, heads: object,
                gamma_k: object, gamma_v: object = None, gamma_o: object = None,
                sharing: str = "none", route: str = "stated") -> list[Expr]:
    r"""Moments :math:`m_1..m_K` of the law of ``kind`` (see :func:`law`), by ``route``.

    Notes
    -----
    Sanity values (docs/math.md §7): attention :math:`m_1 = \theta_1`,
    :math:`m_2 = (1 + 1/h)\theta_1^2 + \theta_2^2/\gamma_K`; output
    :math:`m_1 = \gamma_O\theta_1` and :math:`m_2/m_1^2 - 1 = 1/h + 1/\gamma_V + 1/\gamma_O
    + \theta_2^2/(\gamma_K\theta_1^2)`; K = V values :math:`m_1 = \gamma_K\theta_1 + h\theta_2`.

    Examples
    --------
    >>> law_moments("attention", 3, 1, 0, 1, 1)    # theta2 = 0, h = 1: MP_1
    [1, 2, 5]
    """
    return moments(law(kind, theta1, theta2, heads, gamma_k, gamma_v, gamma_o, sharing, route),
                   K, route)
