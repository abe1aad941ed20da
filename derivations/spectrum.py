"""The paper's Figure 1: spectra of every model of the chain against ν∞ (``attnge spectrum``).

Per draw: every model of the chain (``numerics.chain``) and the squared singular values of
each. The figure: a histogram of the bulk (top r of each draw removed) of every model with
the density of ν∞ and of the surrogate θ₁·MP₁ overlaid, and the sorted s_k² of every model
(mean over draws). The numbers behind it are written beside it as CSV.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

import numpy as np

from attnge.numerics import spectra
from attnge.numerics.chain import MODEL_KEYS, MODELS_MATRICES, chain_models
from attnge.numerics.limit_density import density_grid, right_edge
from attnge.numerics.measure import require_memory
from attnge.numerics.sampling import draw_rng, sample_scores
from attnge.theory.exponential import thetas

BINS = 60
DENSITY_POINTS = 120
SORTED_SHOWN = 50
STREAM = "spectrum"


@dataclass
class FigureData:
    beta: float
    ell: int
    d_qk: int
    draws: int
    remove_top: int
    bulks: dict[str, np.ndarray]       # model → the bulks of every draw, concatenated
    sorted_mean: dict[str, np.ndarray]  # model → mean over draws of the sorted s_k²
    grid: np.ndarray                    # x of the density curves
    nu_density: np.ndarray
    mp_density: np.ndarray
    edge: float                         # right edge of ν∞


def mp_density(x: np.ndarray, theta1: float) -> np.ndarray:
    """Density of θ₁·MP₁: √(x(4θ₁ − x))/(2πθ₁x) on (0, 4θ₁)."""
    inside = (x > 0) & (x < 4 * theta1)
    out = np.zeros_like(x)
    out[inside] = np.sqrt(x[inside] * (4 * theta1 - x[inside])) / (2 * np.pi * theta1
                                                                     * x[inside])
    return out


def validate(ell: int, d_qk: int, draws: int, remove_top: int) -> None:
    """Refuse bad sizes, and sizes whose draws would not fit in memory, before sampling."""
    if ell < 2 or d_qk < 1 or draws < 1 or not 0 <= remove_top < ell:
        raise ValueError(f"need ell >= 2, dqk >= 1, draws >= 1 and 0 <= remove_top < ell "
                         f"(got ell={ell}, dqk={d_qk}, draws={draws}, remove_top={remove_top})")
    require_memory(ell, MODELS_MATRICES, d_qk, name="ell, dqk")


def sample(beta: float, ell: int, d_qk: int, draws: int, seed: int = 0, remove_top: int = 3,
           progress=None) -> FigureData:
    """Draw the chain ``draws`` times and collect the spectra; ``progress(i, n)`` per draw."""
    validate(ell, d_qk, draws, remove_top)
    bulks: dict[str, list[np.ndarray]] = {k: [] for k in MODEL_KEYS}
    sorted_sum = {k: np.zeros(ell) for k in MODEL_KEYS}
    for i in range(draws):
        if progress is not None:
            progress(i, draws)
        rng = draw_rng(seed, STREAM, ell, i)
        models = chain_models(sample_scores(ell, d_qk, rng), beta, rng)
        for key in MODEL_KEYS:
            s2 = spectra.squared_singular_values(models[key])
            bulks[key].append(spectra.bulk(s2, remove_top))
            sorted_sum[key] += s2
        del models
    if progress is not None:
        progress(draws, draws)
    (theta1, theta2), y = thetas(beta), ell / d_qk
    edge = float(right_edge(theta1, theta2, y, dps=15))
    top = max(float(np.max(np.concatenate(bulks["M0"]))), 4 * theta1, edge) * 1.05
    grid = np.linspace(top / DENSITY_POINTS / 4, top, DENSITY_POINTS)
    nu = np.array([float(v) for v in density_grid(grid, theta1, theta2, y, dps=15)])
    return FigureData(beta, ell, d_qk, draws, remove_top,
                      {k: np.concatenate(v) for k, v in bulks.items()},
                      {k: v / draws for k, v in sorted_sum.items()}, grid, nu,
                      mp_density(grid, theta1), edge)


def histogram(data: FigureData, key: str) -> tuple[np.ndarray, np.ndarray]:
    """(bin edges, density) of a model's bulk on the common range of the figure."""
    edges = np.linspace(0.0, data.grid[-1], BINS + 1)
    dens, _ = np.histogram(np.clip(data.bulks[key], 0, data.grid[-1]), bins=edges, density=True)
    return edges, dens


