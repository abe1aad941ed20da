"""Time the speed targets of the issues against a fixed baseline workload, in one run.

    python benchmarks/targets.py [--skip-verify]

Baseline: eigvalsh of a fixed 1000×1000 symmetric matrix, five times (the core cost of a
spectrum). Each target is reported as wall seconds and as a multiple of the baseline, so
runs on noisy machines can be compared; the issues' limits are in wall seconds on 2 cores.
"""

from __future__ import annotations

import subprocess
import sys
import time

import numpy as np

TARGETS = [
    ("attnge verify (defaults; limit 180 s)", ["verify"], 180),
    ("attnge tables 5x3 grid, 40 Hermite, 20 moments, 30 digits (limit 10 s)",
     ["tables", "--beta", "0.25,0.5,1,1.5,2", "--y", "0.5,1,2", "--order", "40", "--moments",
      "20", "--digits", "30", "--format", "json"], 10),
    ("attnge spectrum at the paper's settings (limit 120 s)",
     ["spectrum", "--beta", "1", "--ell", "1000", "--dqk", "1000", "--draws", "10", "--out",
      "/tmp/attnge-bench-figure1.png"], 120),
]


def baseline() -> float:
    rng = np.random.default_rng(0)
    a = rng.standard_normal((1000, 1000))
    w = a @ a.T
    start = time.perf_counter()
    for _ in range(5):
        np.linalg.eigvalsh(w)
    return time.perf_counter() - start


def main() -> None:
    skip = "--skip-verify" in sys.argv
    base = baseline()
    print(f"baseline (5 x eigvalsh 1000x1000): {base:.2f} s")
    for label, args, limit in TARGETS:
        if skip and args[0] == "verify":
            continue
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "attnge", *args], check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wall = time.perf_counter() - start
        print(f"{label}: {wall:.1f} s = {wall / base:.0f} x baseline "
              f"({'within' if wall <= limit else 'OVER'} the limit)")
    print(f"baseline again: {baseline():.2f} s")


if __name__ == "__main__":
    main()
