r"""``attnge verify`` on a terminal, as pytest does it: one line per step, the failing checks
in full, then the summary; ``-v`` adds every step's claim, derivations (Unicode math) and
tables. The files (``--report``, ``--json``) keep everything, in LaTeX.

A step's line: its id, its verdict, how many checks passed and how many could not decide,
its sharpest ``detectable`` (the smallest relative error one of its value checks would
catch) and its seconds.
"""

from __future__ import annotations

import math
import re

from pylatexenc.latex2text import LatexNodes2Text

from attnge.judging import INCONCLUSIVE, time_text
from attnge.output.report import markdown_table, summary
from attnge.runner import Run, StepResult
from attnge.step import Table

_SUPER = dict(zip("0123456789+-=()n", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿ"))
_SUB = dict(zip("0123456789+-=()", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎"))
_GROUP = r"\{([^{}]*)\}"


def _script(text: str, table: dict, mark: str) -> str:
    """A sub- or superscript: in small characters where each has one, else ``mark(text)``
    (or ``mark`` text for one character)."""
    text = text.strip()
    if text and all(c in table for c in text):
        return "".join(table[c] for c in text)
    return mark + (text if re.fullmatch(r"\w+", text) else f"({text})")


def unicode_math(latex: str) -> str:
    r"""LaTeX as one line of Unicode math: greek letters, operators and blackboard letters
    by ``pylatexenc``; fractions, sub- and superscripts grouped first (innermost outward),
    which it would otherwise run together (``e^{\beta^{2}}`` would read e^β^2).

    >>> unicode_math(r"\frac{e^{\beta^{2}} - 1}{2} \le \theta_{1}")
    '(e^(β²) - 1)/2 ≤ θ₁'
    """
    text = re.sub(r"\\(left|right)\\?\|", "‖", latex)
    text = re.sub(r"\\(left|right)\s*\\?", "", text).replace(r"\|", "‖")
    text = re.sub(r"\\begin\{cases\}(.*?)\\end\{cases\}",
                  lambda m: "{" + m[1].replace("\\\\", "; ").replace("&", " ") + "}", text)
    text = re.sub(r"\\mathbb\{E\}", "𝔼", text)
    for _ in range(64):      # innermost groups first: each pass removes one level
        new = re.sub(r"\\(?:mathrm|operatorname|text|mathbf)" + _GROUP, r"\1", text)
        new = re.sub(r"\\sqrt\[([^\]]*)\]" + _GROUP, lambda m: f"{m[1]}√{_wrap(m[2])}", new)
        new = re.sub(r"\\sqrt" + _GROUP, lambda m: f"√{_wrap(m[1])}", new)
        new = re.sub(r"\\frac" + _GROUP + _GROUP, lambda m: f"{_wrap(m[1])}/{_wrap(m[2])}",
                     new)
        new = re.sub(r"\^" + _GROUP, lambda m: _script(m[1], _SUPER, "^"), new)
        new = re.sub(r"_" + _GROUP, lambda m: _script(m[1], _SUB, "_"), new)
        new = re.sub(r"\^([0-9])", lambda m: _SUPER[m[1]], new)
        new = re.sub(r"_([0-9])", lambda m: _SUB[m[1]], new)
        if new == text:
            break
        text = new
    text = LatexNodes2Text(math_mode="text").latex_to_text(text)
    text = re.sub(r"\s*([=≤≥<>→≈⊠∧∨])\s*", r" \1 ", text)
    return re.sub(r"\s+", " ", text).strip()


def _wrap(text: str) -> str:
    text = text.strip()
    return text if re.fullmatch(r"[\w.\\√]+", text) else f"({text})"


def _checks(result: StepResult) -> tuple[int, int, int]:
    verdicts = [v for t in result.tables for v in t.verdicts if v is not None]
    return (sum(v is True for v in verdicts), sum(v == INCONCLUSIVE for v in verdicts),
            len(verdicts))


def sharpest(result: StepResult) -> float | None:
    """The smallest ``detectable`` of the step's value checks (None if it has none)."""
    found = [v["detectable"] for t in result.tables for v in t.values
             if isinstance(v.get("detectable"), float) and math.isfinite(v["detectable"])]
    return min(found, default=None)


def step_line(result: StepResult, width: int = 18) -> str:
    """``id  PASS  12/14 passed, 2 inconclusive  detects 0.51%  3.2 s`` (INC: the step is
    INCONCLUSIVE, ``StepResult.verdict``)."""
    passed, open_, total = _checks(result)
    verdict = "INC" if result.verdict == INCONCLUSIVE else result.verdict
    counts = f"{passed}/{total} passed" + (f", {open_} inconclusive" if open_ else "")
    det = sharpest(result)
    detects = "" if det is None else f"detects {det:.2g}".replace("e-0", "e-") \
        if det < 1e-3 else f"detects {det:.2%}"
    return f"{result.step.id:<{width}} {verdict:<5} {counts:<30} {detects:<16} " \
        f"{result.wall_s:6.1f} s".rstrip()


def failing(table: Table) -> Table:
    """The table with its failing rows only."""
    out = Table(table.title, table.columns, note=table.note)
    for row, verdict in zip(table.rows, table.verdicts):
        if verdict is False:
            out.add(row, verdict)
    return out


def verbose_step(result: StepResult) -> str:
    """Everything a step printed before: claim, derivations (Unicode), method, tables."""
    step = result.step
    parts = [f"{step.id}: {step.title} — {result.verdict}", "",
             f"Claim: {step.claim}", f"        {unicode_math(step.latex())}", "",
             "Derived (SymPy):"]
    parts += [f"  {name}: {unicode_math(latex)}" for name, latex in result.derived.items()]
    parts += ["", f"Check: {step.method}", "", f"Fails when: {step.failure}", ""]
    parts += [markdown_table(t) + "\n" for t in result.tables]
    return "\n".join(parts)


def id_width(steps) -> int:
    """The width of the id column for these steps (each printed as it is decided)."""
    return max([18, *(len(step.id) + 1 for step in steps)])


def closing(run: Run, verbose: bool = False) -> str:
    """What follows the step lines: with ``verbose`` every step in full, the failing
    checks of each failed step, and the summary (an interrupted run says which steps it
    did not reach)."""
    blocks = []
    if verbose:
        blocks += [verbose_step(r) for r in run.results]
    for r in run.results:
        if r.passed or verbose:
            continue
        tables = [failing(t) for t in r.tables if not t.passed]
        blocks.append("\n\n".join([f"FAILED {r.step.id}: {r.step.title}",
                                   *(markdown_table(t) for t in tables)]))
    blocks.append(summary(run))
    return "\n" + "\n\n".join(blocks) + "\n"


def decided(record: dict) -> str:
    """What ``--decide`` spent: its looks (draws per size, the steps run, seconds), each
    step's draws and verdict, and for the steps left undecided what would decide them."""
    lines = [f"--decide: {len(record['looks'])} look(s) within a budget of "
             f"{record['budget_s']:.0f} s, {record['spent_s']:.0f} s spent; every look judged at "
             + ", ".join(f"{name} {z:.3g}" for name, z in record["z_per_look"].items())
             + f"; {record['draws_measured']} draws measured, {record['draws_read']} read "
             "from the store"]
    for k, look in enumerate(record["looks"], start=1):
        at = f" at ell = {', '.join(map(str, look['sizes']))}" if "sizes" in look else ""
        lines.append(f"  look {k}: {look['draws']} draws per size{at}, {len(look['steps'])} "
                     f"step(s), {look['seconds']:.0f} s")
    open_ = [sid for sid, s in record["steps"].items()
             if s["verdict"] == INCONCLUSIVE and "stalled" not in s]
    for sid, s in record["steps"].items():
        at = f" at ell = {', '.join(map(str, s['sizes']))}" if "sizes" in s else ""
        lines.append(f"  {sid}: {s['verdict']} at {s['draws']} draws per size{at}"
                     + (f"; {s['stalled']}" if "stalled" in s else ""))
    for need in record.get("sizes_needed", []):
        if not need["sizes"]:
            lines.append(f"  {', '.join(need['steps'])}: out of reach: {need['not_taken']}")
            continue
        workers = need["workers"]       # as runner.decide prices the look
        lines.append(
            f"  {', '.join(need['steps'])}: rows outside their fits' regime at the sizes "
            f"looked at; ell = {', '.join(map(str, need['sizes']))} (--sizes) would put three "
            f"inside it, and a look there at {need['draws']} draws per size takes at least "
            f"{time_text(need['core_seconds'])} of one core: "
            f"{time_text(need['core_seconds'] / workers)} on this machine ({workers} draw(s) "
            "side by side, as its cores and memory allow), "
            f"{time_text(need['core_seconds'] / 16)} on 16 Dask workers (--scheduler)"
            + (f"; not taken: {need['not_taken']}" if "not_taken" in need else ""))
    larger = [sid for sid in open_ if "sizes" in record["steps"][sid]]
    if record["stopped"]:
        lines.append(f"  {record['stopped']} ({', '.join(open_)} undecided)")
    elif larger:
        lines.append(f"  {', '.join(larger)}: undecided at the larger sizes once the looks "
                     "ended; the rows say what would decide them (-v)")
    if not record["stopped"] and len(larger) < len(open_):
        lines.append(f"  {', '.join(s for s in open_ if s not in larger)}: more draws do not "
                     "decide; the rows say which sizes would (-v), and what one draw there "
                     "costs")
    return "\n".join(lines) + "\n"


def render(run: Run, verbose: bool = False) -> str:
    """The terminal's text of a run (see the module docstring): its step lines, then
    :func:`closing`."""
    width = id_width(r.step for r in run.results)
    return "\n".join(step_line(r, width) for r in run.results) + "\n" + closing(run, verbose)
