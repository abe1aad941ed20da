"""Render a run in files: Markdown with LaTeX (``--report``), JSON for machines."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from attnge.judging import INCONCLUSIVE, verdict_text
from attnge.output.files import write_atomic
from attnge.runner import Run, StepResult
from attnge.step import Cell, Table


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
            cells.append(verdict_text(verdict))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def markdown_step(result: StepResult, figure: str | None = None) -> str:
    step = result.step
    verdict = result.verdict
    parts = [f"## {step.id}: {step.title} — {verdict}", "",
             f"Claim: {step.claim}", "", f"$$ {step.latex()} $$", "",
             "Derived (SymPy):", ""]
    parts += [f"- {name}: ${latex}$" for name, latex in result.derived.items()]
    parts += ["", f"Check: {step.method}", "", f"Fails when: {step.failure}", ""]
    for table in result.tables:
        parts += [markdown_table(table), ""]
    if figure is not None:
        parts += [f"![{step.id}: errors against size, log-log, with fitted slopes]({figure})", ""]
    return "\n".join(parts)


def figure_series(result: StepResult) -> list[dict]:
    return [s for table in result.tables for s in table.series]


def plot_series(series: list[dict], title: str, path: str | Path) -> None:
    """One log–log panel per fitted rate: points ± se, the fitted line, its slope."""
    from attnge.output.figures import pyplot, save

    plt = pyplot()
    cols = min(4, len(series))
    rows = -(-len(series) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.2 * rows), squeeze=False)
    for ax, s in zip(axes.flat, series):
        x, v = np.array(s["xs"]), np.array(s["values"])
        ax.errorbar(x, v, yerr=s["errors"], fmt="o", ms=4, capsize=2)
        if np.all(v > 0):
            b = np.mean(np.log(v) - s["slope"] * np.log(x))
            ax.plot(x, np.exp(b) * x ** s["slope"], "-", lw=1,
                    label=f"slope {s['slope']:.3g} ± {s['slope_se']:.2g} "
                          f"(predicted {s['predicted']:.3g})")
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.legend(fontsize=7)
        ax.set_title(s["label"], fontsize=8)
        ax.set_xlabel({"ell": r"$\ell$", "n": r"$n$"}.get(s["x"], s["x"]))
        ax.set_ylabel("mean over draws ± se")
    for ax in list(axes.flat)[len(series):]:
        ax.axis("off")
    fig.suptitle(title)
    fig.tight_layout()
    save(fig, path)


def write_report(run: Run, folder: str | Path) -> Path:
    """report.md (claims, derivations, tables, one log–log figure per step) and report.json."""
    folder = Path(folder)
    parts = []
    for r in run.results:
        series = figure_series(r)
        figure = None
        if series:
            figure = f"{r.step.id}.png"
            plot_series(series, f"{r.step.id}: errors against size", folder / figure)
        parts.append(markdown_step(r, figure))
    write_atomic(folder / "report.md", "\n".join(parts) + "\n" + summary(run) + "\n")
    write_json(run, folder / "report.json")
    return folder / "report.md"


def rivals(run: Run) -> tuple[list[str], list[str]]:
    """The steps with value rows that name a rival (``judging.Rival``), and those among them
    that ruled it out (``StepResult.rival_ruled_out``)."""
    named = [r for r in run.results if r.rival_ruled_out is not None]
    return [r.step.id for r in named], [r.step.id for r in named if r.rival_ruled_out]


def summary(run: Run) -> str:
    failed = [r.step.id for r in run.results if not r.passed]
    undecided = [r.step.id for r in run.results if r.verdict == INCONCLUSIVE]
    n = len(run.results)
    line = f"attnge verify: {n} step{'s' * (n != 1)}, " \
           f"{n - len(failed) - len(undecided)} passed, " \
           + (f"{len(undecided)} inconclusive ({', '.join(undecided)}), " if undecided else "") \
           + f"{len(failed)} failed"
    line += f" ({', '.join(failed)})" if failed else ""
    open_rows = sum(t.inconclusive for r in run.results for t in r.tables)
    line += f"; {open_rows} check{'s' * (open_rows != 1)} inconclusive" if open_rows else ""
    named, ruled_out = rivals(run)
    if named:
        one = len(named) == 1
        line += (f"; {len(ruled_out)} of the {len(named)} step{'' if one else 's'} that "
                 f"name{'s' if one else ''} a rival ruled it out "
                 f"({', '.join(ruled_out) or 'none'})")
    if not getattr(run, "complete", True):
        line += f"; INCOMPLETE: interrupted before {', '.join(run.not_run)}"
    return line


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
            "passed": r.passed, "verdict": r.verdict, "wall_s": round(r.wall_s, 3),
            "tables": [{"title": t.title, "note": t.note, "columns": t.columns,
                        "rows": [[cell(c) for c in row] for row in t.rows],
                        "series": t.series, "values": t.values,
                        "verdicts": [verdict_text(v) or None for v in t.verdicts]}
                       for t in r.tables],
        })
    return {"passed": run.passed, "complete": run.complete, "summary": summary(run),
            "steps": steps, "provenance": run.provenance()}


def write_json(run: Run, path: str | Path) -> None:
    write_atomic(path, json.dumps(as_json(run), indent=2, ensure_ascii=False) + "\n")
