"""Where a fit to ℓ → ∞ can decide: the asymptotic regime of a row, stated before any sample
is read, from the theory attnge has (docs/math.md §4 and §6).

A fit m(ℓ) = m∞ + b₁ℓ^{-p₁} + … extrapolates correctly only from sizes where the
finite-size terms have that form. Two effects break it at large β or small sizes, and both
are predicted:

- **the mass**: a softmax row saturates (A_ij ≤ 1) once its largest entries reach ℓ; its
  exact mean m₁(√ℓA⊥) at each ℓ (``numerics.softmax_mass``) shows how far the sizes are
  from θ₁. The exact deficits, fitted the way the rows fit (b₁/ℓ + b₂/ℓ²), must extrapolate
  to within ``MASS_SHARE`` of 0 (where they decay as slowly as at β = 1.5, −25% … −6% over
  ℓ = 250 … 2000, they miss it by 3%); the smallest sizes are dropped until they do.
- **the outliers**: each entry of √ℓA⊥ above a_c makes one outlier (``theory.outliers``),
  and so does each query or key long enough (at small d_qk); their expected number N(ℓ)
  (``numerics.outliers``) is taken out of the bulk by prediction, the top
  r(ℓ) = max(base, the 99% Poisson quantile of N(ℓ)) values, one r for the sizes of a fit,
  at most ``BULK_SHARE`` of the smallest. The full spectrum keeps the outliers: its
  finite-size term is b/ℓ only while the entries' N(ℓ) does not grow, so a size counts for
  it while that N grows by at most ``GROWTH`` from the size before (the smallest: to the
  next). Where it does, a fixed clip of the bulk gives the same limit too (the steps keep
  their clip there, and take the predicted outliers out elsewhere); the bulk edge needs
  them all above it.

- **the normaliser's error**: ‖M0 − Y‖_F is O(ℓ^{−1/2}) with a leading term exact in d_qk
  (``numerics.normalizer_error``), whose local slope from ℓ to 2ℓ is steeper than −1/2
  while d_qk = ℓ/y is small (−0.83 at β = 1, y = 16, ℓ = 250). A size counts for that rate
  while the predicted slope is within ``SLOPE_SHARE`` of −1/2.
- **the tails**: a matrix of f(S) has the covariance the linear model is built from only
  once its ℓ² scores reach those that carry E f(S)² (the tail rule of the sample means,
  ``derivations.evidence.tail_entries``, at the run's d_qk). A size counts for a comparison
  of spectra with the linear model while one draw holds ``TAIL_ENTRIES`` such scores.
- **isolated spikes**: an entry above a_c makes one outlier of its own only while no other
  entry above a_c shares its row or column; at small d_qk a long key carries several
  (``numerics.outliers.partners_per_entry``). A size counts for the outliers' own rows
  while an entry above a_c expects at most ``ISOLATED_SHARE`` such partners.

A fit uses the largest sizes in the regime, at least ``MIN_SIZES`` of them; with fewer the
row is INCONCLUSIVE and names the smallest ℓ from which the rule admits three sizes.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

import sympy as sp
from scipy.stats import poisson

from attnge.judging import time_text
from attnge.numerics import stats
from attnge.numerics.measure import MATRICES_PER_DRAW
from attnge.numerics.multi_head_law import edge_stieltjes, entry_for_location, outlier_threshold
from attnge.numerics.normalizer_error import local_slope
from attnge.numerics.outliers import (
    expected_entries_above,
    expected_long,
    partners_per_entry,
    tilt_tail,
)
from attnge.numerics.softmax_mass import expected_mass_difference
from attnge.theory import exponential as ex
from attnge.theory import multi_head as mh
from attnge.theory import outliers as th
from attnge.theory.inputs import d_qk as d_rule
from attnge.theory.threshold import temperature_thresholds

MASS_SHARE = 0.01
MASS_POWERS = (1.0, 2.0)
BULK_SHARE = 0.2
EDGE_SHARE = 0.1
"""The bulk edge λ_(r+1) sits near E − c(r/ℓ)^{2/3}; a fit of its b ℓ^{-2/3} holds while the
next term, (r/ℓ)^{4/3}, is at most (0.1)^{2/3} ≈ a fifth of it."""
QUANTILE = 0.99
GROWTH = 1.5
"""The full spectrum's outliers may grow by this factor from one size to the next (per
doubling of ℓ) and still count as an O(1/ℓ) term."""
ISOLATED_SHARE = 0.1
SLOPE_SHARE = 0.05
TAIL_ENTRIES = 1000.0
"""Scores beyond the tilt point a sample needs before its degree-p mean is judged (the rule
of ``derivations.evidence.tail_entries``, whose constant this is)."""
WIDTH_MIN = 32
"""The smallest d_qk a fit of a spectrum's moments to ℓ → ∞ reads (``width``). Not derived:
measured where the d_qk^{-2} terms spoil the fit's form. With two heads at β = 0.5, y = 16,
the bulk's m₃ (top 2 clipped) is 1.56, 1.69, 1.73 at d_qk = 16, 31, 62 against its limit
1.702, still rising through it, and a fit from d_qk = 16 extrapolates to 1.79 (z = 4.4); the
same happens at β = 0.25."""
RESOLUTION = 1.0
"""The edge's finite-size window, in units of E ℓ^{-2/3} (the scale of its fluctuations)."""
UNRESOLVED_MAX = 2.5
"""The most outliers inside that window a fit of the bulk reads (``resolved``). Not derived:
measured. With two heads at β = 1, y = 1/16 (n = 125 … 1000) 4.8 … 3.3 are expected, and
more of them show above E at each larger n (1.7, 2.9, 3.7, 5.3 eigenvalues per draw at
n = 125 … 1000, while 7.6, 8.7, 8.3, 7.7 entries lie above a_c); the bulk's m₄ (top 2
clipped) and its edge λ₂₀ extrapolate to 53.9 ± 0.6 and 5.29 ± 0.02 against 50.48 and 5.08
(z = 4.1, 5.9). At the defaults at most 2.1 (two heads) and 1.3 (one) are expected."""
MIN_SIZES = 3
SEARCH_MAX = 10**12
"""The largest ℓ a 'needs' is looked for at (a doubling grid from the run's largest size)."""


