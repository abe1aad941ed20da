"""The terminal's text: one line per step, the failing checks in full, the summary."""

from attnge.judging import INCONCLUSIVE
from attnge.output.terminal import render, step_line, unicode_math
from attnge.params import Params
from attnge.runner import Run, StepResult
from attnge.step import Step, Table


def _result(verdicts, detectable=0.012, step_id="demo") -> StepResult:
    table = Table("a check", ["quantity", "value"])
    for k, verdict in enumerate(verdicts):
        table.add([f"row {k}", k], verdict)
    table.values.append({"quantity": "row 0", "detectable": detectable})
    step = Step(step_id, "A demo step", "claim", lambda: r"\theta_{1}", lambda p: {},
                lambda p: [table], "method", "failure")
    return StepResult(step, {"m_1": r"e^{\beta^{2}} - 1"}, [table], 1.25)


def test_a_passing_step_is_one_line():
    line = step_line(_result([True, True, INCONCLUSIVE]))
    assert line.split()[:2] == ["demo", "PASS"]
    assert "2/3 passed, 1 inconclusive" in line and "detects 1.20%" in line
    assert line.endswith("1.2 s")


def test_a_failing_step_prints_its_failing_rows_only_and_the_summary_last():
    run = Run(Params(), [_result([True, False, True]), _result([True], step_id="other")])
    text = render(run)
    assert text.splitlines()[0].split()[:2] == ["demo", "FAIL"]
    assert "FAILED demo: A demo step" in text and "| row 1 | 1 | FAIL |" in text
    assert "row 0" not in text.split("FAILED")[1] and "row 2" not in text.split("FAILED")[1]
    assert text.strip().splitlines()[-1] == "attnge verify: 2 steps, 1 passed, 1 failed (demo)"


def test_verbose_prints_every_table_and_the_derivations_in_unicode():
    text = render(Run(Params(), [_result([True, True])]), verbose=True)
    assert "| row 0 | 0 | PASS |" in text and "m_1: e^(β²) - 1" in text
    assert "\\beta" not in text


def test_unicode_math_groups_what_latex_groups():
    assert unicode_math(r"\frac{\sqrt{2}}{2}") == "√2/2"
    assert unicode_math(r"\left\|A\right\|_{F}^{2} \le x_{ii}") == "‖A‖_F² ≤ x_ii"
    assert unicode_math(r"\mathbb{E}\, D_{ii} = \operatorname{Var} x") == "𝔼 D_ii = Var x"


def _with_rival(verdict, rules_out: bool, step_id: str) -> StepResult:
    result = _result([True, verdict], step_id=step_id)
    result.tables[0].values.append({"quantity": "gap", "passed": verdict, "rival": 0.0,
                                    "rival_name": "the surrogate", "rules_out_rival": rules_out})
    return result


def test_a_step_passes_only_when_it_rules_out_the_rival_it_names():
    """Issue 39: INCONCLUSIVE (INC) where the rival is not ruled out or nothing passed; the
    summary counts the inconclusive steps and the steps that ruled their rival out."""
    strong = _with_rival(True, True, "strong")
    weak = _with_rival(INCONCLUSIVE, False, "weak")
    open_ = _result([INCONCLUSIVE, INCONCLUSIVE], step_id="open")
    plain = _result([True, INCONCLUSIVE], step_id="plain")
    assert [r.verdict for r in (strong, weak, open_, plain)] == \
        ["PASS", INCONCLUSIVE, INCONCLUSIVE, "PASS"]
    assert (strong.rival_ruled_out, weak.rival_ruled_out, plain.rival_ruled_out) == \
        (True, False, None)
    assert step_line(weak).split()[:2] == ["weak", "INC"]
    text = render(Run(Params(), [strong, weak, open_, plain]))
    assert text.strip().splitlines()[-1] == (
        "attnge verify: 4 steps, 2 passed, 2 inconclusive (weak, open), 0 failed; 4 checks "
        "inconclusive; 1 of the 2 steps that name a rival ruled it out (strong)")
    failed = _with_rival(False, True, "failed")
    assert failed.verdict == "FAIL" and failed.rival_ruled_out is False
