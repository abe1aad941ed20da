r"""The one description of a limit law: its parameters, fixed once, exact (docs/math.md §5, §7).

A :class:`Description` names a law of the theory by its kind and parameters; every law that
attnge computes (ν∞, ν∞,h, the values' and the output law, tied K = V, the Marchenko--Pastur
surrogate) is one. From it come the law's exact moments (:meth:`Description.moments`), its
mass at 0 (:meth:`Description.atom`) and the layered form that ``numerics`` evaluates
(:meth:`Description.layered`). ``numerics.laws.Law`` is the object users hold: a description
with densities, quantiles and samples.

Kinds (``KINDS``):

* ``"attention"``: the law of the squared singular values of :math:`\sqrt{n/h}\,[A_1^\perp,
  \dots, A_h^\perp]`: ν∞ for one head (ratio y = ℓ/d_qk), ν∞,h for h heads;
* ``"values"``, ``"output"``: the laws of :math:`[A_r^\perp V_r]` and of the layer's output
  :math:`\mathrm{MHA}^\perp` (``theory.multi_head``);
* ``"marchenko-pastur"``: the i.i.d. surrogate :math:`\theta_1\cdot\mathrm{MP}_1`.

Parameters come as the softmax's inverse temperature β (then :math:`\theta_1 = e^{\beta^2} - 1`,
:math:`\theta_2 = \beta^2`) or as (θ₁, θ₂); the ratio as y (then :math:`\gamma_K = h/y`) or as
:math:`\gamma_K = h d_K/n`. Every number is kept exact: a float is read by its decimal digits
(0.1 is 1/10), so the same β gives the same law whether it came as a float, a string or a
SymPy number.

Extension points. A law enters the code here and nowhere else: every builder of a law
(the steps' ``fits.laws``, ``mha.output_law``, the coefficient tables, the certificates)
asks :func:`describe` or :class:`Description`, and ``numerics.laws.Law`` and
``numerics.multi_head_law`` read only :meth:`Description.layered`. An attention variant
whose limit is the same linear model with other coefficients (another kernel g: θ₁[g] the
variance of g(χ), θ₂[g] the square of E g′(χ)) is a description with those θ's, which
``describe`` already takes; one that changes the law's shape (a causal mask) is a new
``kind`` with its own :meth:`Description.layered` and :meth:`Description.moments`.

Examples
--------
>>> nu = describe(beta=1, y=2)
>>> nu.theta1, nu.theta2, nu.gamma_k
(-1 + E, 1, 1/2)
>>> nu.moments(2)
[-1 + E, -4*E + 4 + 2*exp(2)]
>>> describe(theta1=1, theta2=0, y=4, heads=2, kind="output", gamma_o="1/2").atom()
1/2
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from numbers import Integral

import sympy
from sympy import Expr

from attnge.theory import limit_law as ll
from attnge.theory import multi_head as mh
from attnge.theory import symbols as sy

KINDS = ("attention", "values", "output", "marchenko-pastur")
SHARING = mh.SHARING

__all__ = ["KINDS", "SHARING", "Description", "describe", "exact"]


def exact(value: object, name: str, *, positive: bool = True) -> Expr:
    """A real number as an exact SymPy number (``theory.symbols.exact``: ratio strings such
    as "1/4" and SymPy numbers as they are, floats by their decimal digits; fractions
    exactly), ``ValueError`` naming ``name`` unless it is positive (non-negative where
    ``positive`` is False)."""
    if isinstance(value, Fraction):
        value = sympy.Rational(value.numerator, value.denominator)
    out = sy.exact(value, name)
    if not out.is_number or out.is_negative or (positive and out.is_zero):
        raise ValueError(f"{name} must be {'positive' if positive else 'non-negative'} "
                         f"(got {value!r})")
    return out


@dataclass(frozen=True)
class Description:
    r"""A limit law of the theory, its parameters exact and fixed once.

    Build it with :func:`describe`. Fields: ``kind`` (``KINDS``), ``theta1``, ``theta2``,
    ``heads`` (h), ``gamma_k`` (:math:`\gamma_K = h d_K/n`; one head: 1/y), ``gamma_v`` and
    ``gamma_o`` (values and output), ``sharing`` (``SHARING``), and ``beta`` when the law
    was given by its temperature.
    """

    kind: str
    theta1: Expr
    theta2: Expr
    heads: int = 1
    gamma_k: Expr = sympy.Integer(1)
    gamma_v: Expr | None = None
    gamma_o: Expr | None = None
    sharing: str = "none"
    beta: Expr | None = None

    @property
    def y(self) -> Expr:
        """The ratio y = h/γ_K (one head: ℓ/d_qk)."""
        return self.heads / self.gamma_k

    @property
    def single(self) -> bool:
        """Whether this is ν∞ itself: one head's attention (its own closed forms apply)."""
        return self.kind == "attention" and self.heads == 1

    def layered(self, route: str = "stated") -> mh.Law:
        """The law as a base :math:`p_\\#\\mathrm{MP}_r` taken through free layers
        (``theory.multi_head``): the form ``numerics.multi_head_law`` evaluates. The
        surrogate :math:`\\theta_1\\cdot\\mathrm{MP}_1` is the base p(x) = θ₁x, r = 1."""
        if self.kind == "marchenko-pastur":
            return mh.Law((sympy.Integer(0), self.theta1), sympy.Integer(1), ())
        return mh.law(self.kind, self.theta1, self.theta2, self.heads, self.gamma_k,
                      self.gamma_v, self.gamma_o, self.sharing, route)

    def moments(self, K: int) -> list[Expr]:
        r"""The exact moments :math:`m_1, \dots, m_K`.

        Notes
        -----
        ν∞: :math:`\nu_\infty = \rho \boxtimes \mathrm{MP}_1` by Lagrange inversion
        (``theory.limit_law.limit_moments``); the surrogate: :math:`\theta_1^n C_n`; the
        multi-head laws: through their S-transforms (``theory.multi_head.moments``). The
        other routes (the functional equation, the matrix model) are the checks of these.
        """
        if self.single:
            return ll.limit_moments(K, self.theta1, self.theta2, self.y)
        if self.kind == "marchenko-pastur":
            return ll.mp_surrogate_moments(K, self.theta1)
        return mh.moments(self.layered(), K)

    def atom(self) -> Expr:
        r"""The law's mass at 0, exact.

        Notes
        -----
        The base :math:`p_\#\mathrm{MP}_r` has :math:`\max(0, 1 - 1/r)` at 0 when p(0) = 0,
        else none; then, layer by layer, :math:`\pi(\mu, t)` has :math:`\max(0, 1 - t(1 -
        \mu\{0\}))`, :math:`\mu \boxtimes \nu` has :math:`\max(\mu\{0\}, \nu\{0\})` (for
        :math:`\nu = \mathrm{MP}_c`: :math:`\max(0, 1 - 1/c)`; for :math:`\pi_t`:
        :math:`\max(0, 1 - t)`), and a dilation keeps it. Atoms away from 0 do not survive
        a free layer, and every kind but the surrogate has one.
        """
        law = self.layered()
        zero = sympy.Integer(0)
        mass = sympy.Max(zero, 1 - 1 / law.ratio) if law.poly[0] == 0 else zero
        for layer in law.layers:
            if layer.kind == "dilate":
                continue
            if layer.compound:
                mass = sympy.Max(zero, 1 - layer.s * (1 - mass))
            elif layer.s == 1 and layer.a == 1:         # times MP_c
                mass = sympy.Max(mass, zero, 1 - 1 / layer.c)
            elif layer.s == 1 and layer.c == 1:         # times pi_t
                mass = sympy.Max(mass, zero, 1 - layer.a)
            else:
                raise ValueError(f"no atom rule for the layer {layer}")
        return sympy.nsimplify(mass) if mass.is_number else mass