@dataclass(frozen=True)
class Regime:
    """Which sizes a fit may use, why the others may not, and what would decide.

    ``inside``: per size, in size order; ``why``: what puts a size outside, with numbers;
    ``need``: the smallest ℓ from which the rule admits three sizes (ℓ, 2ℓ, 4ℓ), None where
    none up to ``SEARCH_MAX`` does; ``beta`` for the text.
    """

    inside: tuple[bool, ...]
    why: str = ""
    need: int | None = 0
    beta: float = 0.0

    def first(self) -> int | None:
        """Index of the first of the largest sizes that are all inside, if there are at least
        ``MIN_SIZES`` of them; None otherwise."""
        k = len(self.inside)
        while k > 0 and self.inside[k - 1]:
            k -= 1
        return k if len(self.inside) - k >= MIN_SIZES else None

    @property
    def decides_from(self) -> float:
        """``need`` for ``step.Table.add``'s ``larger``: math.inf where no ℓ up to
        ``SEARCH_MAX`` decides."""
        return math.inf if self.need is None else float(self.need)

    @property
    def need_text(self) -> str:
        """What would decide, priced as a chain draw (``need_text_for``)."""
        return self.need_text_for()

    def need_text_for(self, chain: bool = True) -> str:
        """The sizes that would decide and what one draw at the largest takes
        (``draw_cost``: a chain draw, or with ``chain`` False a law draw)."""
        if self.need is None:
            return f"no ell up to {SEARCH_MAX:.0e} decides it at beta = {self.beta:g}"
        return (f"needs three sizes from ell >= {self.need} (ell, 2 ell, 4 ell) at "
                f"beta = {self.beta:g}; {draw_cost(4 * self.need, chain)}")


