"""Where linearization stops: predicted rates and thresholds (math.md §6).

Temperature, β = c√(log ℓ) (so e^{β²} = ℓ^{c²}). Each measured distance is predicted to
behave as ℓ^{s(c)}; the threshold c* is where s(c*) = 0 (it stops shrinking):

- normalizer: Var D_ii ≈ θ₁/ℓ = ℓ^{c²−1}, so sd(D_ii) ~ ℓ^{(c²−1)/2}: c* = 1;
- m₁: m₁ = mean of X_ij² over ℓ² entries, X = e^{βS−β²/2}. Its mass sits at
  S ≈ 2β = 2c√(log ℓ), beyond the largest sampled score 2√(log ℓ) when c > 1; the
  missed share Φ̄(2(1 − c)√(log ℓ)) ~ ℓ^{−2(1−c)²}: c* = 1;
- the bulk (Kolmogorov distance): the linear model's bulk carries all of Var X = θ₁; that
  of √ℓA⊥ loses the share of Var X held by entries as large as the bulk's scale,
  X > ε√(ℓθ₁) (Lindeberg), which become outliers. Under the tilt e^{2βS} that carries X²,
  S ~ N(2β, 1), so the share is Φ̄(t√(log ℓ)), t = (1 − 2c²)/(2c), ~ ℓ^{−t²/2} for t > 0
  and O(1) for t ≤ 0: c* = 1/√2;
- m_q, q ≥ 2: the largest entry a = X_max/√ℓ, X_max = ℓ^{2c − c²/2}, adds a^{2q}/ℓ to m_q
  against m_q(ν∞) ~ θ₁^q: relative size ℓ^{g_q(c)}, g_q = 4qc − 2qc² − q − 1:
  c*_q = 1 − √((q − 1)/(2q)) (1/2, 0.4226, 0.3876 for q = 2, 3, 4);
- the largest singular value over the bulk edge E ~ θ₁: a²/θ₁ ~ ℓ^{4c − 2c² − 1}:
  c* = 1 − 1/√2 (the limit q → ∞ of c*_q).

Order, d_qk = ℓ^α: the k-th Hadamard power ρ^{∘k} of Σ_f has off-diagonal entries of
order d_qk^{−k/2}; as an ℓ×ℓ matrix its mean-square width is ε² = ℓ d_qk^{−k} = ℓ^{1−αk}.
Where ε → 0 it moves the spectral law by a vanishing amount (a free convolution of width ε;
W₂² ≤ ‖G‖⁴ε² by Hoffman–Wielandt); where ε → ∞ the term has rank ~d_qk^k/k! < ℓ and large
eigenvalues, and dropping it moves its trace out of the bulk. So the k-th term must be
kept for α ≤ α*_k = 1/k.

At finite size the bulk feels the k-th term through the share N_k(d)/ℓ of directions it
spans, N_k(d) = C(d + k − 1, k) (``rank_exponent``); and the order reading is judged on
the exact mean of its width,
δ = ‖Σ_f − Σ'‖_F² / (ℓθ₁²) for Σ' = Σ_G (``lin_f``) or the truncation Σ_f^{(k)}: its
expectation over keys x_i ~ N(0, I_d) is closed-form in (β, d, ℓ) (``order_distance``) and
decays as ℓ d^{−(k+1)} (k = 1 for ``lin_f``), the ε² of the first omitted term.
"""

from __future__ import annotations

import math
from functools import lru_cache

import mpmath

import sympy as sp

from theory.gaussian import chi2_expectation, pair_expectation
from theory.symbols import beta, d_qk, ell

c, alpha = sp.symbols("c alpha", positive=True)
q, k = sp.symbols("q k", positive=True, integer=True)


def temperature_exponents() -> dict[str, sp.Expr]:
    """Predicted log–log slope s(c) of each measured quantity against ℓ at β = c√(log ℓ)."""
    t = lindeberg_rate()
    out = {"sd(D)": (c**2 - 1) / 2, "m1": -2 * (1 - c) ** 2,
           "kolmogorov": sp.Piecewise((-t**2 / 2, t >= 0), (0, True)),
           "s1^2/E": 4 * c - 2 * c**2 - 1}
    for order in (2, 3, 4):
        out[f"m{order}"] = (4 * q * c - 2 * q * c**2 - q - 1).subs(q, order)
    return out


