"""The table of docs/math.md §10: m₁, m₂ of √ℓAP⊥ for other kernels against ν∞(θ₁[g], θ₂[g], y).

    python benchmarks/kernel_moments.py [--ell 1600] [--draws 2]

Each kernel at β = 1, y = 1: the predicted m₁ = θ₁ and m₂ = 2θ₁² + yθ₂² (θ's from
``attnge.theory.kernels``, exact where SymPy finds them), and the means over draws (seeds 0,
1, …) of the sampled m₁, m₂ of the squared singular values.
"""

from __future__ import annotations

import argparse

import numpy as np
import sympy as sp

from attnge.numerics.samplers import sample_attention
from attnge.theory import kernels

KERNELS = ("relu", "square", "sigmoid", "exp(x) + 1")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ell", type=int, default=1600)
    p.add_argument("--draws", type=int, default=2)
    args = p.parse_args()
    beta, y = 1.0, 1.0
    print("| kernel | predicted m₁ | predicted m₂ | measured m₁ | measured m₂ |")
    print("|---|---|---|---|---|")
    for name in KERNELS:
        kernel = kernels.parse(name)
        exact = kernels.thetas(kernel, sp.nsimplify(beta))
        t1, t2 = (float(v) for v in (exact or kernels.thetas_numeric(kernel, beta, 20)))
        moments = []
        for seed in range(args.draws):
            s = sample_attention(args.ell, beta=beta, y=y, random_state=seed, kernel=kernel)
            e = np.linalg.eigvalsh(s.centred @ s.centred.T)
            moments.append((e.mean(), (e**2).mean()))
        m1, m2 = np.mean(moments, axis=0)
        print(f"| {name} | {t1:.4g} | {2 * t1**2 + y * t2**2:.4g} | {m1:.4g} | {m2:.4g} |")


if __name__ == "__main__":
    main()
