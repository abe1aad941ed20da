"""The truth grid: every step of the ledger on a β × y grid, cell by cell.

On correct mathematics a step must PASS, or say that the sizes cannot decide
(INCONCLUSIVE rows, each naming what would), or refuse the parameters up front with one
line; it must never FAIL. A cell runs each step with its own validation (a refusal is
recorded with its reason, not raised) and keeps, per step, its verdict, the labels of its
FAIL rows, the text of its INCONCLUSIVE rows and its time. Cells are appended to
``truth.jsonl`` as they finish, so that a rerun with the same sizes, draws, heads and seed
measures only the missing cells (``--again STEP,…`` measures those steps again in the
stored cells, after a change to their code); ``README.md`` beside it is the table,
rewritten from the store after every cell (atomically). The threshold step reads only the
seed, so a run measures it once and gives every cell that result (``SEED_ONLY``).

    python -m attnge.truth --beta 0.25,0.5,1,1.5,2,3 --y 1/16,1/4,1,4,16 --out docs/truth
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path

from attnge.coefficient_tables import parse_list
from attnge.commands.common import decide_budget
from attnge.context import current
from attnge.judging import ERROR, INCONCLUSIVE, REFUSED
from attnge.ledger import DEFAULT as STEPS  # the theorem's steps (not the variants')
from attnge.output.files import append_line, locked, write_atomic
from attnge.params import DEFAULT_SIZES, Params, parse_sizes
from attnge.step import Step
from attnge.theory import inputs

CELL_BUDGET = "20m"
"""The time ``--decide`` may spend on a cell when no ``--budget`` is given."""
STORE = "truth.jsonl"
TABLE = "README.md"
TEXT_MAX = 400
SEED_ONLY = ("threshold",)
"""Steps whose check reads the seed only (the threshold sweeps fix their own temperatures,
orders and sizes): measured once per seed in a process and shared by its cells."""
SEED_KIND = "seed-only"
"""Their results live in the run context (``attnge.context``) under ("seed-only", step, seed)."""


def _row_text(row: list) -> str:
    text = " | ".join(str(c) for c in row if c not in (None, ""))
    return text if len(text) <= TEXT_MAX else text[:TEXT_MAX - 1] + "…"


def step_result(step: Step, params: Params) -> dict:
    """One step at ``params``: its verdict (PASS, FAIL, INCONCLUSIVE: passed with undecided
    rows, REFUSED, or ERROR: an internal error, recorded and not raised, so that the grid goes
    on), the FAIL rows, the INCONCLUSIVE rows and the seconds it took."""
    start = time.perf_counter()
    try:
        step.validate(params)
    except ValueError as exc:
        return {"verdict": REFUSED, "reason": str(exc), "seconds": 0.0}
    try:
        step.derive(params)
        tables = step.check(params)
    except Exception as exc:    # noqa: BLE001 - an internal error is a finding of the grid
        return {"verdict": ERROR, "reason": f"{type(exc).__name__}: {exc}",
                "seconds": round(time.perf_counter() - start, 2)}
    return _judged(tables, time.perf_counter() - start)


def _judged(tables: list, seconds: float) -> dict:
    """A step's record from its tables: FAIL (a FAIL row), INCONCLUSIVE (an undecided row)
    or PASS, with those rows' texts."""
    failed = [f"{t.title[:80]}: {_row_text(r)}" for t in tables
              for r, v in zip(t.rows, t.verdicts) if v is False]
    undecided = [_row_text(r) for t in tables for r, v in zip(t.rows, t.verdicts)
                 if v == INCONCLUSIVE]
    verdict = "FAIL" if failed else INCONCLUSIVE if undecided else "PASS"
    return {"verdict": verdict, "failed": failed, "inconclusive": undecided,
            "seconds": round(seconds, 2)}


def decided_cell(steps: list[Step], params: Params, budget: float) -> dict:
    """The steps at ``params`` by ``runner.decide`` (``--decide``): the refused recorded with
    their reasons, the others grown within ``budget`` seconds, each with the draws per size
    it was decided at (and the sizes, where a look at larger ones decided it); an internal
    error sends every step to :func:`step_result` (each recorded, none raised)."""
    from attnge import runner

    results, valid = {}, []
    for step in steps:
        try:
            step.validate(params)
            valid.append(step)
        except ValueError as exc:
            results[step.id] = {"verdict": REFUSED, "reason": str(exc), "seconds": 0.0}
    try:
        done = runner.decide(valid, params, budget)
    except Exception:           # noqa: BLE001 - recorded step by step below
        return {**results, **{s.id: step_result(s, params) for s in valid}}
    for r in done.results:
        grown = done.decided["steps"][r.step.id]
        results[r.step.id] = {**_judged(r.tables, r.wall_s), "draws": grown["draws"],
                              **({"sizes": grown["sizes"]} if "sizes" in grown else {})}
    return {s.id: results[s.id] for s in steps}


def _grown(step: dict) -> str:
    """' (16)': the draws per size a decided step was decided at; ' (8; 1000-4000)' with the
    sizes of a look at larger ones; '' for a step of a cell without ``--decide``."""
    if "draws" not in step:
        return ""
    sizes = step.get("sizes")
    return f" ({step['draws']}{f'; {sizes[0]}-{sizes[-1]}' if sizes else ''})"