def lindeberg_rate() -> sp.Expr:
    """t = (1 − 2c²)/(2c): the share of Var X in entries X > ε√(ℓθ₁) is Φ̄(t√(log ℓ)).

    X > ε√(ℓθ₁) ⟺ S > β + log ℓ/(2β) (to leading order); under the tilt, S ~ N(2β, 1),
    so the share is Φ̄((log ℓ − 2β²)/(2β)) = Φ̄(t√(log ℓ)) at β = c√(log ℓ).
    """
    return (1 - 2 * c**2) / (2 * c)


def moment_threshold() -> sp.Expr:
    """c*_q = 1 − √((q − 1)/(2q)), the root of 4qc − 2qc² − q − 1 below 1."""
    return 1 - sp.sqrt((q - 1) / (2 * q))


@lru_cache(maxsize=None)
def temperature_thresholds() -> dict[str, sp.Expr]:
    """c* with s(c*) = 0 for each quantity (the root in (0, 1]; the bulk: t(c*) = 0)."""
    out = {}
    for name, s in temperature_exponents().items():
        if name == "kolmogorov":
            s = lindeberg_rate()
        roots = [r for r in sp.solve(sp.Eq(s, 0), c) if r.is_positive and r <= 1]
        out[name] = min(roots)
    return out


def order_exponent() -> sp.Expr:
    """Log–log slope of the distance the k-th Hadamard term makes: ε² = ℓ^{1−αk}."""
    return 1 - alpha * k


def order_threshold(order: int) -> sp.Expr:
    """α*_k = 1/k: the root of 1 − αk."""
    return sp.solve(sp.Eq(order_exponent().subs(k, order), 0), alpha)[0]


ORDER_MODELS = ("lin_f", "k=2", "k=3")
_u, _rho, _v = sp.symbols("u rho v", real=True)


def first_omitted(model: str) -> int:
    """The first Hadamard power a model leaves out: 2 for ``lin_f``, k + 1 for ``k=k``."""
    if model not in ORDER_MODELS:
        raise ValueError(f"model must be one of {', '.join(ORDER_MODELS)} (got {model!r})")
    return 2 if model == "lin_f" else int(model[2:]) + 1


def _entries(model: str) -> tuple[sp.Expr, sp.Expr | None]:
    """Σ_f − Σ' off the diagonal (in u = ρ_jj + ρ_kk, ρ = ρ_jk) and on it (in v = ρ_jj)."""
    b2 = beta**2
    off_f = sp.exp(b2 * (_u / 2 - 1)) * (sp.exp(b2 * _rho) - 1)
    if model == "lin_f":   # Σ_G = θ₂ρ + (θ₁ − θ₂)I
        diag_f = sp.exp(b2 * (_v - 1)) * (sp.exp(b2 * _v) - 1)
        return off_f - b2 * _rho, diag_f - (b2 * _v + sp.exp(b2) - 1 - b2)
    kept = sum(b2**m * _rho**m / sp.factorial(m) for m in range(1, first_omitted(model)))
    return off_f - sp.exp(b2 * (_u / 2 - 1)) * kept, None   # exact diagonal


@lru_cache(maxsize=None)
def _order_distance(model: str) -> tuple[sp.Expr, sp.Expr]:
    off, diag = _entries(model)
    mean_off, rates = pair_expectation(off**2, _u, _rho, d_qk)
    bound = max(2 * t + abs(s) for t, s in rates)
    mean_diag = sp.Integer(0)
    if diag is not None:
        mean_diag, diag_rates = chi2_expectation(diag**2, _v, d_qk)
        bound = max([bound, *[2 * t for t in diag_rates]])
    theta1 = sp.exp(beta**2) - 1
    return ((ell - 1) * mean_off + mean_diag) / theta1**2, bound


def order_distance(model: str) -> sp.Expr:
    """E δ, δ = ‖Σ_f − Σ'‖_F² / (ℓθ₁²), exact in (β, d_qk, ℓ) for keys x_i ~ N(0, I_d).

    .. math:: \\mathbb E\\,\\delta = \\frac{(\\ell - 1)\\,\\mathbb E R_{jk}^2
              + \\mathbb E R_{jj}^2}{\\theta_1^2}, \\qquad R = \\Sigma_f - \\Sigma',

    with E R_jk² from ``pair_expectation`` (Σ_f[j,k] = e^{β²(ρ_jj+ρ_kk)/2 − β²}(e^{β²ρ_jk} − 1))
    and E R_jj² from ``chi2_expectation`` (zero for the truncations, whose diagonal is exact).
    Finite iff d_qk > ``order_distance_bound(model)``.
    """
    return _order_distance(model)[0]