DRAW_SECONDS = 9.8
"""One chain draw at ℓ = d_qk = 2000 on one core (``numerics.measure.measure_draw``;
docs/bench, 2026-12-07): the scale of ``draw_cost``'s time, which grows as ℓ³."""


LAW_DRAW_SECONDS = 1.1
"""One law draw (the spectrum of √ℓA⊥ alone) at ℓ = d_qk = 2000 on one core, from the same
profile of docs/bench: one of the chain draw's six spectra (its Gram product and ``syevd``,
4.2 s for six) and the sampling of S (the floor's 4.5 s less the spectra)."""


def draw_cost(ell: int, chain: bool = True) -> str:
    """What one chain draw at ℓ takes (``chain`` False: one law draw, the spectrum of √ℓA⊥
    alone): at least ``MATRICES_PER_DRAW`` ℓ×ℓ float64 arrays (Q and K besides) and about
    ``DRAW_SECONDS`` (``LAW_DRAW_SECONDS``) (ℓ/2000)³ of one core of this project's machine
    (a draw's work is ℓ³). Nothing here reads the machine: the text is part of a run's JSON,
    the same bytes wherever it runs."""
    need = 8 * MATRICES_PER_DRAW * ell * ell
    seconds = (DRAW_SECONDS if chain else LAW_DRAW_SECONDS) * (ell / 2000) ** 3
    return (f"one {'chain' if chain else 'law'} draw at ell = {ell} needs at least "
            f"{need / 2**30:.3g} GiB and about {time_text(seconds)} of one core (2-core "
            "machine of docs/bench)")


def sizes_from(need: float | None, beyond: int = 0) -> tuple[int, ...]:
    """The three sizes (ℓ, 2ℓ, 4ℓ) a fit reads from ``need``, where 4ℓ lies beyond the sizes
    measured (``beyond``, their largest); () where no need is known (None, 0 or math.inf)
    or those sizes add none."""
    if not need or need == math.inf or 4 * need <= beyond:
        return ()
    ell = int(need)
    return (ell, 2 * ell, 4 * ell)


def sizes_that_decide(beta: float, y: float, sizes: Sequence[int]) -> tuple[int, ...]:
    """The sizes a run needs for its fits to ℓ → ∞ (``out_of_reach``'s regime): (ℓ, 2ℓ, 4ℓ)
    from the smallest ℓ inside it; () where three of ``sizes`` already are, or where no size
    is known to be."""
    regime = both(mass(beta, y, sizes), width(beta, y, sizes))
    return () if regime.first() is not None else sizes_from(regime.need)


def look_seconds(sizes: Sequence[int], draws: int,
                 law: Sequence[tuple[int, int]] = ()) -> float:
    """One core's seconds for ``draws`` chain draws at each of ``sizes`` (``DRAW_SECONDS``
    (ℓ/2000)³ a draw) and, where given, the law draws ``law`` ((ℓ, count) pairs,
    ``LAW_DRAW_SECONDS`` (ℓ/2000)³ each); at least: the steps' own work comes on top."""
    chain = draws * sum(DRAW_SECONDS * (ell / 2000) ** 3 for ell in sizes)
    return float(chain + sum(n * LAW_DRAW_SECONDS * (ell / 2000) ** 3 for ell, n in law))


def both(*regimes: Regime) -> Regime:
    """Sizes inside every regime; the reasons of those that exclude some, and the largest of
    their needs."""
    inside = tuple(all(r.inside[i] for r in regimes) for i in range(len(regimes[0].inside)))
    out = [r for r in regimes if not all(r.inside)]
    if not out:
        return Regime(inside)
    needs = [r.need for r in out]
    return Regime(inside, "; ".join(r.why for r in out),
                  None if None in needs else max(needs), out[0].beta)