def cell(beta: float, y: float, sizes: tuple[int, ...], draws: int, heads: int,
         seed: int = 0, steps: list[Step] | None = None, budget: float | None = None) -> dict:
    """Every step (or ``steps``) at one (β, y); a cell whose Params are refused says why.
    ``budget`` (seconds): each step grown by ``--decide`` (:func:`decided_cell`)."""
    key = {"beta": beta, "y": y, "sizes": list(sizes), "draws": draws, "heads": heads,
           "seed": seed, **({} if budget is None else {"budget": budget})}
    start = time.perf_counter()
    try:
        params = Params(beta=beta, y=y, sizes=sizes, draws=draws, heads=heads, seed=seed)
    except ValueError as exc:
        return {**key, "refused": str(exc), "steps": {}, "seconds": 0.0}
    if budget is not None:
        results = decided_cell(list(steps or STEPS), params, budget)
        return {**key, "steps": results, "seconds": round(time.perf_counter() - start, 1)}
    results = {}
    for step in steps or STEPS:
        if step.id in SEED_ONLY:
            results[step.id] = current().sweep((SEED_KIND, step.id, seed),
                                               lambda step=step: step_result(step, params))
        else:
            results[step.id] = step_result(step, params)
    return {**key, "steps": results, "seconds": round(time.perf_counter() - start, 1)}


def _same_run(a: dict, b: dict) -> bool:
    return all(a[k] == b[k] for k in ("beta", "y", "sizes", "draws", "heads", "seed")) \
        and a.get("budget") == b.get("budget")


def stored(path: Path) -> list[dict]:
    """The valid cells of a store (a damaged line is skipped: its cell is measured again)."""
    if not path.exists():
        return []
    out = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            record = json.loads(line)
        except (json.JSONDecodeError, RecursionError):
            continue
        if isinstance(record, dict) and {"beta", "y", "steps"} <= record.keys():
            out.append(record)
    return out


def markdown(cells: list[dict], command: str) -> str:
    """β × y × step verdicts, the time of each cell, and what would decide each undecided
    row."""
    ids = [step.id for step in STEPS]
    short = {"PASS": "PASS", "FAIL": "**FAIL**", INCONCLUSIVE: "INC", REFUSED: "refused",
             ERROR: "**ERROR**"}
    lines = ["# The truth grid", "", f"Generated by `{command}`.", "",
             ("PASS: every check passed; INC: passed, with rows the sizes cannot decide (each "
              "names what would, below); refused: the step refuses these parameters up front "
              "(exit 2 in `attnge verify`), with its reason below; **FAIL**: a check failed; "
             "**ERROR**: an internal error (exit 3 in `attnge verify`), named below. "
             "seconds: the cell's wall time; the threshold step reads only the seed, so a run "
             "measures it once, in its first cell, and repeats its verdict. With --decide, "
             "each verdict gives in brackets the draws per size it was decided at, and the "
             "sizes where a look at larger ones (three inside the fits' regime) decided it."),
             "", "| beta | y | seconds | " + " | ".join(ids) + " |",
             "|---|---|---|" + "---|" * len(ids)]
    notes = []
    for c in cells:
        if "refused" in c:
            lines.append(f"| {c['beta']:g} | {c['y']:g} | 0 | " + " | ".join(["refused"] * len(ids))
                         + " |")
            notes.append(f"- beta = {c['beta']:g}, y = {c['y']:g}: {c['refused']}")
            continue
        cells_text = [short[c["steps"][i]["verdict"]] + _grown(c["steps"][i])
                      if i in c["steps"] else "" for i in ids]
        lines.append(f"| {c['beta']:g} | {c['y']:g} | {c['seconds']:.0f} | "
                     + " | ".join(cells_text) + " |")
        for i in ids:
            r = c["steps"].get(i)
            if r is None:
                continue
            where = f"beta = {c['beta']:g}, y = {c['y']:g}, `{i}`"
            if r["verdict"] in (REFUSED, ERROR):
                notes.append(f"- {where}: {r['verdict'].lower()}: {r['reason']}")
            for text in r.get("failed", []):
                notes.append(f"- {where}: FAIL: {text}")
            for text in r.get("inconclusive", []):
                notes.append(f"- {where}: undecided: {text}")
    counts = {k: sum(r["verdict"] == k for c in cells for r in c["steps"].values())
              for k in ("PASS", INCONCLUSIVE, REFUSED, "FAIL", ERROR)}
    lines += ["", "Steps: " + ", ".join(f"{v} {k}" for k, v in counts.items()) + ".", ""]
    if notes:
        lines += ["## What each refusal, failure and undecided row says", "", *notes, ""]
    return "\n".join(lines)


