r"""Attention kernels other than softmax: the coefficients of their linear model (issue 30).

An entrywise kernel g maps the scores to :math:`A = g(\beta S)/N`, with N the row sums
(``normalised``: softmax, softmax₁) or ℓ (a fixed normaliser: ReLU, sigmoid). In both cases
the centred object is :math:`\sqrt\ell A P_\perp = D^{-1}\,f(S)P_\perp/\sqrt\ell`, D → 1,
with the centred kernel

.. math:: f(x) = \frac{g(\beta x)}{E\,g(\beta\chi)} - 1 \ \text{(normalised)},\qquad
          f(x) = g(\beta x) - E\,g(\beta\chi) \ \text{(fixed normaliser)},

and the chain of docs/math.md §4 runs through f's Hermite expansion alone. Its linear model
has

.. math:: \theta_1[g] = E f(\chi)^2,\qquad \theta_2[g] = (E\,\chi f(\chi))^2
          = (E f'(\chi))^2,

and the limit law is :math:`\nu_\infty(\theta_1[g], \theta_2[g], y)`. For softmax these are
:math:`e^{\beta^2} - 1` and :math:`\beta^2` (``theory.exponential``).

Two routes, each computed from g alone: :func:`thetas` (SymPy's Gaussian integrals, exact;
None where SymPy finds no closed form) and :func:`thetas_numeric` (mpmath quadrature).

Examples
--------
>>> import sympy as sp
>>> thetas(KERNELS["softmax"], sp.Integer(1))
(-1 + E, 1)
>>> thetas(KERNELS["relu"], sp.Integer(2))
(2 - 2/pi, 1)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import mpmath
import sympy as sp

from attnge.theory.gaussian import gaussian_expectation
from attnge.theory.inputs import integer
from attnge.theory.symbols import x

ELL = sp.Symbol("ell", positive=True)
"""ℓ in a kernel's finite-size form (``Kernel.finite``)."""
STATUSES = ("theorem", "derived", "conjecture")
"""What covers a kernel's prediction: the theorem (softmax); the theorem's argument, step
by step, for another g (derived); or neither (conjecture)."""


@dataclass(frozen=True)
class Kernel:
    r"""An entrywise attention kernel :math:`A = g(\beta S)/N`.

    Parameters
    ----------
    name : str
    g : sympy.Expr
        g as a function of ``theory.symbols.x`` (the score times β).
    normalised : bool
        N is the row sum (softmax-like) when True, ℓ (a fixed normaliser) when False.
    status : str
        One of ``STATUSES``.
    why : str
        What the status rests on, in one sentence.
    finite : sympy.Expr, optional
        The kernel as sampled at ℓ tokens, in x and ``ELL`` (default: g itself), when g is
        only its limit.
    plus_one : bool
        An extra 1 in each row's sum (softmax₁).
    cosine : bool
        The scores are :math:`\sqrt{d_{qk}}\cos(q_i, k_j)` (QK-norm, its gain β) instead
        of :math:`q_i\cdot k_j/\sqrt{d_{qk}}`.
    """

    name: str
    g: sp.Expr
    normalised: bool
    status: str
    why: str
    finite: sp.Expr | None = None
    plus_one: bool = False
    cosine: bool = False

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {', '.join(STATUSES)} "
                             f"(got {self.status!r})")
        if self.g.free_symbols - {x}:
            raise ValueError(f"a kernel is a function of x alone (got {self.g})")
        if self.finite is not None and self.finite.free_symbols - {x, ELL}:
            raise ValueError(f"a finite-size kernel is a function of x and ell "
                             f"(got {self.finite})")


def _sigmoid(shift: sp.Expr) -> sp.Expr:
    return 1 / (1 + sp.exp(-(x + shift)))


