r"""An attention variant: kernel × weight law × input model × mask, and what the theory predicts
for it (issue 30).

Each kind lives in its own module (``kernels``, ``weight_laws``, ``input_models``,
``masks``); this one puts them together. The prediction is the limit of the bulk's first two
moments, with the coefficients θ₁[g], θ₂[g] of the kernel:

- the weight law does not enter the limit (the scores' central limit theorem, derived);
- an input model other than orthonormal moves the moments as ``input_models`` says;
- the causal mask moves them as ``masks`` says;
- inputs that are not orthonormal *and* a mask, or shared-mean inputs with a kernel that is
  not a row-normalised exponential, have no prediction (``Prediction`` is None): the variant
  is measured against its Gaussian model on the same scores only.

A prediction's status is the weakest of its parts' (theorem < derived < conjecture).

Examples
--------
>>> p = predict(Variant(mask="causal"), 1, 1)
>>> p.status, round(float(p.m2), 6), round(float(p.surrogate_m2), 6)
('derived', 9.357477, 8.857477)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

import mpmath
import sympy as sp

from attnge.theory import input_models, kernels, masks, weight_laws
from attnge.theory.inputs import number, positive, ratio
from attnge.theory.symbols import beta as beta_symbol

ORDER = ("theorem", "derived", "conjecture")
PARAMETERS = {"gamma": (0.0, 1.0, "ell/d, in (0, 1] for orthonormal rows"),
              "alpha": (0.0, 1.0, "the share along the common direction, in (0, 1)"),
              "repeats": (1.0, 64.0, "an integer from 1 to 64")}


@dataclass(frozen=True)
class Variant:
    """A variant: ``kernel`` (a name or expression, ``theory.kernels.parse``; a ``bias`` for
    the sigmoid; an expression is divided by its row sums, ``normaliser`` "row", or by ℓ,
    "ell"), ``weights`` (``weight_laws.LAWS``), ``inputs`` (``input_models.MODELS``) with
    its ``value`` (γ, α or r; γ is optional for orthonormal inputs: Haar rows of width ℓ/γ),
    and ``mask`` (``masks.MASKS``)."""

    kernel: str = "softmax"
    weights: str = "gaussian"
    inputs: str = "orthonormal"
    value: float | None = None
    mask: str = "none"
    bias: float | None = None
    normaliser: str = "row"
    resolved: kernels.Kernel = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        weight_laws.law_named(self.weights)
        model = input_models.model_named(self.inputs)
        masks.mask_named(self.mask)
        if self.normaliser not in ("row", "ell"):
            raise ValueError(f"normaliser must be row or ell (got {self.normaliser!r})")
        if self.normaliser != "row" and self.kernel in kernels.KERNELS:
            raise ValueError(f"normaliser applies to a kernel given as an expression (kernel "
                             f"{self.kernel} has its own)")
        resolved = kernels.parse(self.kernel, normalised=self.normaliser == "row")
        if self.bias is not None:
            if self.kernel != "sigmoid":
                raise ValueError(f"bias applies to --kernel sigmoid only (got --kernel "
                                 f"{self.kernel})")
            resolved = kernels.sigmoid(number(self.bias, "bias"))
        object.__setattr__(self, "resolved", resolved)
        name = model.parameter
        if self.value is None:
            if name is not None and model.name != "orthonormal":
                raise ValueError(f"{name} is needed with --inputs {model.name}")
            return
        if name is None and model.name != "orthonormal":
            raise ValueError(f"inputs {model.name} take no parameter")
        name = name or "gamma"
        low, high, text = PARAMETERS[name]
        value = positive(self.value, name)
        if name == "repeats":
            if value != int(value) or not low <= value <= high:
                raise ValueError(f"repeats must be {text} (got {self.value!r})")
        elif not low < value <= high or (name == "alpha" and value == 1):
            raise ValueError(f"{name} must be {text} (got {self.value!r})")
        object.__setattr__(self, "value", value)

    @property
    def label(self) -> str:
        """A short name: the parts that differ from the theorem's attention."""
        parts = [self.resolved.name if self.kernel != "sigmoid" or self.bias is None
                 else f"sigmoid(bias={self.bias:g})"]
        if self.weights != "gaussian":
            parts.append(f"{self.weights} weights")
        if self.inputs != "orthonormal" or self.value is not None:
            model = input_models.model_named(self.inputs)
            parts.append(f"{self.inputs} inputs" + (
                "" if self.value is None else f" ({model.parameter or 'gamma'}={self.value:g})"))
        if self.mask != "none":
            parts.append(f"{self.mask} mask")
        return ", ".join(parts)

    @property
    def exp_normalised(self) -> bool:
        """Whether the kernel is a row-normalised exponential of the plain scores."""
        k = self.resolved
        return k.g == sp.exp(sp.Symbol("x", real=True)) and k.normalised and not k.cosine


@dataclass(frozen=True)
class Prediction:
    """θ₁, θ₂ (the kernel's), m₁, m₂ of the bulk's limit, the i.i.d. surrogate's m₂, the
    routes that derived them and their status (``ORDER``)."""

    theta1: float
    theta2: float
    m1: float
    m2: float
    surrogate_m2: float
    route: str
    status: str
    why: str