def redo(found: dict, ids: tuple[str, ...]) -> dict:
    """A stored cell with the steps ``ids`` measured again (after a change to their code);
    its seconds move by the difference of their times."""
    if "refused" in found or not ids:
        return found
    again = cell(found["beta"], found["y"], tuple(found["sizes"]), found["draws"],
                 found["heads"], found["seed"], [s for s in STEPS if s.id in ids],
                 found.get("budget"))
    old = sum(found["steps"].get(i, {}).get("seconds", 0.0) for i in again["steps"])
    new = sum(r["seconds"] for r in again["steps"].values())
    return {**found, "steps": {**found["steps"], **again["steps"]},
            "seconds": round(found["seconds"] - old + new, 1)}


def run(betas: list[float], ys: list[float], sizes: tuple[int, ...], draws: int, heads: int,
        out: Path, seed: int = 0, command: str = "", progress=None,
        again: tuple[str, ...] = (), budget: float | None = None) -> list[dict]:
    """Measure the missing cells of the grid into ``out`` (the store and the table), and,
    in the stored ones, the steps ``again`` (rewriting the store atomically after each);
    ``budget``: seconds per cell for ``--decide`` (a cell so measured is stored apart)."""
    out.mkdir(parents=True, exist_ok=True)
    store = out / STORE
    have = stored(store)
    cells = []
    for b in betas:
        for yy in ys:
            key = {"beta": b, "y": yy, "sizes": list(sizes), "draws": draws, "heads": heads,
                   "seed": seed, **({} if budget is None else {"budget": budget})}
            found = next((c for c in have if _same_run(c, key)), None)
            if found is None:
                found = cell(b, yy, sizes, draws, heads, seed, budget=budget)
                with locked(store):        # another run may have stored the cell meanwhile
                    have = stored(store)
                    if not any(_same_run(c, key) for c in have):
                        append_line(store, json.dumps(found).encode("utf-8"))
                        have.append(found)
            elif again:
                updated = redo(found, again)
                with locked(store):
                    have = [updated if _same_run(c, key) else c for c in stored(store)]
                    write_atomic(store, "".join(json.dumps(c) + "\n" for c in have))
                found = updated
            cells.append(found)
            if progress is not None:
                progress(found)
            write_atomic(out / TABLE, markdown(cells, command))
    return cells


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m attnge.truth", description=__doc__.split(
        "\n\n")[0])
    p.add_argument("--beta", default="0.25,0.5,1,1.5,2,3")
    p.add_argument("--y", default="1/16,1/4,1,4,16")
    p.add_argument("--sizes", default=",".join(map(str, DEFAULT_SIZES)))
    p.add_argument("--draws", default="8")
    p.add_argument("--heads", default="2")
    p.add_argument("--seed", default="0")
    p.add_argument("--out", required=True)
    p.add_argument("--again", default="", help="comma-separated step ids to measure again in "
                   "the stored cells (after a change to their code); the rest is kept")
    p.add_argument("--decide", action="store_true", help="grow each cell's undecided steps "
                   "(attnge verify --decide) within --budget per cell")
    p.add_argument("--budget", default=None, help="with --decide: the time per cell (default "
                   f"{CELL_BUDGET})")
    args = p.parse_args(argv)
    try:
        again = tuple(name.strip() for name in args.again.split(",") if name.strip())
        unknown = sorted(set(again) - {s.id for s in STEPS})
        if unknown:
            raise ValueError(f"again must name steps of the ledger (got {', '.join(unknown)})")
        betas = [inputs.beta(float(b)) for b in parse_list(args.beta, "beta")]
        ys = [inputs.ratio(float(v)) for v in parse_list(args.y, "y")]
        sizes = parse_sizes(args.sizes)
        Params(sizes=sizes, draws=args.draws, heads=args.heads, seed=args.seed)
        budget = decide_budget(args, CELL_BUDGET)
    except ValueError as exc:
        print(f"truth: {exc}", file=sys.stderr)
        return 2
    command = "python -m attnge.truth " + shlex.join(
        part for k, v in (("beta", args.beta), ("y", args.y), ("sizes", args.sizes),
                          ("draws", args.draws), ("heads", args.heads), ("seed", args.seed),
                          ("out", args.out)) for part in (f"--{k}", str(v))) + (
        f" --decide --budget {args.budget or CELL_BUDGET}" if args.decide else "")

    def say(c: dict) -> None:
        if "refused" in c:
            print(f"beta={c['beta']:g} y={c['y']:g}: refused: {c['refused']}", file=sys.stderr)
            return
        verdicts = [r["verdict"] for r in c["steps"].values()]
        print(f"beta={c['beta']:g} y={c['y']:g}: {verdicts.count('FAIL')} FAIL, "
              f"{verdicts.count(INCONCLUSIVE)} INCONCLUSIVE, {verdicts.count(REFUSED)} "
              f"refused, {verdicts.count('ERROR')} ERROR ({c['seconds']:.0f} s)",
              file=sys.stderr, flush=True)

    cells = run(betas, ys, sizes, int(args.draws), int(args.heads), Path(args.out),
                int(args.seed), command, say, again, budget)
    verdicts = {r["verdict"] for c in cells for r in c["steps"].values()}
    return 3 if ERROR in verdicts else 1 if "FAIL" in verdicts else 0


if __name__ == "__main__":
    sys.exit(main())