def describe(beta: object = None, y: object = None, *, theta1: object = None,
             theta2: object = None, heads: object = 1, gamma_k: object = None,
             gamma_v: object = None, gamma_o: object = None, kind: str = "attention",
             sharing: str = "none") -> Description:
    r"""The description of a law from its natural parameters (β, y) or from (θ₁, θ₂, γ_K).

    Parameters
    ----------
    beta : number, optional
        Inverse temperature, 0 < β ≤ 6 (as everywhere in attnge):
        :math:`\theta_1 = e^{\beta^2} - 1`, :math:`\theta_2 = \beta^2`. Give either ``beta``
        or both ``theta1`` and ``theta2``.
    y : number, optional
        Ratio y > 0: one head's ℓ/d_qk; h heads have :math:`\gamma_K = h/y`. Give either
        ``y`` or ``gamma_k`` (not needed for the surrogate).
    theta1, theta2 : number, optional
        :math:`\theta_1 > 0`, :math:`0 \le \theta_2 \le \theta_1`.
    heads : int
        Number of heads h ≥ 1.
    gamma_k, gamma_v, gamma_o : number, optional
        :math:`\gamma_K = h d_K/n`, :math:`\gamma_V = h d_V/n` (default γ_K),
        :math:`\gamma_O = d_O/n` (default γ_V).
    kind : {"attention", "values", "output", "marchenko-pastur"}
    sharing : {"none", "mqa", "kv"}
        Independent heads, keys and values shared by groups of heads, or tied K = V.

    Returns
    -------
    Description

    Raises
    ------
    ValueError
        One line naming the parameter, for any value out of range or a missing or
        conflicting one.
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)} (got {kind!r})")
    if sharing not in SHARING:
        raise ValueError(f"sharing must be one of {', '.join(SHARING)} (got {sharing!r})")
    b = None
    if beta is not None:
        if theta1 is not None or theta2 is not None:
            raise ValueError("beta: give either beta or theta1 and theta2, not both")
        b = sy.positive_beta(beta)
        t1, t2 = ll.from_beta(b)
    elif theta1 is None or theta2 is None:
        raise ValueError("beta: give beta, or both theta1 and theta2")
    else:
        t1, t2 = exact(theta1, "theta1"), exact(theta2, "theta2", positive=False)
        if (t1 - t2).is_negative:
            raise ValueError(f"theta2 must be at most theta1 (got theta1={t1}, theta2={t2})")
    if isinstance(heads, bool) or not isinstance(heads, Integral) or heads < 1:
        raise ValueError(f"heads must be a positive integer (got {heads!r})")
    h = int(heads)
    if kind == "marchenko-pastur":
        if h != 1 or sharing != "none":
            raise ValueError("heads: the Marchenko-Pastur surrogate is one head's law")
        return Description(kind, t1, t2, beta=b)
    if (y is None) == (gamma_k is None):
        raise ValueError("y: give either y or gamma_k (gamma_k = heads/y)")
    gk = h / exact(y, "y") if gamma_k is None else exact(gamma_k, "gamma_k")
    gv = go = None
    if kind != "attention":
        gv = gk if gamma_v is None else exact(gamma_v, "gamma_v")
    elif gamma_v is not None:
        raise ValueError("gamma_v: the attention law has no values width")
    if kind == "output":
        go = gv if gamma_o is None else exact(gamma_o, "gamma_o")
    elif gamma_o is not None:
        raise ValueError("gamma_o: only the output law has an output width")
    if sharing == "kv" and gv is not None and gv != gk:
        raise ValueError(f"gamma_v must equal gamma_k for tied keys and values "
                         f"(got gamma_v={gv}, gamma_k={gk})")
    return Description(kind, t1, t2, h, gk, gv, go, sharing, b)