KERNELS = {
    "softmax": Kernel("softmax", sp.exp(x), True, "theorem",
                      "the theorem of Hayase, Collins and Karakida"),
    "relu": Kernel("relu", sp.Max(0, x), False, "derived",
                   "ReLU(βS)/ℓ: the chain from Y^f on, with f the centred ReLU; no "
                   "normaliser to remove"),
    "sigmoid": Kernel("sigmoid", _sigmoid(0), False, "derived",
                      "sigmoid(βS + b)/ℓ with b = 0: the chain from Y^f on, with f the "
                      "centred sigmoid"),
    "square": Kernel("square", x**2, True, "derived",
                     "a normalised even polynomial: the chain with f = x²/E x² − 1, whose "
                     "linear Hermite coefficient is 0"),
    "softmax1": Kernel("softmax1", sp.exp(x), True, "derived",
                       "softmax with an extra 1 in each row's sum, which adds "
                       "1/(ℓe^{β²/2}) to D: softmax's limit", plus_one=True),
    "qk-norm": Kernel("qk-norm", sp.exp(x), True, "derived",
                      "softmax of β√d_qk cos(q_i, k_j): each score has variance 1 exactly and "
                      "the queries' and keys' norms no longer enter (ρ_jj = 1), which the "
                      "theorem's limit does not see", cosine=True),
    "sigmoid-log": Kernel("sigmoid-log", sp.exp(x), False, "derived",
                          "sigmoid(βS − log ℓ) = e^{βS}/ℓ · (1 + e^{βS}/ℓ)^{-1}: e^{βS}/ℓ "
                          "in the limit, a fixed normaliser",
                          finite=ELL / (1 + ELL * sp.exp(-x))),
}
"""The named kernels. softmax₁ and sigmoid with bias −log ℓ are sampled as they are at ℓ
tokens and predicted by their limits; QK-norm changes the scores, not the kernel."""


def sigmoid(bias: object) -> Kernel:
    """The sigmoid with a fixed bias b, σ(βS + b)/ℓ (a fixed normaliser); b = 0 is
    ``KERNELS["sigmoid"]``."""
    b = sp.nsimplify(bias)
    if not (b.is_real and b.is_finite):
        raise ValueError(f"bias must be a finite number (got {bias!r})")
    return Kernel(f"sigmoid(bias={sp.sstr(b)})", _sigmoid(b), False, "derived",
                  "σ(βS + b)/ℓ with a fixed b: the chain from Y^f on, with f the centred "
                  "sigmoid")


def parse(text: str, normalised: bool = True) -> Kernel:
    """A kernel from its name (``KERNELS``) or an expression in x, such as ``"x**4"`` or
    ``"exp(x) + 1"`` (a conjecture unless it is a named one). ValueError naming
    ``kernel``."""
    if text in KERNELS:
        return KERNELS[text]
    try:
        g = sp.sympify(text, locals={"x": x})
    except (sp.SympifyError, SyntaxError, TypeError, ValueError):
        raise ValueError(f"kernel must be a name ({', '.join(KERNELS)}) or an expression in "
                         f"x (got {text!r}, which does not parse)") from None
    if not isinstance(g, sp.Expr) or g.free_symbols - {x}:
        raise ValueError(f"kernel must be an expression in x alone (got {text!r})")
    return Kernel(text, g, normalised, "conjecture",
                  "no argument of the theorem has been carried out for it")