def _doubling(start: int) -> Iterator[int]:
    """start, 2 start, 4 start, … while 4ℓ ≤ ``SEARCH_MAX``."""
    ell = start
    while ell * 4 <= SEARCH_MAX:
        yield ell
        ell *= 2


def _first_admitting(ok: Callable[[int], bool], start: int) -> int | None:
    """The smallest ℓ ≥ start on a doubling grid from which ``ok`` holds at three sizes in a
    row (ℓ, 2ℓ, 4ℓ); None below ``SEARCH_MAX``."""
    return next((ell for ell in _doubling(start) if ok(ell) and ok(2 * ell) and ok(4 * ell)),
                None)


@lru_cache(maxsize=256)
def mass_deficit(beta: float, y: float, ell: int) -> float:
    """E m₁(√ℓA⊥)/θ₁ − 1 at ℓ and d_qk = round(ℓ/y), exactly."""
    return float(expected_mass_difference(beta, ell, d_rule(ell, y)))


def _mass_bias(beta: float, y: float, sizes: Sequence[int]) -> float:
    """The exact relative mass deficits at ``sizes``, extrapolated to ℓ → ∞ the way the rows
    fit (m∞ + b₁/ℓ + b₂/ℓ², as far as the sizes allow): where they follow that form, this is
    0, the deficit's true limit."""
    deficits = [mass_deficit(beta, y, ell) for ell in sizes]
    k = len(sizes)
    return stats.extrapolate(sizes, deficits, [1.0] * k, [math.inf] * k,
                             MASS_POWERS[:max(1, k - 2)]).value


def mass(beta: float, y: float, sizes: Sequence[int]) -> Regime:
    """The largest sizes (three at least) whose exact mass deficits, fitted as the rows fit,
    extrapolate to within ``MASS_SHARE`` of 0."""
    sizes = list(sizes)
    for first in range(len(sizes) - MIN_SIZES + 1):
        if abs(_mass_bias(beta, y, sizes[first:])) <= MASS_SHARE:
            return Regime(tuple(i >= first for i in range(len(sizes))),
                          "" if first == 0 else f"the exact mass's finite-size term is not "
                          f"b/ell below ell = {sizes[first]}", sizes[first], beta)
    shares = ", ".join(f"{100 * mass_deficit(beta, y, ell):.0f}%" for ell in sizes)
    found = next((ell for ell in _doubling(max(sizes)) if abs(_mass_bias(
        beta, y, [ell, 2 * ell, 4 * ell])) <= MASS_SHARE), None)
    return Regime((False,) * len(sizes), f"the exact mass m_1 differs from theta1 by "
                  f"{shares} at ell = {', '.join(map(str, sizes))} and its fit to ell -> inf "
                  f"misses it by {100 * abs(_mass_bias(beta, y, sizes[-MIN_SIZES:])):.2g}% (its "
                  f"finite-size term is not b/ell)", found, beta)


def out_of_reach(beta: float, y: float, sizes: Sequence[int], chain: bool = True) -> str:
    """What a run at these sizes cannot decide, said before it measures: where fewer than
    three of the sizes lie in the softmax's linear regime (``mass``) and where d_qk is wide
    enough for the fits' b/ℓ (``width``), every step that extrapolates to ℓ → ∞ stays
    INCONCLUSIVE; the text names the sizes that would decide and what one draw there takes
    (``Regime.need_text``; ``chain`` False: priced as a law draw, for runs whose steps read
    no chain draw). '' where three sizes are inside."""
    sizes = list(sizes)
    regime = both(mass(beta, y, sizes), width(beta, y, sizes))
    if regime.first() is not None:
        return ""
    deciding = ("" if regime.need is None else "deciding them ") + regime.need_text_for(chain)
    return (f"at beta = {beta:g}, y = {y:g} fewer than three of ell = "
            f"{', '.join(map(str, sizes))} lie where the fits to ell -> inf hold "
            f"({regime.why}): the steps that extrapolate will report what these sizes show "
            f"(the law steps: each moment against nu_infinity and the i.i.d. surrogate at "
            f"every size) and stay INCONCLUSIVE; {deciding}; {linear_from(beta)}")


