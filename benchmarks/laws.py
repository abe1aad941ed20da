"""The law objects' targets (issue 28), with the old density route as the baseline, in one run.

    python benchmarks/laws.py [--json docs/bench/laws.json]

Targets: ``pdf`` of ν∞ at 1,000 points ≤ 1 s at 15 digits; the output law's at 200 points
≤ 2 s; ``cdf`` and ``ppf`` to 1e-10. Each law is built fresh (its support and edge included
in the first call). The baseline is the same densities with every root found by
``mpmath.polyroots`` (the route before Newton's polish), timed in this run on this machine.
The accuracy of ``cdf`` is judged against mpmath quadrature of the density (tanh-sinh, 20
digits; in t = x^(1/3) from a hard edge at 0), of ``ppf`` by ``cdf(ppf(q)) - q``.
"""

from __future__ import annotations

import json
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


def _polyroots_only():
    """The baseline: every root by polyroots (the fast path's candidates refused)."""
    original = mhl.settled_roots
    mhl.settled_roots = lambda coeffs, keep=None: None
    return original


def main() -> None:
    rows = []
    nu_points = np.linspace(0.01, 12.0, 1000)
    nu, seconds = _timed(lambda: law(beta=1, y=2))
    _, first = _timed(lambda: nu.pdf(nu_points))
    _, warm = _timed(lambda: nu.pdf(nu_points))
    rows.append({"law": "nu_infinity, beta = 1, y = 2", "points": 1000, "first_s": first,
                 "warm_s": warm, "target_s": 1.0, **_accuracy(nu)})
    for name, parameters in OUTPUT_LAWS.items():
        fresh = law(**parameters)
        points = np.linspace(0.0, fresh.edge, 202)[1:-1]
        _, first = _timed(lambda fresh=fresh, points=points: fresh.pdf(points))
        _, warm = _timed(lambda fresh=fresh, points=points: fresh.pdf(points))
        original = _polyroots_only()
        try:
            baseline = law(**parameters)
            baseline.pdf(points[:1])                       # its support, edge
            _, old = _timed(lambda baseline=baseline, points=points: baseline.pdf(points))
        finally:
            mhl.settled_roots = original
        rows.append({"law": name, "points": 200, "first_s": first, "warm_s": warm,
                     "baseline_polyroots_s": old, "speedup": old / warm, "target_s": 2.0,
                     **_accuracy(fresh)})
    for r in rows:
        extra = f", polyroots {r['baseline_polyroots_s']:.2f} s ({r['speedup']:.1f}x)" \
            if "speedup" in r else ""
        print(f"{r['law']}: pdf at {r['points']} points {r['first_s']:.2f} s fresh, "
              f"{r['warm_s']:.2f} s warm (target {r['target_s']:g} s){extra}; "
              f"cdf error {r['cdf_error']:.1e}, ppf error {r['ppf_error']:.1e}")
    if "--json" in sys.argv:
        path = sys.argv[sys.argv.index("--json") + 1]
        with open(path, "w", encoding="utf-8") as fh:
            json.dump({"rows": rows, "command": "python benchmarks/laws.py --json " + path,
                       "date": time.strftime("%Y-%m-%d")}, fh, indent=2)
            fh.write("\n")


if __name__ == "__main__":
    main()
