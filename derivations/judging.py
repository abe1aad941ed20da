"""The judging policy: the verdicts, the thresholds and the rules that every command judges by.

``attnge verify`` (its steps' value, rate and rival rows, ``evidence``), ``attnge variants``
and ``attnge mha`` (Gaussian equivalence), ``attnge threshold`` (its crossings) and the truth
grid read their verdict words, z thresholds and shared rules from here, and nowhere else.

**Verdicts.** A check's verdict (``Verdict``) is True (PASS), False (FAIL), ``INCONCLUSIVE``
(the measurement cannot decide: too wide, outside its regime, or without the power to reject
its rival) or None (a row that is not a check); a step the input refuses is ``REFUSED``, a
step that raised ``ERROR``. A Gaussian-equivalence question is answered ``HOLDS``, ``BREAKS`` or
``INCONCLUSIVE``.

**Thresholds.** Every z below is on the normal scale: a T statistic at d degrees of freedom
is put there by ``numerics.stats.normal_equivalent``, and a width is the T quantile of the
same two-sided tail (``numerics.stats.t_critical``), so few draws do not pass for a stricter
test.

**Rules.**

- value: ``|z| ≤ VALUE_Z``; it detects ``detectable`` = ``t_z(d)·se/|predicted|``;
- rate: a fitted log–log slope within max(t_z(d)·se, tol) of its prediction, z = ``RATE_Z``;
- rival: a PASS needs the power to reject the value a wrong theory gives (``Rival``): what
  it detects, t_z(d)·se, at most ``RIVAL_SHARE`` of ``|predicted − rival|``;
- decay: a distance shrinks when its slope lies ``DECAY_Z`` errors below −``PLATEAU_SLOPE``
  and has stopped when it lies that many above (``decay_z``);
- looking again: a run that grows its draws until it decides (``--decide``) looks at most
  ``LOOKS_MAX`` times and judges every look at ``sequential_z``, so that all its looks
  together reject a true prediction no more often than one look at the fixed size does.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from scipy import special

from attnge.numerics import stats

Verdict = bool | str | None   # True (PASS), False (FAIL), INCONCLUSIVE, None (not a check)
INCONCLUSIVE = "INCONCLUSIVE"
"""A check's verdict when the measurement agrees with the prediction but cannot decide (too
wide, outside its regime, or without the power to reject its rival); it does not fail the
step, and the summaries count it."""
REFUSED, ERROR = "REFUSED", "ERROR"
"""A step its input refuses (a moment that does not exist at that β and d_qk), and a step
that raised (the truth grid's words)."""
HOLDS, BREAKS = "GE HOLDS", "GE BREAKS"
"""Gaussian equivalence: the layer or variant agrees with its Gaussian model, or the samples
reject it (exit 1)."""

Z_MAX = 5.0
"""Sampled moments of the exponential and the normalizer against their exact values."""
VALUE_Z = 4.0
"""A value row: |z| ≤ VALUE_Z."""
RATE_Z = 4.0
"""A rate row: the slope's width t_z(d)·se at z = RATE_Z."""
RIVAL_SHARE = 0.5
"""A PASS rules out its rival: its detectable error at most this share of the distance."""
DECAY_Z = 4.0
"""A variant's or a layer's values and distances: errors (normal-equivalent) that make a
miss, a shrinking distance or a plateau."""
PLATEAU_SLOPE = 0.25
"""A distance whose slope is above −PLATEAU_SLOPE by DECAY_Z errors is not shrinking."""

CROSSING_Z = 2.0
"""``attnge threshold``: the statistical part of a crossing's interval, the slopes'
t-widths at this normal two-sided z."""
SIGN_Z = 2.0
"""``attnge threshold``: a slope's sign counts as known when |slope| ≥ SIGN_Z se."""
SIZE_Z = 4.0
"""``attnge threshold``: a mean against its exact mean, |mean − exact| ≤ SIZE_Z se."""
SLOPE_TOLERANCE = 0.1
"""``attnge threshold``: an order's measured slope within max(4 se, this) of the exact one."""
READING_Z = 3.0
"""``attnge threshold``: two readings of T_q agree within READING_Z se, and are told apart
at that too."""
OUT_OF_REGIME = "not in its regime"
"""How an INCONCLUSIVE row that its sizes cannot decide begins its reason (more draws do
not help there: larger sizes do)."""
OVERFLOW = "overflows double precision"
"""How an INCONCLUSIVE row says a draw or its spread left double range (``evidence``)."""
MORE_NODES = "more nodes would decide"
"""How an INCONCLUSIVE row says its quadrature did not settle (``multi-head-law``)."""
NO_DRAWS = math.inf
"""The ``needs`` of an INCONCLUSIVE row that no number of draws decides (``step.Table.add``;
its reason begins with one of the three above): ``--decide`` does not grow the draws for it."""
LOOKS_MAX = 6
"""``--decide``: the looks a run may take, its draws doubling between them (up to 32 times
the first look's)."""


def verdict_text(verdict: Verdict) -> str:
    """PASS, FAIL, INCONCLUSIVE, or '' for a row that is not a check."""
    return "" if verdict is None else INCONCLUSIVE if verdict == INCONCLUSIVE \
        else "PASS" if verdict else "FAIL"


def detectable(se: float, dof: float, reference: float, z: float = Z_MAX) -> float:
    """The relative error of ``reference`` that a test at ``|z|`` detects.

    .. math:: \\delta = t_z(d)\\,\\mathrm{se}/|\\mathrm{reference}|
    """
    return stats.t_critical(z, dof) * se / abs(reference)


def decay_z(rate: dict) -> float:
    r"""How much faster than ℓ^{−1/4} (``PLATEAU_SLOPE``) a distance shrinks, in standard
    errors of its fitted log–log slope over every size (normal-equivalent at the slope's
    Welch dof): above ``DECAY_Z`` it shrinks, below −``DECAY_Z`` it has stopped.

    .. math:: z = -\frac{\hat s + 1/4}{\operatorname{se}(\hat s)}
    """
    if rate["se"] == 0:
        return math.copysign(math.inf, -(rate["slope"] + PLATEAU_SLOPE))
    return -stats.normal_equivalent((rate["slope"] + PLATEAU_SLOPE) / rate["se"], rate["dof"])


def sequential_z(z: float, looks: int = LOOKS_MAX) -> float:
    """The per-look threshold of a run that may look ``looks`` times: the two-sided tail of
    one look at ``z``, spent equally over the looks (Bonferroni), so that the chance that any
    look rejects a true prediction is at most that of one look at ``z``, whatever the looks'
    dependence (each look reuses the draws of the one before).

    .. math:: z_K = \\Phi^{-1}\\!\\left(1 - \\bar\\Phi(z)/K\\right)

    >>> round(sequential_z(4.0, 6), 3)
    4.405
    """
    looks = int(looks)
    if looks < 1:
        raise ValueError(f"looks must be an integer >= 1 (got {looks})")
    return float(-special.ndtri(special.ndtr(-z) / looks))


_LOOKS: ContextVar[int] = ContextVar("attnge_looks", default=1)


@contextmanager
def looking(looks: int = LOOKS_MAX) -> Iterator[None]:
    """Inside the block every threshold a check reads through :func:`at` is the per-look one
    of a run that may look ``looks`` times (``attnge verify --decide``)."""
    sequential_z(4.0, looks)                       # refuses a bad count before it is set
    token = _LOOKS.set(int(looks))
    try:
        yield
    finally:
        _LOOKS.reset(token)


def at_looks(z: float, looks: int = LOOKS_MAX) -> float:
    """The per-look threshold for ``z`` of a run that may look ``looks`` times (``z`` for one)."""
    return z if int(looks) == 1 else sequential_z(z, looks)


def at(z: float) -> float:
    """The threshold a check applies for the fixed-size threshold ``z``: ``z`` itself, or
    inside :func:`looking` its per-look ``sequential_z(z, looks)``.

    >>> at(VALUE_Z), round(at(Z_MAX), 3)
    (4.0, 5.0)
    >>> with looking(6):
    ...     round(at(VALUE_Z), 3), round(at(Z_MAX), 3)
    (4.405, 5.335)
    """
    return at_looks(z, _LOOKS.get())


def reach(looks_taken: int) -> int:
    r"""The factor of the draws that the looks left after ``looks_taken`` reach (each doubles
    them): a row that states it needs more is not grown.

    .. math:: 2^{\mathrm{LOOKS\_MAX} - k}
    """
    return 2 ** (LOOKS_MAX - looks_taken)


def decide(look: Callable[[int, float], tuple[str, bool]], draws: int, budget: float,
           looks_max: int | None = None,
           price: Callable[[int, int], float] | None = None) -> tuple[dict, str]:
    """``--decide``: call ``look(n, z)`` (measure up to n draws per size, keeping those already
    measured, judge them at z, the per-look ``sequential_z(DECAY_Z, LOOKS_MAX)``, and return
    the verdict and whether more draws could decide it) at n = ``draws``, 2·draws, 4·draws, …
    while the verdict is INCONCLUSIVE
    and more draws could decide it, as long as the next look, its time estimated from the
    last one's (as many new draws as there are), fits in what ``budget`` (seconds) leaves,
    at most ``looks_max`` looks (default ``LOOKS_MAX``; what a run's ``LOOKS_MAX`` leaves,
    where earlier looks took the rest: their z stays that of ``LOOKS_MAX``). ``price(have,
    total)``, where given, is a floor on that estimate: the seconds the draws from ``have``
    to ``total`` per size take on this machine by a model of their cost, for looks whose
    draws were read from a store (their time says nothing of a new draw's).

    Returns the record of the looks (the budget, the per-look z, each look's draws, verdict
    and seconds, the time spent) and what stopped it short of a decision ('' where it
    decided or no number of draws could): the next look's draws and estimated time.
    """
    z = sequential_z(DECAY_Z, LOOKS_MAX)
    looks_max = LOOKS_MAX if looks_max is None else looks_max
    looks, start, have, total, stopped = [], time.perf_counter(), 0, draws, ""
    while True:
        began = time.perf_counter()
        verdict, more = look(total, z)
        took = time.perf_counter() - began
        looks.append({"draws": total, "verdict": verdict, "seconds": took})
        if verdict != INCONCLUSIVE or not more:
            break
        estimate = took * total / max(total - have, 1)
        if price is not None:
            estimate = max(estimate, price(total, 2 * total))
        left = budget - (time.perf_counter() - start)
        if len(looks) >= looks_max or estimate > left:
            why = f"{LOOKS_MAX} looks taken" if len(looks) >= looks_max else left_text(left)
            looks[-1]["next"] = {"draws": 2 * total, "seconds": estimate}
            stopped = (f"--decide stopped ({why}): the next look, {2 * total} draws per "
                       f"size, would take about {time_text(estimate)} here")
            break
        have, total = total, 2 * total
    return {"budget_s": budget, "z_per_look": z, "looks": looks,
            "spent_s": time.perf_counter() - start}, stopped


def time_text(seconds: float) -> str:
    """Seconds as '12 s', '3.4 min' or '1.59 h'."""
    return (f"{seconds / 3600:.3g} h" if seconds >= 3600 else f"{seconds / 60:.3g} min"
            if seconds >= 60 else f"{seconds:.2g} s")


def left_text(left: float) -> str:
    """What a budget has left, as '3.4 min of the budget left' or 'the budget spent'."""
    return f"{time_text(left)} of the budget left" if left > 0 else "the budget spent"


def draws_that_fit(draws: int, seconds: Callable[[int], float], left: float,
                   fewest: int) -> tuple[int, float]:
    """The draws per size a first look starts from: ``draws``, or half, a quarter, … down to
    ``fewest``, the most whose look (``seconds(n)``, estimated) fits in ``left``; and that
    look's estimate (beyond ``left`` where even ``fewest`` does not fit)."""
    while True:
        estimate = seconds(draws)
        if estimate <= left or draws <= fewest:
            return draws, estimate
        draws = max(fewest, draws // 2)


@dataclass(frozen=True)
class Rival:
    """What a wrong theory predicts for a value row: ``value``, called ``name``."""

    value: float
    name: str

    def power(self, width: float, predicted: float, dof: float = math.inf,
              z: float | None = None) -> tuple[bool, str]:
        """Whether a check detecting ``width`` (absolute) rules this rival out, and where it
        does not, what it lacks and the draws that would give it (``draws_factor``).

        .. math:: \\mathrm{width} \\le \\mathrm{RIVAL\\_SHARE}\\,|\\mathrm{predicted}
                  - \\mathrm{value}|
        """
        allowed = RIVAL_SHARE * abs(predicted - self.value)
        factor = self.draws_factor(width, predicted, dof=dof, z=z)
        if factor <= 1:
            return True, ""
        more = (f"about {math.ceil(factor)}x the draws would rule it out"
                if math.isfinite(factor) else "no number of draws rules it out")
        return False, f"detects ±{width:.3g}, needs at most {allowed:.3g}; {more}"

    def draws_factor(self, width: float, predicted: float, floor: float = 0.0,
                     dof: float = math.inf, z: float | None = None) -> float:
        """The factor f of the draws that would give a check detecting ``width`` the power to
        rule this rival out (1 where it has it). ``NO_DRAWS`` where no number of draws
        does: the rival is the prediction, or the check's ``floor`` (a tolerance that draws
        do not narrow) is wider than the power allows.

        Its se falls as 1/√f; where ``width`` is t_z·se with ``dof`` degrees of freedom
        (``z`` given), the dof grow with the draws too, (dof + 1)f − 1, and the t quantile
        falls with them: with two draws (1 dof) t at the two-sided z = 4 is about 10⁴, 2500
        times z, and (width/allowed)² alone would ask for up to 10⁷ times the draws where 4
        to 11 times give the power.

        .. math:: \\min\\{f \\ge 1 : t_z((\\mathrm{dof} + 1)f - 1)\\,\\mathrm{se}
                  /\\sqrt{f} \\le \\mathrm{allowed}\\}
        """
        allowed = RIVAL_SHARE * abs(predicted - self.value)
        if floor > allowed:
            return NO_DRAWS
        if width <= allowed:
            return 1.0
        if allowed <= 0:
            return NO_DRAWS
        if z is None or math.isinf(dof):
            return (width / allowed) ** 2
        se = width / stats.t_critical(z, dof)

        def wide(f: float) -> bool:
            return stats.t_critical(z, (dof + 1) * f - 1) * se / math.sqrt(f) > allowed

        low, high = 1.0, (width / allowed) ** 2     # at high the t quantile only fell
        for _ in range(60):                          # bisection on log f, to 1e-6 relative
            if high / low < 1 + 1e-6:
                break
            mid = math.sqrt(low * high)
            low, high = (mid, high) if wide(mid) else (low, mid)
        return high

    def judged(self, width: float, predicted: float, dof: float = math.inf,
               z: float | None = None) -> tuple[bool, str, dict]:
        """``power`` as a row reports it: whether it rules the rival out, why not ('' where
        it does) and the fields its value record carries (``record``)."""
        power, lacks = self.power(width, predicted, dof, z)
        why = "" if power else f"cannot rule out {self.name} ({self.value:.6g}): {lacks}"
        return power, why, self.record(power)

    def record(self, ruled_out: bool) -> dict:
        """The fields a value record carries for its rival (read by ``StepResult``)."""
        return {"rival": self.value, "rival_name": self.name, "rules_out_rival": ruled_out}


__all__ = ["BREAKS", "CROSSING_Z", "DECAY_Z", "ERROR", "HOLDS", "INCONCLUSIVE",
           "LOOKS_MAX", "MORE_NODES", "NO_DRAWS", "OUT_OF_REGIME", "OVERFLOW", "PLATEAU_SLOPE",
           "RATE_Z", "READING_Z", "REFUSED", "RIVAL_SHARE", "Rival", "SIGN_Z", "SIZE_Z",
           "SLOPE_TOLERANCE", "VALUE_Z", "Verdict", "Z_MAX", "at", "at_looks", "decay_z", "decide",
           "detectable", "draws_that_fit", "left_text", "looking", "reach", "sequential_z",
           "time_text", "verdict_text"]
