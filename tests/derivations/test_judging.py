"""The judging policy in one place: its rules, and no command with a threshold of its own."""

import ast
import math
from pathlib import Path

import numpy as np
import pytest

from attnge import judging

ROOT = Path(__file__).parents[2]


def test_decay_z_reads_the_slope_against_the_plateau():
    """z = −(ŝ + 1/4)/se on the normal scale: a slope of −1/2 ± 0.05 shrinks (z = 5), one of
    0 ± 0.05 has stopped (z = −5), and an exact slope is infinitely sure."""
    assert judging.decay_z({"slope": -0.5, "se": 0.05, "dof": math.inf}) == pytest.approx(5)
    assert judging.decay_z({"slope": 0.0, "se": 0.05, "dof": math.inf}) == pytest.approx(-5)
    assert judging.decay_z({"slope": -0.5, "se": 0.05, "dof": 3}) < 5     # few draws: less sure
    assert judging.decay_z({"slope": -1.0, "se": 0.0, "dof": 3}) == math.inf


def test_a_rival_at_the_prediction_cannot_be_ruled_out_by_any_draws():
    power, why = judging.Rival(0.5, "the twin").power(1e-9, 0.5)
    assert not power and "no number of draws rules it out" in why
    power, why, record = judging.Rival(0.0, "zero").judged(0.3, 1.0)
    assert power and why == "" and record == {"rival": 0.0, "rival_name": "zero",
                                              "rules_out_rival": True}


def test_verdict_words():
    assert [judging.verdict_text(v) for v in (True, False, judging.INCONCLUSIVE, None)] == \
        ["PASS", "FAIL", "INCONCLUSIVE", ""]
    assert judging.detectable(0.01, math.inf, 2.0, 4.0) == pytest.approx(0.02)


def _thresholds_and_words(path: Path) -> list[str]:
    """Module-level names bound to a z threshold (a number named Z, Z_… or …_Z) or to a
    verdict word, in one module."""
    words = {"GE HOLDS", "GE BREAKS", "INCONCLUSIVE", "PASS", "FAIL", "REFUSED"}
    found = []
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if not isinstance(node, ast.Assign):
            continue
        names = [t.id for t in node.targets if isinstance(t, ast.Name)]
        names += [e.id for t in node.targets if isinstance(t, ast.Tuple) for e in t.elts
                  if isinstance(e, ast.Name)]
        values = [c.value for c in ast.walk(node.value) if isinstance(c, ast.Constant)]
        numeric = isinstance(node.value, ast.Constant) and \
            isinstance(node.value.value, (int, float))
        z_named = any(n == "Z" or n.endswith("_Z") or n.startswith("Z_") for n in names)
        if (z_named and numeric) or words & set(values):
            found.append(f"{path.relative_to(ROOT)}: {', '.join(names)}")
    return found


def test_no_module_but_judging_defines_a_threshold_or_a_verdict_word():
    found = [hit for folder in ("derivations", "numerics", "theory")
             for path in sorted((ROOT / folder).rglob("*.py")) if path.name != "judging.py"
             for hit in _thresholds_and_words(path)]
    assert not found, found


def test_looking_again_at_the_per_look_z_keeps_the_false_alarm_rate():
    """A statistic whose prediction is true, looked at five times as its draws double (4, 8,
    …, 64), each look reusing the draws before: at a loosened z = 2 (α = 4.6%) the naive rule,
    z at every look, rejects in 16% of 40 000 runs; ``sequential_z`` in 3.6%, within α."""
    rng = np.random.default_rng(0)
    paths, looks, base = 40_000, 5, 2.0
    n = 4 * 2 ** np.arange(looks)
    sums = np.cumsum(rng.standard_normal((paths, looks)) * np.sqrt(np.diff(n, prepend=0)), 1)
    z = sums / np.sqrt(n)                               # each look's z of the mean so far
    alpha = math.erfc(base / math.sqrt(2))
    se = math.sqrt(alpha * (1 - alpha) / paths)
    naive = np.mean(np.any(np.abs(z) > base, axis=1))
    sequential = np.mean(np.any(np.abs(z) > judging.sequential_z(base, looks), axis=1))
    assert naive > alpha + 20 * se                      # looking again inflates the rate
    assert sequential <= alpha + 3 * se
    assert judging.sequential_z(base, 1) == pytest.approx(base)
    with pytest.raises(ValueError, match="looks must be"):
        judging.sequential_z(4.0, 0)


def test_decide_doubles_until_decided_or_undecidable_or_out_of_budget_or_looks():
    seen = []

    def look(n, z, decided_at=8, more=True):
        seen.append(n)
        assert z == judging.sequential_z(judging.DECAY_Z, judging.LOOKS_MAX)
        return (judging.HOLDS if n >= decided_at else judging.INCONCLUSIVE), more

    record, stopped = judging.decide(look, 2, 60)
    assert seen == [2, 4, 8] and stopped == "" and record["looks"][-1]["verdict"] == "GE HOLDS"
    assert record["z_per_look"] == judging.sequential_z(judging.DECAY_Z, judging.LOOKS_MAX)
    seen.clear()
    record, stopped = judging.decide(lambda n, z: look(n, z, more=False), 2, 60)
    assert seen == [2] and stopped == ""                     # no number of draws decides it
    seen.clear()
    record, stopped = judging.decide(look, 2, 0.0)
    assert seen == [2] and "(the budget spent)" in stopped
    assert record["looks"][0]["next"]["draws"] == 4
    seen.clear()
    record, stopped = judging.decide(look, 2, 60, price=lambda have, total: 3600.0 * (total - have))
    assert seen == [2] and "of the budget left" in stopped and "would take about 2 h" in stopped
    seen.clear()
    record, stopped = judging.decide(lambda n, z: look(n, z, decided_at=10**9), 1, 60)
    assert seen == [1, 2, 4, 8, 16, 32] and f"{judging.LOOKS_MAX} looks taken" in stopped