def to_csv(data: FigureData) -> str:
    """section, model, x (bin left edge, k, or point), x2 (bin right edge), value."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["section", "model", "x", "x_right", "value"])
    for key in MODEL_KEYS:
        edges, dens = histogram(data, key)
        for lo, hi, v in zip(edges[:-1], edges[1:], dens):
            w.writerow(["histogram", key, repr(float(lo)), repr(float(hi)), repr(float(v))])
    for key in MODEL_KEYS:
        for k, v in enumerate(data.sorted_mean[key], start=1):
            w.writerow(["sorted", key, k, "", repr(float(v))])
    w.writerow(["edge", "nu_infinity", repr(data.edge), "", ""])
    w.writerow(["edge", "mp_surrogate", repr(4 * thetas(data.beta)[0]), "", ""])
    for x, nu, mp in zip(data.grid, data.nu_density, data.mp_density):
        w.writerow(["density", "nu_infinity", repr(float(x)), "", repr(float(nu))])
        w.writerow(["density", "mp_surrogate", repr(float(x)), "", repr(float(mp))])
    return buf.getvalue()


MATHTEXT = {"M0": r"$\sqrt{\ell}A^\perp$", "Y": r"$Y$", "Y_f": r"$Y^f$", "Y_Q": r"$Y^Q$",
            "Y_lin_Q": r"$Y^{\mathrm{lin}}_Q$", "Y_lin_f": r"$Y^{\mathrm{lin}}_f$",
            "surrogate": r"$\sqrt{\theta_1}Z/\sqrt{\ell}$"}
"""The models' names in matplotlib's mathtext."""


def plot(data: FigureData, path: str) -> None:
    """The figure as PNG (matplotlib, the ``plot`` extra), written atomically."""
    from attnge.output.figures import pyplot, save

    plt = pyplot()
    fig, axes = plt.subplots(2, 4, figsize=(16, 7.5))
    for ax, key in zip(axes.flat, MODEL_KEYS):
        edges, dens = histogram(data, key)
        ax.stairs(dens, edges, fill=True, alpha=0.5, label=f"{MATHTEXT[key]} (bulk)")
        ax.plot(data.grid, data.nu_density, "k-", lw=1.2, label=r"$\nu_\infty$")
        ax.plot(data.grid, data.mp_density, "r--", lw=1.0, label=r"$\theta_1\,\mathrm{MP}_1$")
        ax.axvline(data.edge, color="k", lw=0.6, ls=":")
        ax.axvline(4 * thetas(data.beta)[0], color="r", lw=0.6, ls=":")
        ax.set_yscale("log")
        ax.set_ylim(1e-3, 5)
        ax.set_title(MATHTEXT[key])
        ax.set_xlabel(r"$s^2$")
        ax.set_ylabel("density")
        ax.legend(fontsize=7)
    ax = axes.flat[-1]
    k = np.arange(1, SORTED_SHOWN + 1)
    for key in MODEL_KEYS:
        ax.plot(k, data.sorted_mean[key][:SORTED_SHOWN], ".-", ms=3, lw=0.8,
                label=MATHTEXT[key])
    ax.set_xscale("log")
    ax.set_title(f"sorted $s_k^2$ (mean of {data.draws} draws)")
    ax.set_xlabel(r"$k$")
    ax.set_ylabel(r"$s_k^2$")
    ax.legend(fontsize=7)
    fig.suptitle(rf"$\beta = {data.beta:g}$, $\ell = {data.ell}$, $d_{{qk}} = {data.d_qk}$, "
                 f"{data.draws} draws, top {data.remove_top} removed per draw in the histograms; "
                 r"dotted: right edges of $\nu_\infty$ (black) and $\theta_1\,\mathrm{MP}_1$ "
                 "(red)")
    fig.tight_layout()
    save(fig, path)