def order_distance_bound(model: str) -> sp.Expr:
    """E δ is finite iff d_qk exceeds this (4β², or 8β² for ``lin_f`` through its diagonal).

    δ has finite variance iff d_qk exceeds twice it: the fourth power doubles every rate.
    """
    return _order_distance(model)[1]


@lru_cache(maxsize=None)
def order_distance_bound_at(model: str, beta_value: float) -> float:
    """``order_distance_bound(model)`` at β = beta_value."""
    return float(order_distance_bound(model).subs(beta, beta_value))


@lru_cache(maxsize=None)
def _order_distance_numeric(model: str):
    return sp.lambdify((beta, d_qk, ell), order_distance(model), modules="mpmath")


def expected_order_distance(model: str, beta_value: float, d: float, ell_value: float) -> float:
    """E δ at numbers; infinite (``math.inf``) where d ≤ ``order_distance_bound``.

    Its O(1) terms cancel down to ~β^{4k} d^{−k} (k the first omitted power), so it is
    evaluated with 30 digits to spare beyond those.
    """
    if not d > order_distance_bound_at(model, beta_value):
        return math.inf
    # the result is ~ β^{4k} d^{−k} against O(1) terms, k the first omitted power
    small_beta = 4 * max(0.0, -math.log10(beta_value))
    lost = (first_omitted(model) + 1) * (math.log10(max(d, 10)) + small_beta)
    with mpmath.workdps(30 + math.ceil(lost)):
        return float(_order_distance_numeric(model)(mpmath.mpf(beta_value), mpmath.mpf(d),
                                                    mpmath.mpf(ell_value)))


def finite_size_threshold(model: str, beta_value: float, ell_low: float, ell_high: float,
                          step: float = 0.005) -> float | None:
    """α at which E δ stops shrinking between ℓ_low and ℓ_high along d = ℓ^α (d real).

    The two-point slope s(α) = log(Eδ(ℓ_high)/Eδ(ℓ_low)) / log(ℓ_high/ℓ_low) is scanned
    from α = 1 downwards; the first zero is refined by bisection. It tends to 1/k, k the
    first omitted power, as ℓ_low → ∞; ``None`` if s stays negative down to where
    E δ(ℓ_low) is infinite.
    """
    def slope(a: float) -> float:
        low = expected_order_distance(model, beta_value, ell_low**a, ell_low)
        high = expected_order_distance(model, beta_value, ell_high**a, ell_high)
        return math.log(high / low) / math.log(ell_high / ell_low)

    bound = order_distance_bound_at(model, beta_value)
    floor = math.log(bound) / math.log(ell_low) if bound > 1 else 0.0
    hi = 1.0
    while hi - step > floor:
        lo = hi - step
        if slope(lo) >= 0:
            for _ in range(40):
                mid = (lo + hi) / 2
                lo, hi = (mid, hi) if slope(mid) >= 0 else (lo, mid)
            return (lo + hi) / 2
        hi = lo
    return None


def hadamard_rank(order: int, d: int) -> int:
    """N_k(d) = C(d + k − 1, k): the dimension of symmetric k-tensors on ℝ^d.

    ρ^{∘k} = Φ Φᵀ with Φ_i = vec(x_i^{⊗k})/d^k, so its rank is at most N_k(d).
    """
    return math.comb(d + order - 1, order)


def rank_exponent(order: int, sizes: tuple[int, ...], ds: tuple[int, ...]) -> float:
    """The log–log slope of N_k(d_qk)/ℓ against ℓ over the sizes (least squares).

    The k-th term of Σ_f acts on the bulk through the share x = N_k(d)/ℓ of directions it
    spans (x ≪ 1: a few large eigenvalues that carry its trace out of the bulk; x ≫ 1: a
    perturbation of mean-square width ~1/x). If a bulk distance is a decreasing function
    of x, its slope against ℓ has the sign of minus this exponent: zero where
    α·d log N_k/d log d = 1, i.e. at α = 1/k when d → ∞ and above 1/k at finite d, since
    d log N_k/d log d = Σ_{i<k} d/(d + i) < k.
    """
    t = [math.log(s) for s in sizes]
    u = [math.log(hadamard_rank(order, d) / s) for d, s in zip(ds, sizes)]
    tm, um = sum(t) / len(t), sum(u) / len(u)
    return sum((a - tm) * (b - um) for a, b in zip(t, u)) / sum((a - tm) ** 2 for a in t)