@lru_cache(maxsize=1)
def _temperature_thresholds() -> tuple[tuple[str, float], ...]:
    return tuple((name, float(star)) for name, star in temperature_thresholds().items())


def linear_from(beta: float) -> str:
    """Where the temperature audit puts each quantity's linear regime at β: below its
    threshold c* in c = β/√(log ℓ) (``theory.threshold.temperature_thresholds``, their ℓ → ∞
    values, docs/math.md §6), that is from

    .. math:: \\ell^* = e^{(\\beta/c^*)^2}

    (an estimate: finite sizes move each c* by a few hundredths, §6)."""
    starts = ", ".join(f"{name} {math.exp(min((beta / star) ** 2, 700.0)):.3g}"
                       for name, star in _temperature_thresholds())
    return (f"the temperature audit's thresholds (c = beta/sqrt(log ell) below c*, their "
            f"limits) put each quantity's linear regime from about ell = e^((beta/c*)^2): "
            f"{starts}")


@lru_cache(maxsize=64)
def _heads_law(beta: float, y: float, heads: int) -> mh.Law:
    """ν_{∞,h} of h heads with d_K = ℓ/y each (γ_K = h/y), θ's at 20 digits."""
    t1, t2 = (sp.Float(v, 20) for v in ex.thetas(beta))
    return mh.law("attention", t1, t2, heads, sp.Integer(heads) / sp.Rational(str(y)))


@lru_cache(maxsize=64)
def _law_threshold(beta: float, y: float, heads: int) -> float:
    """a_c from ν_{∞,h} (``numerics.multi_head_law.outlier_threshold``), for every h."""
    return float(outlier_threshold(_heads_law(beta, y, heads), heads, dps=15))


@lru_cache(maxsize=64)
def _law_edge(beta: float, y: float, heads: int) -> float:
    """The right edge E of ν_{∞,h} (``numerics.multi_head_law.edge_stieltjes``)."""
    return edge_stieltjes(_heads_law(beta, y, heads), dps=15)[0]


@lru_cache(maxsize=64)
def threshold(beta: float, y: float, heads: int = 1) -> float:
    """a_c: the smallest entry of one head's √ℓA that makes an outlier, for h heads of ℓ
    tokens with d_K = ℓ/y each (``numerics.multi_head_law.outlier_threshold``: the entry is
    a/√h in √(ℓ/h)[A_1 … A_h]); one head: ``theory.outliers.edge_point``, the same number."""
    if heads == 1:
        return float(th.edge_point(beta, y)[2])
    return _law_threshold(beta, y, heads)


@lru_cache(maxsize=256)
def expected_outliers(beta: float, y: float, ell: int, heads: int = 1,
                      long: bool = True) -> float:
    """N(ℓ): the expected number of outliers of √ℓA⊥: entries above a_c, each one, and
    (``long``) queries and keys long enough to make one of their own
    (``numerics.outliers``); for h heads of ℓ tokens, h times one head's count, its entries
    read against the h heads' own a_c (``threshold``) and its long queries and keys against
    the single head's thresholds (the h heads' are not derived here: an overcount)."""
    a_c = threshold(beta, y, heads)
    d = d_rule(ell, y)
    n = float(expected_entries_above(a_c, ell, d, beta))
    if long:
        n += expected_long(ell, d, *th.long_thresholds(beta, y))
    return heads * n