def centred(kernel: Kernel, beta: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    """(f(x), E g(βχ)): the centred kernel and the mean it removes (module docstring);
    the mean is None where SymPy finds no closed form."""
    g = kernel.g.subs(x, beta * x)
    mean = _expectation(g)
    if mean is None:
        return None, None
    if kernel.normalised:
        if mean == 0:
            raise ValueError(f"a normalised kernel needs E g(beta chi) != 0 ({kernel.name})")
        return g / mean - 1, mean
    return g - mean, mean


def _expectation(expr: sp.Expr) -> sp.Expr | None:
    """E expr(χ), χ ~ N(0, 1), in closed form: sums of polynomial × exp(linear) by
    ``theory.gaussian`` (no integration), a piecewise one (Max, Abs, Heaviside) piece by
    piece by SymPy's integration over each piece's interval; None otherwise (no closed form
    is sought: a sigmoid's has none)."""
    expr = expr.rewrite(sp.exp) if expr.has(sp.sinh, sp.cosh) else expr
    try:
        return sp.simplify(gaussian_expectation(expr, x))
    except (ValueError, TypeError, sp.PolynomialError):
        pass
    folded = sp.piecewise_fold(expr.rewrite(sp.Piecewise))
    if not isinstance(folded, sp.Piecewise):
        return None
    total, covered = sp.Integer(0), sp.EmptySet
    for piece, condition in folded.args:
        where = condition.as_set().intersect(sp.Reals) - covered
        covered = covered | where
        for interval in (where.args if isinstance(where, sp.Union) else (where,)):
            if interval is sp.EmptySet or piece == 0:
                continue
            if not isinstance(interval, sp.Interval) or not _gaussian_form(piece):
                return None
            total += sp.integrate(piece * sp.exp(-x**2 / 2), (x, interval.start, interval.end))
    if total.has(sp.Integral):
        return None
    return sp.simplify(total / sp.sqrt(2 * sp.pi))


def _gaussian_form(expr: sp.Expr) -> bool:
    """Whether expr is a sum of polynomial × exp(linear) terms in x (whose Gaussian
    integral over an interval SymPy gives in closed form, with erf)."""
    try:
        gaussian_expectation(expr, x)
    except (ValueError, TypeError, sp.PolynomialError):
        return False
    return True


@lru_cache(maxsize=512)
def thetas(kernel: Kernel, beta: object) -> tuple[sp.Expr, sp.Expr] | None:
    r""":math:`(\theta_1[g], \theta_2[g])` exactly, from SymPy's Gaussian integrals of g; None
    where one of them has no closed form that SymPy finds.

    .. math:: \theta_1 = E f(\chi)^2,\qquad \theta_2 = (E\,\chi f(\chi))^2
    """
    beta = sp.nsimplify(beta) if not isinstance(beta, sp.Basic) else beta
    f, _ = centred(kernel, beta)
    if f is None:
        return None
    theta1 = _expectation(sp.expand(f**2))
    linear = _expectation(x * f)
    if theta1 is None or linear is None:
        return None
    return sp.simplify(theta1), sp.simplify(linear**2)


@lru_cache(maxsize=512)
def thetas_numeric(kernel: Kernel, beta: object, dps: int = 30) -> tuple[mpmath.mpf,
                                                                          mpmath.mpf]:
    r""":math:`(\theta_1[g], \theta_2[g])` by mpmath quadrature (tanh–sinh on (−∞, 0] and
    [0, ∞), so that a kink at 0 is an endpoint), g evaluated from its expression; a route
    independent of SymPy's integration."""
    dps = integer(dps, "dps", 5)
    with mpmath.workdps(dps + 10):
        b = mpmath.mpf(sp.Float(sp.sympify(beta), dps + 10))
        g = sp.lambdify(x, kernel.g, "mpmath")

        def expect(h):
            density = lambda t: h(t) * mpmath.exp(-t * t / 2)  # noqa: E731
            return mpmath.quad(density, [-mpmath.inf, 0, mpmath.inf]) / mpmath.sqrt(
                2 * mpmath.pi)

        mean = expect(lambda t: g(b * t))
        if kernel.normalised:
            f = lambda t: g(b * t) / mean - 1  # noqa: E731
        else:
            f = lambda t: g(b * t) - mean  # noqa: E731
        theta1 = expect(lambda t: f(t) ** 2)
        theta2 = expect(lambda t: t * f(t)) ** 2
    with mpmath.workdps(dps):
        return +theta1, +theta2


def surrogate_is_right(kernel: Kernel, beta: object) -> bool:
    r"""Whether the i.i.d. surrogate :math:`\theta_1\,\mathrm{MP}_1` is the limit law:
    exactly when :math:`\theta_2[g] = 0` (an even g), for then
    :math:`\nu_\infty(\theta_1, 0, y) = \theta_1\mathrm{MP}_1` for every y."""
    exact = thetas(kernel, beta)
    if exact is not None:
        return exact[1] == 0
    return thetas_numeric(kernel, beta)[1] < mpmath.mpf(10) ** -25