def kernel_thetas(variant: Variant, beta: object) -> tuple[float, float, str]:
    """(θ₁[g], θ₂[g], route): SymPy's closed form where there is one, else mpmath's
    quadrature."""
    exact = kernels.thetas(variant.resolved, sp.nsimplify(beta))
    if exact is not None:
        return float(exact[0]), float(exact[1]), "SymPy"
    t1, t2 = kernels.thetas_numeric(variant.resolved, beta, 20)
    return float(t1), float(t2), "mpmath quadrature"


def predict(variant: Variant, beta: object, y: object) -> Prediction | None:
    r"""The theory's prediction for ``variant`` at (β, y), or None where it makes none
    (module docstring).

    Notes
    -----
    No mask, orthonormal inputs: :math:`m_1 = \theta_1,\ m_2 = 2\theta_1^2 + y\theta_2^2`;
    the other inputs: ``input_models.moments``; the causal mask: ``masks.limit_moments``.
    """
    b, y = sp.nsimplify(positive(beta, "beta")), sp.nsimplify(ratio(y))
    model = input_models.model_named(variant.inputs)
    mask = masks.mask_named(variant.mask)
    if model.name != "orthonormal" and mask.name != "none":
        return None
    if model.exp_only and not variant.exp_normalised:
        return None
    t1, t2, route = kernel_thetas(variant, b)
    law = weight_laws.law_named(variant.weights)
    statuses = [variant.resolved.status, "theorem" if law.name == "gaussian" else "derived",
                model.status, mask.status]
    why = [variant.resolved.why]
    if law.name != "gaussian":
        why.append("the weights enter the limit only through the scores' Gaussian limit")
    if mask.name != "none":
        routes = _mask_routes(mask.name)
        m1, m2 = _agreed(*(_at(r, t1, t2, y) for r in routes), variant)
        surrogate = _at(routes[0], t1, 0, y)[1]
        why.append(mask.why)
        route += "; masks: exact sums = continuum profile"
    else:
        value = 1 if variant.value is None else sp.nsimplify(variant.value)
        m1, m2 = _agreed(*(_at(r, t1, t2, y, value, b) for r in _input_routes(model.name)),
                         variant)
        surrogate = 2 * sp.sympify(t1) ** 2
        if model.name != "orthonormal":
            why.append(model.why)
        route += ("; limit law: non-crossing partitions = functional equation"
                  if model.name == "orthonormal" else
                  "; input_models: free probability = " + (
                      "the theorem at y/r" if model.name == "repeated" else "Wick's theorem"))
    status = max(statuses, key=ORDER.index)
    return Prediction(t1, t2, float(m1), float(m2), float(surrogate), route, status,
                      "; ".join(why))


_T1, _T2, _Y, _V = sp.symbols("theta1 theta2 y v", positive=True)


@cache
def _mask_routes(name: str) -> tuple[tuple[sp.Expr, sp.Expr], ...]:
    """Both routes to a mask's (m₁, m₂), once, in θ₁, θ₂, y."""
    return (masks.limit_moments(name, _T1, _T2, _Y),
            masks.limit_moments_continuum(name, _T1, _T2, _Y))


@cache
def _input_routes(name: str) -> tuple[tuple[sp.Expr, sp.Expr], ...]:
    """Both routes to an input model's (m₁, m₂), once, in θ₁, θ₂, y, its parameter and β."""
    return (input_models.moments(name, _V, _T1, _T2, _Y, beta_symbol),
            input_models.moments_second_route(name, _V, _T1, _T2, _Y, beta_symbol))


def cache_clear() -> None:
    """Forget every prediction derived once and kept (the routes of the masks and input models,
    the kernels' θ's): for tests that inject wrong mathematics."""
    for cached in (_mask_routes, _input_routes, kernels.thetas, kernels.thetas_numeric):
        cached.cache_clear()


def _at(moments: tuple[sp.Expr, sp.Expr], t1, t2, y, value=1, b=1) -> tuple[float, float]:
    values = {_T1: t1, _T2: t2, _Y: y, _V: value, beta_symbol: b}
    return tuple(float(sp.sympify(m).subs(values)) for m in moments)


AGREE_RTOL = 1e-12
"""Two routes to a predicted moment must agree to this relative tolerance."""


def _agreed(first: tuple, second: tuple, variant: Variant) -> tuple[float, float]:
    """The first route's (m₁, m₂), after checking the second's (an error of ours if not)."""
    out = tuple(float(v) for v in first)
    for name, a, b in zip(("m1", "m2"), out, (float(v) for v in second)):
        if not abs(a - b) <= AGREE_RTOL * max(abs(a), 1e-300):
            raise ArithmeticError(f"the two routes to {name} of {variant.label} disagree: "
                                  f"{a!r} and {b!r}")
    return out


def normalizer_prediction(variant: Variant, beta: object, ell: int, d_qk: int
                          ) -> dict[str, mpmath.mpf] | None:
    """E D_ii and Var D_ii of the variant's scores (``weight_laws.normalizer_moments``), for
    weights other than the Gaussian (whose normalizer is the ``normalizer`` step's) with
    orthonormal inputs without γ (Q, K sampled directly); None otherwise."""
    if variant.weights == "gaussian" or variant.inputs != "orthonormal" or \
            variant.value is not None:
        return None
    return weight_laws.normalizer_moments(variant.weights, sp.nsimplify(beta), ell, d_qk, 20)