@lru_cache(maxsize=256)
def resolved_entry(beta: float, y: float, ell: int, heads: int = 1) -> float:
    """The entry a of one head's √ℓA whose outlier λ(a) lies ``RESOLUTION``·E·ℓ^{-2/3} above
    the bulk edge E, the edge's finite-size window: entries between a_c and this one make
    outliers that size ℓ does not yet show above the bulk (``numerics.multi_head_law
    .entry_for_location``, for one head too: it equals ``theory.outliers
    .entry_for_location`` there, and keeps to one route of the law at every β)."""
    window = 1 + RESOLUTION * ell ** (-2 / 3)
    return float(entry_for_location(_heads_law(beta, y, heads), heads,
                                    _law_edge(beta, y, heads) * window, dps=15))


@lru_cache(maxsize=256)
def unresolved(beta: float, y: float, ell: int, heads: int = 1) -> float:
    """The expected number of entries of h heads' √ℓA between a_c and ``resolved_entry``:
    outliers still inside the edge's finite-size window at ℓ. Both ends from one route, the
    law ν_{∞,h} (``numerics.multi_head_law``; a_c equals ``threshold``'s, tested)."""
    d, a_c, a_w = d_rule(ell, y), _law_threshold(beta, y, heads), resolved_entry(beta, y, ell,
                                                                                   heads)
    return heads * (expected_entries_above(a_c, ell, d, beta)
                    - expected_entries_above(a_w, ell, d, beta))


def resolved(beta: float, y: float, sizes: Sequence[int], heads: int = 1) -> Regime:
    """The sizes where at most ``UNRESOLVED_MAX`` outliers are expected inside the edge's
    finite-size window (``unresolved``). Each one leaves the bulk as ℓ grows: it moves the
    clipped moments and the rank of the bulk edge λ_(r+1) by terms that are not b/ℓ."""
    def why() -> str:
        counts = ", ".join(f"{unresolved(beta, y, ell, heads):.2g}" for ell in sizes)
        return (f"{counts} outliers expected within E ell^(-2/3) of the edge at ell = "
                f"{', '.join(map(str, sizes))} (they leave the bulk as ell grows; a size "
                f"counts from at most {UNRESOLVED_MAX:g})")

    return _per_size(lambda ell: unresolved(beta, y, ell, heads) <= UNRESOLVED_MAX, sizes,
                     why, beta)


def cut(beta: float, y: float, ell: int, base: int, heads: int = 1) -> int:
    """r(ℓ) = max(base, the 99% Poisson quantile of N(ℓ)): the top values taken out."""
    return max(base, int(poisson.ppf(QUANTILE, expected_outliers(beta, y, ell, heads))))


def bulk(beta: float, y: float, sizes: Sequence[int], base: int,
         heads: int = 1, share: float = BULK_SHARE) -> tuple[Regime, int]:
    """The bulk's regime and its cut: the largest sizes (three at least) for which one r, the
    largest r(ℓ) among them, is at most ``share`` of the smallest (one r for all the
    sizes of a fit, so that the cut's own finite-size term keeps its form; the bulk edge
    λ_(r+1) takes ``EDGE_SHARE``)."""
    sizes = list(sizes)
    r_of = [cut(beta, y, ell, base, heads) for ell in sizes]
    for first in range(len(sizes) - MIN_SIZES + 1):
        r = max(r_of[first:])
        if r <= share * sizes[first]:
            return Regime(tuple(i >= first for i in range(len(sizes))),
                          "" if first == 0 else f"the predicted outliers fill more than "
                          f"{100 * share:g}% of the spectrum below ell = {sizes[first]}",
                          sizes[first], beta), r
    counts = ", ".join(f"{expected_outliers(beta, y, ell, heads):.3g}" for ell in sizes)
    def fits(ell):
        return max(cut(beta, y, v, base, heads) for v in (ell, 2 * ell, 4 * ell)) \
            <= share * ell
    found = next((ell for ell in _doubling(max(sizes)) if fits(ell)), None)
    return Regime((False,) * len(sizes), f"the predicted outliers ({counts} expected at ell = "
                  f"{', '.join(map(str, sizes))}) fill more than {100 * share:g}% of the "
                  f"spectrum", found, beta), max(r_of)


