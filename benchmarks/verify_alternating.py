"""The default ``attnge verify`` against the code of an earlier commit, run alternately (issue 38).

    git worktree add /tmp/before 3038f69      # the code before issue 38
    python3 -m venv /tmp/before/.venv && /tmp/before/.venv/bin/pip install /tmp/before
    python benchmarks/verify_alternating.py --baseline /tmp/before/.venv/bin/attnge \\
        --rounds 2 --json docs/bench/verify.json

Each round runs the baseline's ``attnge verify --json F`` and then this checkout's (the
``attnge`` on PATH), each timed as a whole command (the interpreter's start and imports
included), so that a drift of the machine's speed touches both alike. The verdicts and the
``detectable`` figures of every step are compared between the two (to 1e-6 relative: one
BLAS thread moves the last bits only): the speed must not be bought with power. Run it with
nothing else running.
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _run(attnge: str, out: Path) -> float:
    start = time.perf_counter()
    subprocess.run([attnge, "--quiet", "verify", "--json", str(out)], check=False,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def _verdicts(path: Path) -> dict:
    """step → (passed, verdicts of every row, detectable of every value row)."""
    document = json.loads(path.read_text())
    return {s["id"]: (s["passed"], [v for t in s["tables"] for v in t["verdicts"]],
                      [v.get("detectable") for t in s["tables"] for v in t["values"]])
            for s in document["steps"]}


def _split(path: Path) -> dict:
    """step → its wall time in the run (the theory's derivation and its checks)."""
    return {s["id"]: s["wall_s"] for s in json.loads(path.read_text())["steps"]}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    p.add_argument("--baseline", required=True, help="the baseline's attnge executable")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--json", default=None)
    args = p.parse_args()
    here = shutil.which("attnge")
    folder = Path(tempfile.mkdtemp())
    times = {"baseline": [], "this": []}
    split = {"baseline": [], "this": []}
    same = True
    for r in range(args.rounds):
        for name, exe in (("baseline", args.baseline), ("this", here)):
            seconds = _run(exe, folder / f"{name}-{r}.json")
            times[name].append(round(seconds, 1))
            split[name].append(_split(folder / f"{name}-{r}.json"))
            print(f"round {r + 1}: {name} {seconds:.1f} s", file=sys.stderr, flush=True)
        a, b = _verdicts(folder / f"baseline-{r}.json"), _verdicts(folder / f"this-{r}.json")
        for step in a:
            if a[step][:2] != b[step][:2]:
                same = False
                print(f"verdicts differ: {step}", file=sys.stderr)
            close = len(a[step][2]) == len(b[step][2]) and all(
                x == y or (isinstance(x, float) and isinstance(y, float)
                           and math.isclose(x, y, rel_tol=1e-6))
                for x, y in zip(a[step][2], b[step][2]))
            if not close:
                same = False
                print(f"detectable differs: {step}", file=sys.stderr)
    ratio = sum(times["this"]) / sum(times["baseline"])
    result = {"command": "attnge --quiet verify --json F", "rounds": args.rounds,
              "seconds": times, "ratio": round(ratio, 3),
              "same_verdicts_and_detectable": same,
              "steps_s": {step: {name: round(sum(d[step] for d in split[name]) / args.rounds, 1)
                                 for name in split} for step in split["this"][0]},
              "date": time.strftime("%Y-%m-%d")}
    print(json.dumps(result, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
