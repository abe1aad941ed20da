"""Render a run: Markdown tables on the terminal, JSON for machines."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from derivations.runner import Run, StepResult
from derivations.step import Cell, Table


def cell(value: Cell) -> str:
    """A table cell as text (floats at full precision: repr)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def markdown_table(table: Table) -> str:
    columns = table.columns + (["verdict"] if any(v is not None for v in table.verdicts) else [])
    lines = [f"**{table.title}**", ""]
    if table.note:
        lines += [table.note, ""]
    header = [c.replace("|", "\\|") for c in columns]
    lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(columns)]
    for row, verdict in zip(table.rows, table.verdicts):
        cells = [cell(c).replace("|", "\\|") for c in row]  # a bar inside a cell is text
        if len(columns) > len(row):
            cells.append("" if verdict is None else ("PASS" if verdict else "FAIL"))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def markdown_step(result: StepResult) -> str:
    step = result.step
    verdict = "PASS" if result.passed else "FAIL"
    parts = [f"## {step.id}: {step.title} — {verdict}", "",
             f"Claim: {step.claim}", "", f"$$ {step.latex()} $$", "",
             "Derived (SymPy):", ""]
    parts += [f"- {name}: ${latex}$" for name, latex in result.derived.items()]
    parts += ["", f"Check: {step.method}", "", f"Fails when: {step.failure}", ""]
    for table in result.tables:
        parts += [markdown_table(table), ""]
    return "\n".join(parts)


def summary(run: Run) -> str:
    failed = [r.step.id for r in run.results if not r.passed]
    n = len(run.results)
    line = f"attnge verify: {n} step{'s' * (n != 1)}, {n - len(failed)} passed, " \
           f"{len(failed)} failed"
    return line + (f" ({', '.join(failed)})" if failed else "")


def markdown(run: Run) -> str:
    return "\n".join(markdown_step(r) for r in run.results) + "\n" + summary(run) + "\n"


def as_json(run: Run) -> dict:
    """Every number printed (tables at full precision), the derivations and provenance."""
    steps = []
    for r in run.results:
        steps.append({
            "id": r.step.id, "title": r.step.title, "claim": r.step.claim,
            "latex": r.step.latex(), "derived": r.derived,
            "method": r.step.method, "failure": r.step.failure,
            "passed": r.passed, "wall_s": round(r.wall_s, 3),
            "tables": [{"title": t.title, "note": t.note, "columns": t.columns,
                        "rows": [[cell(c) for c in row] for row in t.rows],
                        "verdicts": [None if v is None else ("PASS" if v else "FAIL")
                                     for v in t.verdicts]} for t in r.tables],
        })
    return {"passed": run.passed, "summary": summary(run), "steps": steps,
            "provenance": run.provenance()}


def write_atomic(path: str | Path, text: str) -> None:
    """Write a file atomically: a temporary file in the same folder, then a rename."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_json(run: Run, path: str | Path) -> None:
    write_atomic(path, json.dumps(as_json(run), indent=2, ensure_ascii=False) + "\n")