def full(beta: float, y: float, sizes: Sequence[int], heads: int = 1) -> Regime:
    """The full spectrum: sizes where the entries' N(ℓ) grows by at most ``GROWTH`` from the
    size before (the smallest: to the next), or stays below one: there the outliers are an
    O(1/ℓ) term of every moment (the long queries' and keys' count only falls with ℓ)."""
    def ok_at(ell: int, before: int) -> bool:         # the entries' outliers: those that grow
        n = expected_outliers(beta, y, ell, heads, long=False)
        return n <= max(GROWTH * expected_outliers(beta, y, before, heads, long=False), 1.0)

    steps = [ok_at(ell, prev) for prev, ell in pairwise(sizes)]
    inside = tuple(steps[:1] + steps)
    if all(inside):
        return Regime(inside)
    counts = ", ".join(f"{expected_outliers(beta, y, ell, heads, long=False):.3g}"
                       for ell in sizes)
    start = _first_admitting(lambda ell: ok_at(ell, ell // 2), max(sizes))
    return Regime(inside, f"the predicted outliers ({counts} expected at ell = "
                  f"{', '.join(map(str, sizes))}) grow with ell, so the full spectrum's "
                  f"finite-size term is not b/ell", start, beta)




@lru_cache(maxsize=256)
def partners(beta: float, y: float, ell: int) -> float:
    """The expected number of other entries above a_c in the row and column of one above a_c
    (``numerics.outliers.partners_per_entry`` at d_qk = round(ℓ/y))."""
    a_c = float(th.edge_point(beta, y)[2])
    return partners_per_entry(a_c, ell, d_rule(ell, y), beta)


def _per_size(ok: Callable[[int], bool], sizes: Sequence[int], why: Callable[[], str],
              beta: float) -> Regime:
    """The sizes where ``ok`` holds; ``why()`` says what the rule saw where some do not."""
    inside = tuple(ok(ell) for ell in sizes)
    if all(inside):
        return Regime(inside)
    return Regime(inside, why(), _first_admitting(ok, min(sizes)), beta)


def isolated(beta: float, y: float, sizes: Sequence[int]) -> Regime:
    """The sizes where the spikes are isolated: ``partners`` at most ``ISOLATED_SHARE``."""
    def why() -> str:
        shares = ", ".join(f"{partners(beta, y, ell):.2g}" for ell in sizes)
        return (f"an entry above a_c expects {shares} others above a_c in its row and column "
                f"at ell = {', '.join(map(str, sizes))} (long queries and keys at d_qk = "
                f"ell/{y:g}: the spikes are not isolated above {ISOLATED_SHARE:g})")

    return _per_size(lambda ell: partners(beta, y, ell) <= ISOLATED_SHARE, sizes, why, beta)


def normaliser_rate(beta: float, y: float, sizes: Sequence[int]) -> Regime:
    """The sizes where ‖M0 − Y‖_F's predicted local slope (ℓ to 2ℓ, exact in d_qk) is within
    ``SLOPE_SHARE`` of −1/2."""
    def why() -> str:
        slopes = ", ".join(f"{local_slope(beta, y, ell):.2f}" for ell in sizes)
        return (f"the predicted local slope of ||M0 - Y||_F is {slopes} at ell = "
                f"{', '.join(map(str, sizes))} (d_qk = ell/{y:g}; a size counts within "
                f"{SLOPE_SHARE:g} of -0.5)")

    return _per_size(lambda ell: abs(local_slope(beta, y, ell) + 0.5) <= SLOPE_SHARE, sizes,
                     why, beta)


def tail_bound(p: int, beta: float) -> float:
    """The d_qk above which a z-test of a degree-p statistic of X_ij is sound: (4p)²β².

    E X^q = E e^{q²β²v/2 − qβ²/2} is finite iff d_qk > q²β². A statistic of degree p
    has a variance iff q = 2p is finite and a consistent standard error iff q = 4p is.
    """
    return (4 * p) ** 2 * beta**2


def _d_qk_above(bound: float, beta: float, y: float, sizes: Sequence[int], what: str
                ) -> Regime:
    """The sizes where d_qk = round(ℓ/y) exceeds ``bound``; ``what`` says why it must."""
    def why() -> str:
        return (f"d_qk = {', '.join(str(d_rule(ell, y)) for ell in sizes)} at ell = "
                f"{', '.join(map(str, sizes))}, at most {bound:g}, where {what}")

    return _per_size(lambda ell: d_rule(ell, y) > bound, sizes, why, beta)


def width(beta: float, y: float, sizes: Sequence[int]) -> Regime:
    """The sizes where d_qk = round(ℓ/y) is at least ``WIDTH_MIN``: below, the scores' finite
    width puts terms in d_qk^{-2} = y²/ℓ² into a spectrum's moments as large as the fitted
    b/ℓ, and the fit's form does not hold."""
    return _d_qk_above(WIDTH_MIN - 1, beta, y, sizes,
                       "the scores' width makes terms in y^2/ell^2 as large as the fit's b/ell")


def key_norms(beta: float, y: float, sizes: Sequence[int], degree: int = 1) -> Regime:
    """The sizes where a degree-q statistic of Σ_f, the keys' covariance E_q f(S)f(S)ᵀ, has
    a consistent standard error: d_qk > 16qβ².

    Σ_f's diagonal is e^{2β²c_j − β²} with c_j = ‖k_j‖²/d_qk, and
    E e^{2mβ²c} = (1 − 4mβ²/d_qk)^{−d_qk/2} is finite iff d_qk > 4mβ²; a mean of its q-th
    power needs m = 4q for a consistent standard error.
    """
    return _d_qk_above(16 * degree * beta**2, beta, y, sizes,
                       f"a degree-{degree} mean of the keys' covariance Sigma_f (its diagonal "
                       f"e^(2 b^2 |k|^2/d_qk)) has no consistent standard error")


def tails(beta: float, y: float, sizes: Sequence[int], degree: int = 2) -> Regime:
    """The sizes where one draw's ℓ² scores hold at least ``TAIL_ENTRIES`` beyond the point
    that carries E e^{degree·βS} at d_qk = round(ℓ/y) (``numerics.outliers.tilt_tail``)."""
    def reach(ell: int) -> float:
        return ell * ell * tilt_tail(degree, beta, d_rule(ell, y))

    def why() -> str:
        counts = ", ".join(f"{reach(ell):.2g}" for ell in sizes)
        return (f"one draw holds {counts} scores beyond the point that carries E f(S)^{degree} "
                f"at ell = {', '.join(map(str, sizes))} (d_qk = ell/{y:g}; a size counts from "
                f"{TAIL_ENTRIES:g})")

    return _per_size(lambda ell: reach(ell) >= TAIL_ENTRIES, sizes, why, beta)


def cache_clear() -> None:
    """Forget every cached prediction of this module and the outlier theory it reads (for
    tests that inject wrong mathematics)."""
    for cached in (mass_deficit, threshold, expected_outliers, partners, resolved_entry,
                   unresolved, _heads_law, _law_threshold, _law_edge, th.edge_point,
                   th._g_float, th.long_thresholds):
        cached.cache_clear()


__all__ = ["BULK_SHARE", "EDGE_SHARE", "ISOLATED_SHARE", "MASS_SHARE",
           "MIN_SIZES", "RESOLUTION", "SLOPE_SHARE", "TAIL_ENTRIES", "UNRESOLVED_MAX",
           "WIDTH_MIN", "Regime", "both", "bulk", "cache_clear", "cut", "expected_outliers",
           "full", "isolated", "key_norms", "mass", "mass_deficit", "normaliser_rate",
           "out_of_reach", "partners", "resolved", "resolved_entry", "tail_bound", "tails",
           "threshold", "unresolved", "width"]
