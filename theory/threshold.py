"""Where linearization stops: predicted rates and thresholds (docs/math.md §6).

Temperature, β = c√(log ℓ) (so e^{β²} = ℓ^{c²}), X = e^{βS − β²/2}, L = log ℓ. Each
measured distance is predicted to behave as ℓ^{s(c)}; the threshold c* is where s(c*) = 0
(it stops shrinking). Two facts about X give every s(c):

- an entry X > ℓ^a sits at S > λ(a)√L, λ(a) = (a + c²/2)/c (``level``); E X^p is carried
  by S ~ N(pc√L, 1) (the tilt e^{pβS}), so the share of E X^p held beyond S = λ√L is
  Φ̄((λ − pc)√L) ~ ℓ^{−(λ − pc)²/2} (``tail_rate`` λ − pc);
- of N = ℓ^n scores the largest is S ≈ √(2n)√L, so a sum of ℓ^n entries X^p keeps its
  mean while pc < √(2n) and follows its largest term beyond.

Then, for √ℓA⊥ (A_ij = X_ij/Σ_k X_ik) against Y^lin_f:

- normalizer: the sample variance of D_ii = (1/ℓ)Σ_j X_ij is ≈ ℓ^{−3} Σ_ij X_ij², whose
  typical value is θ₁/ℓ = ℓ^{c²−1} up to c = 1 (the mean of ℓ² entries X²) and the largest
  entry, ℓ^{2(2c − c²/2) − 3}, beyond: sd(D) ~ ℓ^{(c²−1)/2}, then ℓ^{(4c − c² − 3)/2}: c* = 1;
- m₁ = Σ_ij A_ij² − 1 (the mass): A_ij = X_ij/(X_ij + R), R ≈ ℓ, saturates once X_ij ~ ℓ.
  m₁ loses (2/ℓ)E[X³; X < ℓ]/E X² ~ ℓ^{2c² − 1} to first order, and, once the X³-tilt
  passes X = ℓ (c > √(2/5)), the share of E X² beyond X = ℓ: Φ̄(t₁√L),
  t₁ = λ(1) − 2c = (2 − 3c²)/(2c): c* = √(2/3) (``mass_exponent``);
- the bulk (Kolmogorov distance): it loses the share of Var X = θ₁ beyond the bulk's
  scale X = √(ℓθ₁) (Lindeberg): Φ̄(t√L), t = λ((1 + c²)/2) − 2c = (1 − 2c²)/(2c): c* = 1/√2;
- the largest singular value over the bulk edge E ~ θ₁: the largest entry,
  a² = X_max²/ℓ with X_max = ℓ^{2c − c²/2}, gives a²/θ₁ ~ ℓ^{4c − 2c² − 1}: c* = 1 − 1/√2;
  once X_max > ℓ (c > 2 − √2) it saturates at a² ~ ℓ (ℓ^{1 − c²}), and for c ≥ 1 s₁² ≪ E;
- the shapes m_q/m₁^q, q ≥ 2 (scale-free, so the mass m₁ loses does not cancel the
  outliers): a^{2q}/ℓ against θ₁^q, ℓ^{g_q}, g_q = 4qc − 2qc² − q − 1:
  c*_q = 1 − √((q − 1)/(2q)) (1/2, 0.4226, 0.3876 for q = 2, 3, 4), derived for
  c ≤ 2 − √2, where the largest entry is not saturated.

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
from functools import cache

import mpmath
import sympy as sp

from attnge.theory import exponential as ex
from attnge.theory import normalizer
from attnge.theory.gaussian import chi2_expectation, pair_expectation
from attnge.theory.symbols import beta, d_qk, ell

c, alpha = sp.symbols("c alpha", positive=True)
q, k = sp.symbols("q k", positive=True, integer=True)

SATURATION = 2 - sp.sqrt(2)   # c where the largest of ℓ² entries reaches X = ℓ (A_ij ~ 1)
TEMPERATURE_QUANTITIES = ("sd(D)", "m1", "m2/m1^2", "m3/m1^3", "m4/m1^4", "kolmogorov",
                          "s1^2/E")


def moment_power(p: int) -> sp.Expr:
    """E X^p = e^{p(p−1)β²/2} = ℓ^{p(p−1)c²/2}."""
    return p * (p - 1) * c**2 / 2


def level(a: sp.Expr) -> sp.Expr:
    """λ(a) = (a + c²/2)/c: X = e^{βS − β²/2} exceeds ℓ^a iff S > λ(a)√(log ℓ)."""
    return (a + c**2 / 2) / c


def tail_rate(a: sp.Expr, p: int) -> sp.Expr:
    """λ(a) − pc: the share of E X^p in entries X > ℓ^a is Φ̄((λ(a) − pc)√(log ℓ)).

    X^p tilts S to N(pβ, 1) = N(pc√(log ℓ), 1), so the share is P(N(pc√L, 1) > λ(a)√L).
    """
    return level(a) - p * c


def largest_entry() -> sp.Expr:
    """a_max = 2c − c²/2: the largest of ℓ² entries, S = 2√(log ℓ), is X = ℓ^{a_max}."""
    return sp.solve(sp.Eq(level(sp.Symbol("a")), 2), sp.Symbol("a"))[0]


def saturation_rate() -> sp.Expr:
    """t₁ = (2 − 3c²)/(2c): the share of E X² in entries X > ℓ, where A_ij saturates."""
    return sp.factor(tail_rate(1, 2))


def lindeberg_rate() -> sp.Expr:
    """t = (1 − 2c²)/(2c): the share of Var X in entries X > √(ℓθ₁) ≈ ℓ^{(1+c²)/2}."""
    return sp.factor(tail_rate((1 + c**2) / 2, 2))


def mass_exponent() -> sp.Expr:
    """The log–log slope of the mass m₁ loses, 1 − E m₁(√ℓA⊥)/θ₁.

    A_j = X_j/(X_j + R_j), R_j ≈ ℓ: to first order in X_j/ℓ the row loses
    (2/ℓ) E[X³; X < ℓ] / E X², ℓ^{2c² − 1} while the X³-tilt stays below X = ℓ
    (``tail_rate(1, 3)`` ≥ 0); beyond, that sum and the share of E X² past X = ℓ
    (``saturation_rate``) both decay as ℓ^{−t₁²/2}; for t₁ < 0 the loss is O(1).
    """
    r3 = tail_rate(1, 3)
    first = moment_power(3) - moment_power(2) - 1 - sp.Piecewise((0, r3 >= 0), (r3**2 / 2, True))
    return sp.Piecewise((first, saturation_rate() >= 0), (0, True))


def _share_exponent(t: sp.Expr) -> sp.Expr:
    """Φ̄(t√(log ℓ)) ~ ℓ^{−t²/2} while t ≥ 0; an O(1) share (slope 0) beyond."""
    return sp.Piecewise((-t**2 / 2, t >= 0), (0, True))


def largest_entry_slope(kappa: sp.Expr) -> sp.Expr:
    """d log X_max / d log ℓ with the first correction: a_max − κc/4.

    The largest of N = ℓ² standard normals sits at b_N = √(2 log N) − (log log N +
    log 4π)/(2√(2 log N)) (its Gumbel centring), so log X_max = βb_N − β²/2 =
    a_max log ℓ − (c/4) log(8π log ℓ). Against log ℓ, log log ℓ has local slope 1/log ℓ;
    κ is that slope as fitted over the sizes of a sweep (``log_log_slope``), 0 as ℓ → ∞.
    """
    L = sp.Symbol("L", positive=True)
    bN = sp.sqrt(2 * 2 * L) - (sp.log(2 * 2 * L) + sp.log(4 * sp.pi)) / (2 * sp.sqrt(2 * 2 * L))
    log_x_max = sp.expand(c * sp.sqrt(L) * bN - c**2 * L / 2)
    slope = sp.expand(sp.diff(log_x_max, L))     # a_max − c/(4L), exactly
    return slope.subs(1 / L, kappa)


def _least_squares_slope(t: list[float], u: list[float]) -> float:
    """The least-squares slope of u against t."""
    tm, um = sum(t) / len(t), sum(u) / len(u)
    return sum((a - tm) * (b - um) for a, b in zip(t, u)) / sum((a - tm) ** 2 for a in t)


def log_log_slope(sizes: tuple[int, ...]) -> float:
    """κ: the least-squares slope of log log ℓ against log ℓ over the sizes (≈ 1/log ℓ)."""
    t = [math.log(s) for s in sizes]
    return _least_squares_slope(t, [math.log(v) for v in t])


def temperature_exponents(kappa: sp.Expr = 0) -> dict[str, sp.Expr]:
    """Predicted log–log slope s(c) of each measured distance against ℓ at β = c√(log ℓ).

    ``kappa`` = 0: the ℓ → ∞ exponents. κ > 0 (``log_log_slope`` of a sweep's sizes): the
    slopes at those sizes to first order, where the largest entry sets the slope (its
    Gumbel centring, ``largest_entry_slope``). The shapes m_q/m₁^q are derived for
    c ≤ ``SATURATION`` only (see ``valid_up_to``).
    """
    a_max = largest_entry_slope(kappa)
    # ℓ^{-3} Σ_ij X_ij² over N = ℓ² entries: its mean θ₁/ℓ while the X²-tilt 2c√L stays
    # below the largest score √(2·2)√L, then the largest entry's square over ℓ³
    r = sp.sqrt(2 * 2) - 2 * c
    typical = sp.Piecewise((moment_power(2) - 1, r >= 0), (2 * a_max - 3, True))
    outlier = sp.expand(2 * a_max - 1 - c**2)   # a²/θ₁, a² = X_max²/ℓ
    out = {"sd(D)": typical / 2, "m1": mass_exponent()}
    for order in (2, 3, 4):
        out[f"m{order}/m1^{order}"] = order * outlier - 1
    out["kolmogorov"] = _share_exponent(lindeberg_rate())
    out["s1^2/E"] = sp.Piecewise((outlier, c <= SATURATION), (1 - c**2, c < 1), (0, True))
    return {name: sp.piecewise_fold(s).expand() for name, s in out.items()}


def valid_up_to(name: str) -> sp.Expr:
    """The c up to which ``temperature_exponents()[name]`` is derived (∞ for most)."""
    shape = name.startswith("m") and name != "m1" or name.startswith("one-entry")
    return SATURATION if shape else sp.oo


ONE_ENTRY_ORDERS = (3, 4)   # q = 2: both readings cross at 1/2, where the tilt meets the
                            # largest score (qc = 1); they decide nothing there
ONE_ENTRY = tuple(f"one-entry m{order}" for order in ONE_ENTRY_ORDERS)
_s = sp.Symbol("s", real=True)


def one_entry_exponent_at(order: int, s_value: sp.Expr, kappa: sp.Expr = 0) -> sp.Expr:
    """Log–log slope of the part of T_q = Σ_ij M0_ij^{2q} / (ℓθ₁^q) made of entries at
    S = s√(log ℓ): ℓ^{2 − s²/2} of them, each (X/√ℓ)^{2q} = ℓ^{2q(cs − c²/2) − q}.

    At s = 2 (the largest entry) the first correction of ``largest_entry_slope`` enters.
    """
    x_slope = largest_entry_slope(kappa) if s_value == 2 else c * s_value - c**2 / 2
    count = 2 - s_value**2 / 2 if s_value != 2 else 0
    return sp.expand(count + 2 * order * x_slope - order - 1 - order * c**2)


def one_entry_exponents(order: int, kappa: sp.Expr = 0) -> dict[str, sp.Expr]:
    """The two readings of the one-entry term T_q of m_q (the terms of one entry M0_ij).

    ``mean``: the slope of its expectation, ℓ^{1−q} E X^{2q}/θ₁^q = ℓ^{(q−1)(2qc² − 1)},
    carried by entries at S = 2qc√(log ℓ) (the X^{2q}-tilt), the maximum over every s.
    ``typical``: the slope of its value in a sample, the same maximum over s ≤ 2 only: of
    ℓ² scores none exceeds 2√(log ℓ), so for qc > 1 the tilt's entries are not there and
    the largest entry carries T_q, ℓ^{4qc − 2qc² − q − 1} (the outlier of the largest entry).
    The two differ by 2(qc − 1)² beyond qc = 1.
    """
    f = one_entry_exponent_at(order, _s)
    tilt = sp.solve(sp.diff(f, _s), _s)[0]              # s = 2qc
    mean = sp.expand(f.subs(_s, tilt))
    largest = one_entry_exponent_at(order, sp.Integer(2), kappa)
    return {"mean": mean, "typical": sp.Piecewise((mean, tilt <= 2), (largest, True))}


def one_entry_thresholds(order: int) -> dict[str, sp.Expr]:
    """c* of each reading of T_q: typical 1 − √((q−1)/(2q)) (q ≥ 2), mean 1/√(2q)."""
    return {reading: smallest_root(expr)
            for reading, expr in one_entry_exponents(order).items()}


def finite_size_temperature_threshold(expr: sp.Expr, low: float = 0.05, high: float = 2.5,
                                      step: float = 0.005) -> float | None:
    """The smallest c in (low, high] where a slope s(c) (at finite size) first reaches 0."""
    f = sp.lambdify(c, expr, "math")
    prev = low
    while prev < high:
        nxt = min(prev + step, high)
        if f(prev) < 0 <= f(nxt):
            a, b = prev, nxt
            for _ in range(50):
                mid = (a + b) / 2
                a, b = (mid, b) if f(mid) < 0 else (a, mid)
            return (a + b) / 2
        prev = nxt
    return None


def spread_variance_exponent() -> sp.Expr:
    """4c² − 2: the sample variance of D_ii, ≈ ℓ^{−3} Σ_ij X_ij², has relative variance
    E X⁴ / (ℓ² (E X²)²) = ℓ^{4c² − 2} (E X^p = e^{p(p−1)β²/2} = ℓ^{p(p−1)c²/2})."""
    return moment_power(4) - 2 * moment_power(2) - 2


def spread_concentrates() -> sp.Expr:
    """1/√2: below it the sample variance of D_ii is its mean to leading order."""
    return sp.solve(sp.Eq(spread_variance_exponent(), 0), c)[0]


SPREAD_RELATIVE_VARIANCE = 0.1   # "concentrates at ℓ": ℓ^{4c² − 2} below this


def spread_concentrates_at(c_value: float, ell_value: int) -> bool:
    """Whether ℓ^{4c² − 2} < ``SPREAD_RELATIVE_VARIANCE`` (c < 1/√2 with a margin)."""
    exponent = float(spread_variance_exponent().subs(c, c_value))
    return exponent * math.log(ell_value) < math.log(SPREAD_RELATIVE_VARIANCE)


@cache
def _spread_numeric():
    mean_square = (ell - 1) / ell * normalizer.sample_variance_mean()
    return sp.lambdify((beta, d_qk, ell), sp.sqrt(mean_square), modules="mpmath")


def normalizer_spread(beta_value: float, d: int, ell_value: int) -> float:
    """√(E sd(D)²): the root of the exact mean of np.std(D)² = ((ℓ − 1)/ℓ) s²_D.

    ``theory.normalizer.sample_variance_mean`` at finite ℓ and d_qk; finite for
    d_qk > 4β².
    """
    if not d > 4 * beta_value**2:
        return math.inf
    with mpmath.workdps(30):
        return float(_spread_numeric()(mpmath.mpf(beta_value), mpmath.mpf(d),
                                       mpmath.mpf(ell_value)))


def moment_threshold() -> sp.Expr:
    """c*_q = 1 − √((q − 1)/(2q)), the root of g_q = 4qc − 2qc² − q − 1 below 1."""
    return 1 - sp.sqrt((q - 1) / (2 * q))


@cache
def temperature_thresholds() -> dict[str, sp.Expr]:
    """c* per quantity: the smallest c > 0 where its rate reaches 0 (shares: t(c*) = 0)."""
    rates = {"m1": saturation_rate(), "kolmogorov": lindeberg_rate()}
    return {name: smallest_root(rates.get(name, s))
            for name, s in temperature_exponents().items()}


def smallest_root(expr: sp.Expr) -> sp.Expr:
    """The smallest c > 0 where a (piecewise) rate vanishes: a root of one piece at which
    the whole expression is 0 (so the piece holds there)."""
    pieces = expr.args if isinstance(expr, sp.Piecewise) else ((expr, True),)
    return min(r for piece, _ in pieces for r in sp.solve(sp.Eq(piece, 0), c)
               if r.is_positive and sp.simplify(expr.subs(c, r)) == 0)


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


@cache
def _order_distance(model: str) -> tuple[sp.Expr, sp.Expr]:
    off, diag = _entries(model)
    mean_off, rates = pair_expectation(off**2, _u, _rho, d_qk)
    bound = max(2 * t + abs(s) for t, s in rates)
    mean_diag = sp.Integer(0)
    if diag is not None:
        mean_diag, diag_rates = chi2_expectation(diag**2, _v, d_qk)
        bound = max([bound, *[2 * t for t in diag_rates]])
    theta1 = ex.theta1()
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


@cache
def order_distance_bound_at(model: str, beta_value: float) -> float:
    """``order_distance_bound(model)`` at β = beta_value."""
    return float(order_distance_bound(model).subs(beta, beta_value))


@cache
def _order_distance_numeric(model: str):
    return sp.lambdify((beta, d_qk, ell), order_distance(model), modules="mpmath")


def expected_order_distance(model: str, beta_value: float, d: float, ell_value: float) -> float:
    """E δ at numbers; infinite (``math.inf``) where d ≤ ``order_distance_bound``.

    Its O(1) terms cancel down to ~β^{4k} d^{−k} (k the first omitted power), so it is
    evaluated with 30 digits to spare beyond those.
    """
    if not d > order_distance_bound_at(model, beta_value):
        return math.inf
    small_beta = 4 * max(0.0, -math.log10(beta_value))
    lost = (first_omitted(model) + 1) * (math.log10(max(d, 10)) + small_beta)
    with mpmath.workdps(30 + math.ceil(lost)):
        return float(_order_distance_numeric(model)(mpmath.mpf(beta_value), mpmath.mpf(d),
                                                    mpmath.mpf(ell_value)))


def finite_size_threshold(model: str, beta_value: float, ell_low: float, ell_high: float,
                          step: float = 0.005, tol: float = 1e-10) -> float | None:
    """α at which E δ stops shrinking between ℓ_low and ℓ_high along d = ℓ^α (d real).

    The two-point slope s(α) = log(Eδ(ℓ_high)/Eδ(ℓ_low)) / log(ℓ_high/ℓ_low) is scanned
    from α = 1 downwards, four ``step`` at a time and one ``step`` in the last stretch
    above where E δ(ℓ_low) is infinite (the points of a scan by ``step``, every fourth
    read: s is monotone in α, one zero); the first zero is refined by bisection to ``tol``.
    It tends to 1/k, k the first omitted power, as ℓ_low → ∞; ``None`` if s stays negative
    down to where E δ(ℓ_low) is infinite.
    """
    def slope(a: float) -> float:
        low = expected_order_distance(model, beta_value, ell_low**a, ell_low)
        high = expected_order_distance(model, beta_value, ell_high**a, ell_high)
        return math.log(high / low) / math.log(ell_high / ell_low)

    bound = order_distance_bound_at(model, beta_value)
    floor = math.log(bound) / math.log(ell_low) if bound > 1 else 0.0
    last = 1.0 - step * math.floor((1.0 - floor) / step - 1e-9)  # the lowest point > floor
    hi = 1.0
    while hi - step > floor:
        lo = max(hi - 4 * step, last)
        if slope(lo) >= 0:
            while hi - lo > tol:
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
    return _least_squares_slope([math.log(s) for s in sizes],
                                [math.log(hadamard_rank(order, d) / s)
                                 for d, s in zip(ds, sizes)])
