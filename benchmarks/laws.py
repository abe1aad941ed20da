"""The law objects' targets (issue 28), with the code before them as the baseline, in one run.

    git worktree add /tmp/before cfff8b0      # the code before issue 28
    python benchmarks/laws.py --baseline /tmp/before [--json docs/bench/laws.json]

Targets: ``pdf`` of ν∞ at 1,000 points ≤ 1 s at 15 digits; the output law's at 200 points
≤ 2 s; ``cdf`` and ``ppf`` to 1e-10. Each law is built fresh ("fresh": its support and edge
included in the first call) and then asked again ("warm"). The baseline is the same points'
densities by the code before (its ``density_grid`` at 15 digits, in a subprocess that
imports it from ``--baseline``), timed in this run on this machine.
The accuracy of ``cdf`` is judged against mpmath quadrature of the density (tanh-sinh, 20
digits; in t = x^(1/3) from a hard edge at 0), of ``ppf`` by ``cdf(ppf(q)) - q``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

import mpmath
import numpy as np

from attnge.numerics import limit_density as ld
from attnge.numerics import multi_head_law as mhl
from attnge.numerics.laws import law

OUTPUT_LAWS = {   # (name, parameters): a BERT-base-like layer, tied K = V, a narrow output
    "output h=12, gamma 3/2 (BERT-base shape)": dict(beta=1, heads=12, gamma_k="3/2",
                                                     kind="output"),
    "output h=8, K = V, gamma_O = 2": dict(beta=1, y=2, heads=8, kind="output", gamma_o=2,
                                          sharing="kv"),
    "output h=4, gamma_O = 1/2 (atom at 0)": dict(beta=1, y=2, heads=4, kind="output",
                                                  gamma_o="1/2"),
}


def _timed(f):
    start = time.perf_counter()
    out = f()
    return out, time.perf_counter() - start


def _quad_cdf(nu, x):
    total = mpmath.mpf(sum(a.mass for a in nu.support().atoms))
    d = nu.description
    density = (lambda t: ld.density(t, d.theta1, d.theta2, d.y, dps=20)) if d.single else \
        (lambda t: mhl.density(t, d.layered(), dps=20))
    with mpmath.workdps(20):     # from 0 in t = x^(1/3), which tames a hard edge
        for lo, hi in nu.support().intervals:
            if x <= lo:
                continue
            if lo == 0:
                total += mpmath.quad(lambda t: 3 * t * t * density(t**3),
                                     [mpmath.mpf("1e-12"), mpmath.cbrt(min(x, hi))])
            else:
                total += mpmath.quad(density, [lo, min(x, hi)])
    return total


def _accuracy(nu) -> dict:
    xs = [nu.edge * f for f in (0.1, 0.4, 0.8)]
    cdf_error = max(abs(float(v - _quad_cdf(nu, x))) for x, v in zip(xs, nu.cdf(xs)))
    atom = sum(a.mass for a in nu.support().atoms)
    qs = np.linspace(atom + 1e-3, 1 - 1e-3, 200)
    ppf_error = float(np.abs(nu.cdf(nu.ppf(qs)) - qs).max())
    return {"cdf_error": cdf_error, "ppf_error": ppf_error}


BASELINE = """
import sys, time, json
sys.path.insert(0, sys.argv[1])
import sympy as sp
from theory import limit_law as ll, multi_head as mh
from numerics import limit_density as ld, multi_head_law as mhl
job = json.loads(sys.argv[2])
t1, t2 = ll.from_beta(sp.Rational(job["beta"]))
start = time.perf_counter()
if job["kind"] == "nu":
    ld.density_grid(job["points"], t1, t2, sp.Rational(job["y"]), dps=15)
else:
    law = mh.law(job["kind"], t1, t2, job["heads"], sp.Rational(job["gamma_k"]),
                 sp.Rational(job["gamma_v"]), sp.Rational(job["gamma_o"]), job["sharing"])
    mhl.density_grid(job["points"], law, dps=15)
print(time.perf_counter() - start)
"""


def _baseline(folder: str, nu, points) -> float:
    """Seconds of the code in ``folder`` for the same densities (a fresh process)."""
    d = nu.description
    job = {"kind": "nu" if d.single else d.kind, "beta": str(d.beta), "y": str(d.y),
           "heads": d.heads, "gamma_k": str(d.gamma_k), "gamma_v": str(d.gamma_v),
           "gamma_o": str(d.gamma_o), "sharing": d.sharing, "points": [float(x) for x in points]}
    out = subprocess.run([sys.executable, "-c", BASELINE, folder, json.dumps(job)],
                         capture_output=True, text=True, check=True)
    return float(out.stdout.split()[-1])


def main() -> None:
    folder = sys.argv[sys.argv.index("--baseline") + 1] if "--baseline" in sys.argv else None
    cases = [("nu_infinity, beta = 1, y = 2", dict(beta=1, y=2), 1000, 1.0)]
    cases += [(name, parameters, 200, 2.0) for name, parameters in OUTPUT_LAWS.items()]
    rows = []
    for name, parameters, count, target in cases:
        nu = law(**parameters)
        points = np.linspace(0.0, 1.1 * nu.edge, count + 1)[1:]
        _, first = _timed(lambda nu=nu, points=points: nu.pdf(points))
        _, warm = _timed(lambda nu=nu, points=points: nu.pdf(points))
        row = {"law": name, "points": count, "first_s": first, "warm_s": warm,
               "target_s": target, **_accuracy(nu)}
        if folder is not None:
            row["baseline_s"] = _baseline(folder, nu, points[points < nu.edge])
            row["speedup_warm"] = row["baseline_s"] / warm
        rows.append(row)
    for r in rows:
        extra = f", the code before {r['baseline_s']:.2f} s ({r['speedup_warm']:.1f}x warm)" \
            if "baseline_s" in r else ""
        print(f"{r['law']}: pdf at {r['points']} points {r['first_s']:.2f} s fresh, "
              f"{r['warm_s']:.2f} s warm (target {r['target_s']:g} s){extra}; "
              f"cdf error {r['cdf_error']:.1e}, ppf error {r['ppf_error']:.1e}")
    if "--json" in sys.argv:
        path = sys.argv[sys.argv.index("--json") + 1]
        with open(path, "w", encoding="utf-8") as fh:
            json.dump({"rows": rows, "command": "python " + " ".join(sys.argv),
                       "date": time.strftime("%Y-%m-%d")}, fh, indent=2)
            fh.write("\n")


if __name__ == "__main__":
    main()
