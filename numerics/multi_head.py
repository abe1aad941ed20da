"""Multi-head attention and the layer's output, sampled (docs/math.md §7).

Per head r: Q_r, K_r, V_r with i.i.d. N(0, 1) entries (the law of X W for X with orthonormal
rows), S_r = Q_r K_rᵀ/√d_K, A_r = softmax(βS_r), A_r⊥ = A_r − 𝟙𝟙ᵀ/n. Heads of one group
share their keys and values (multi-query: one group); tied heads take V_r = K_r. The layer:
MHA⊥ = [A_1⊥V_1, …, A_h⊥V_h] W^O, W^O = G_O/√(h d_V) (h d_V × d_O). Its Gaussian model on the
same Q, K, V and W^O: Y_r^G = (√θ₂ S_r + √(θ₁ − θ₂) W_r)/√n with W_r i.i.d. N(0, 1), and
MHA^G = [Y_1^G V_1, …] W^O, compared as n^{-1/2} MHA^G (√n A_r⊥ ≈ Y_r^G).

Spectra are the n eigenvalues of M Mᵀ, zeros included (the law ν_M of docs/math.md §7); no
n×n matrix survives a draw.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attnge.numerics import spectra
from attnge.numerics.law_draws import LawDraw
from attnge.numerics.measure import available_bytes
from attnge.numerics.sampling import attention, bartlett_rows, draw_rng, sample_scores
from attnge.theory.exponential import thetas
from attnge.theory.inputs import integer

SHARING = ("none", "mqa", "kv")
WIDE_RATIO = 2
"""Above h d_V = 2n (and d_O at least n times the models stacked) the output's W^O enters
through a Bartlett factor (``measure_output_draw``)."""
POWER_STEPS, POWER_TOL = 200, 1e-15


@dataclass(frozen=True)
class Shape:
    """An attention layer's shape: n tokens, h heads in ``kv_heads`` groups of shared keys and
    values, widths d_K, d_V, d_O, and how heads share (``SHARING``)."""

    n: int
    heads: int
    d_k: int
    d_v: int
    d_o: int
    kv_heads: int | None = None
    sharing: str = "none"

    def __post_init__(self) -> None:
        for name, least in (("n", 2), ("heads", 1), ("d_k", 1), ("d_v", 1), ("d_o", 1)):
            object.__setattr__(self, name, integer(getattr(self, name), name, least))
        if self.sharing not in SHARING:
            raise ValueError(f"sharing must be one of {', '.join(SHARING)} "
                             f"(got {self.sharing!r})")
        kv = self.heads if self.kv_heads is None else integer(self.kv_heads, "kv_heads", 1)
        object.__setattr__(self, "kv_heads", kv)
        if self.sharing == "mqa":
            if not (kv < self.heads and self.heads % kv == 0):
                raise ValueError(f"kv_heads must divide heads and be smaller for sharing mqa "
                                 f"(got heads={self.heads}, kv_heads={kv})")
        elif kv != self.heads:
            raise ValueError(f"kv_heads must equal heads for sharing {self.sharing} "
                             f"(got heads={self.heads}, kv_heads={kv})")
        if self.sharing == "kv" and self.d_v != self.d_k:
            raise ValueError(f"d_v must equal d_k for tied keys and values "
                             f"(got d_k={self.d_k}, d_v={self.d_v})")

    @property
    def gammas(self) -> tuple[float, float, float]:
        """(γ_K, γ_V, γ_O) = (h d_K/n, h d_V/n, d_O/n)."""
        return (self.heads * self.d_k / self.n, self.heads * self.d_v / self.n,
                self.d_o / self.n)

    def group(self, head: int) -> int:
        return head // (self.heads // self.kv_heads)

    def wide(self, models: int = 2) -> bool:
        """Whether ``models`` stacked layers take the Bartlett path of ``measure_output_draw``:
        h d_V > ``WIDE_RATIO`` n and d_O ≥ models·n (the factor needs that many rows)."""
        return self.heads * self.d_v > WIDE_RATIO * self.n and self.d_o >= models * self.n

    def output_bytes(self, values: bool = False, rivals: bool = False) -> int:
        """Memory of one output draw: 4 n×n arrays (S, A and its copy, the Gram), the two layers
        n × d_O (four with ``rivals``), Q, the group keys and values, one block of W^O, and
        (``values``) the Gram of [A_r⊥V_r]."""
        n, models = self.n, 2 + 2 * rivals
        arrays = (4 + values) * n * n + models * n * self.d_o + n * self.d_k \
            + self.kv_heads * n * (self.d_k + self.d_v) + self.d_v * self.d_o
        if self.wide(models):                  # C Cᵀ, its factor and the product with L
            arrays += 3 * (models * n) ** 2
        return 8 * arrays


def require_output_memory(shape: Shape, copies: int = 1, values: bool = False,
                          name: str = "n", rivals: bool = False) -> None:
    """Refuse, before allocating, a shape whose ``copies`` draws at once would not fit."""
    need, have = copies * shape.output_bytes(values, rivals), available_bytes()
    if need > have:
        raise ValueError(f"{name}: the layer at n={shape.n}, heads={shape.heads}, "
                         f"d_O={shape.d_o} needs about {need / 2**30:.1f} GiB per "
                         f"{copies} draw(s) but {have / 2**30:.1f} GiB is available")


def row_spectrum(gram: np.ndarray) -> np.ndarray:
    """The n eigenvalues of an n×n Gram matrix, descending, clipped at 0."""
    return np.clip(np.linalg.eigvalsh(gram)[::-1], 0.0, None)


def _top_eigenvalue(gram: np.ndarray, shift: float) -> float:
    """λ_max(gram + shift 𝟙𝟙ᵀ) by power iteration from 𝟙 (the Perron direction)."""
    v = np.full(gram.shape[0], 1 / np.sqrt(gram.shape[0]))
    value = 0.0
    for _ in range(POWER_STEPS):
        w = gram @ v + shift * v.sum()
        new = float(v @ w)
        v = w / np.linalg.norm(w)
        if abs(new - value) <= POWER_TOL * new:
            return new
        value = new
    return float(np.linalg.eigvalsh(gram + shift)[-1])


def measure_heads_draw(n: int, d_k: int, beta: float, seed: int, draw: int, heads: int,
                       shared_key: bool = False, stream: str = "law") -> LawDraw:
    """Sample h heads (one key for all when ``shared_key``) and measure √(n/h)A⊥: a LawDraw
    whose eigs are those of (n/h)A⊥A⊥ᵀ, s1 is s₁(A) and frob2 ‖A‖_F², A = [A_1, …, A_h].

    Head r takes Q_r, K_r from ``sample_scores`` in turn (with a shared key, Q_r alone after
    the first), so one head draws what ``numerics.law_draws.measure_law_draw`` draws. A⊥A⊥ᵀ =
    Σ_r A_r⊥A_r⊥ᵀ is accumulated head by head; AAᵀ = hP + A⊥A⊥ᵀ (A_r⊥𝟙 = 0) gives s₁(A).

    .. math:: \\nu\\Big(\\sqrt{n/h}\\,A^\\perp\\Big) = \\nu\\Big(\\tfrac{n}{h}\\sum_r
              A_r^\\perp A_r^{\\perp\\top}\\Big), \\qquad
              s_1(A)^2 = \\lambda_{\\max}(hP + A^\\perp A^{\\perp\\top})
    """
    rng = draw_rng(seed, stream, n, draw)
    gram, frob2, key = np.zeros((n, n)), 0.0, None
    for r in range(heads):
        if shared_key and r > 0:
            # a fresh query's scores on the shared keys depend on its part in their span:
            # N(0, I) in the keys' coordinates (``sample_scores`` may give them in fewer)
            S = rng.standard_normal((n, key.shape[1])) @ key.T / np.sqrt(d_k)
        else:
            scores = sample_scores(n, d_k, rng)
            S, key = scores.S, scores.K
        A = attention(S, beta)
        frob2 += float(np.einsum("ij,ij->", A, A))
        A -= 1.0 / n
        gram += spectra.row_gram(A)
        del A, S
    s1 = float(np.sqrt(_top_eigenvalue(gram, heads / n)))
    gram *= n / heads
    return LawDraw(n, row_spectrum(gram), s1, frob2)


INPUTS = ("orthonormal", "gaussian")
"""The layer's inputs X (n × d): orthonormal rows (the theorem's; n ≤ d), or rows i.i.d.
N(0, I_d/d) (``theory.input_models``' gaussian; any n, so that n > d, most real layers, runs)."""


@dataclass(frozen=True)
class OutputDraw:
    """The n eigenvalues (descending) of MHA⊥MHA⊥ᵀ (``softmax``), of n⁻¹MHA^G MHA^Gᵀ on the
    same weights (``gaussian``) and, when measured, of BBᵀ, B = [A_r⊥V_r] (``values``), of the
    Gaussian model with fresh noise W′_r on the same weights (``fresh``) and of the i.i.d.
    surrogate √θ₁W_r/√n in place of Y^G_r, θ₂ = 0 (``surrogate``)."""

    n: int
    softmax: np.ndarray
    gaussian: np.ndarray
    values: np.ndarray | None = None
    fresh: np.ndarray | None = None
    surrogate: np.ndarray | None = None

    def moments(self, key: str, q_max: int, remove_top: int = 0) -> np.ndarray:
        return spectra.spectral_moments(getattr(self, key), q_max, remove_top)


def measure_output_draw(shape: Shape, beta: float, seed: int, draw: int,
                        stream: str = "mha", values: bool = False, rivals: bool = False,
                        inputs: str = "orthonormal", d: int | None = None) -> OutputDraw:
    """Sample the layer and its Gaussian model on the same Q, K, V, W^O; their spectra.

    Draw order from the (seed, stream, n, draw) generator: for each group its K (and V,
    unless tied), then for each head Q_r, W_r V and its block of G_O (d_V × d_O), so that the
    numbers depend on nothing else. W_r enters only as W_r V, whose rows are i.i.d.
    N(0, VᵀV) given V: it is drawn as Z (VᵀV)^{1/2}, Z (n × d_V) standard (n d_V normals and
    no n×n product, in place of n²), where d_V ≤ n; for wider values (d_V > n, y < 1) as
    W_r V itself, whose n²d_V flops beat the d_V³ of the root.

    ``inputs`` gaussian (``INPUTS``; ``d`` the model width): X (n × d, rows N(0, I_d/d)) is
    drawn first, then every K, V and Q_r is X times a d × d_K (d_V) standard Gaussian weight,
    in the order above. ``rivals``: also the Gaussian model with fresh noise W′_r (its own
    randomness given the weights) and the i.i.d. surrogate √θ₁W_rV (θ₂ = 0, the same W_r),
    the W′_r drawn from a second generator (stream + "/fresh"), so that the softmax and
    Gaussian spectra are those of a run without rivals, byte for byte, except for wide layers.

    Wide layers (h d_V > 2n and d_O ≥ 2n, y < 1/2): given the blocks B = [A_r⊥V_r] and the
    models' blocks, the stack [MHA⊥; n^{-1/2}MHA^G; …] = C W^O has i.i.d. N(0, CCᵀ/(h d_V))
    columns, so its Gram matrix is F L Lᵀ Fᵀ/(h d_V) in law for any F Fᵀ = C Cᵀ and L the
    Bartlett factor of d_O degrees of freedom (``numerics.sampling.bartlett_rows``; the
    Wishart law is rotation invariant): every spectrum, jointly, in O(n² h d_V) instead of
    O(n h d_V d_O) flops and no d_V × d_O block.

    .. math:: \\mathrm{MHA}^\\perp = \\sum_r A_r^\\perp V_r W^O_r, \\qquad
              n^{-1/2}\\mathrm{MHA}^G = \\sum_r n^{-1/2} Y^G_r V_r W^O_r,
              \\qquad W^O_r = G_{O,r}/\\sqrt{h d_V}
    """
    if inputs not in INPUTS:
        raise ValueError(f"inputs must be one of {', '.join(INPUTS)} (got {inputs!r})")
    n, dk, dv = shape.n, shape.d_k, shape.d_v
    rng = draw_rng(seed, stream, n, draw)
    fresh_rng = draw_rng(seed, stream + "/fresh", n, draw) if rivals else None
    if inputs == "gaussian":
        d = integer(d, "d", 1)
        X = rng.standard_normal((n, d)) / np.sqrt(d)          # rows N(0, I_d/d)
        weights = lambda width: X @ rng.standard_normal((d, width))  # noqa: E731
    else:
        weights = lambda width: rng.standard_normal((n, width))  # noqa: E731
    keys, vals, roots = [], [], []
    for _ in range(shape.kv_heads):
        keys.append(weights(dk))
        vals.append(keys[-1] if shape.sharing == "kv" else weights(dv))
        if dv <= n:     # (VᵀV)^{1/2}: a d_V × d_V eigh, cheaper than W_r V when d_V <= n
            lam, vecs = np.linalg.eigh(vals[-1].T @ vals[-1])
            roots.append((vecs * np.sqrt(np.clip(lam, 0.0, None))) @ vecs.T)
        else:           # wide values: W_r V itself (n²d_V flops, not a d_V³ eigh)
            roots.append(None)
    theta1, theta2 = thetas(beta)
    names = ("softmax", "gaussian", "fresh", "surrogate") if rivals else ("softmax", "gaussian")
    wide = shape.wide(len(names))
    out = {key: np.zeros((n, shape.d_o)) for key in names} if not wide else None
    joint = np.zeros((len(names) * n,) * 2) if wide else None      # C Cᵀ, C = [B; B^G; …]
    values_gram = np.zeros((n, n)) if values else None
    scale = 1 / np.sqrt(shape.heads * dv)

    def noise(source: np.random.Generator, V: np.ndarray, root) -> np.ndarray:
        """W_r V: rows i.i.d. N(0, VᵀV) given V."""
        return source.standard_normal((n, dv)) @ root if root is not None else \
            source.standard_normal((n, n)) @ V

    for r in range(shape.heads):
        K, V, root = keys[shape.group(r)], vals[shape.group(r)], roots[shape.group(r)]
        S = weights(dk) @ K.T
        S /= np.sqrt(dk)
        WV = noise(rng, V, root)
        block = None if wide else rng.standard_normal((dv, shape.d_o)) * scale
        A = attention(S, beta)          # a new array: S is kept for the Gaussian model
        A -= 1.0 / n
        blocks = {"softmax": A @ V}
        del A
        if values:
            values_gram += spectra.row_gram(blocks["softmax"])
        if rivals:
            blocks["surrogate"] = WV * (np.sqrt(theta1) / n)
        G = S @ V                   # n^{-1/2} Y^G_r V = (√θ₂ S V + √(θ₁ − θ₂) W_r V)/n
        del S
        if rivals:
            F = G * np.sqrt(theta2)
            F += noise(fresh_rng, V, root) * np.sqrt(theta1 - theta2)
            F /= n
            blocks["fresh"] = F
        G *= np.sqrt(theta2)
        WV *= np.sqrt(theta1 - theta2)
        G += WV
        G /= n
        blocks["gaussian"] = G
        del WV, G
        if wide:
            joint += spectra.row_gram(np.vstack([blocks[key] for key in names]))
        else:
            for key in names:
                out[key] += blocks[key] @ block
        del blocks
    if wide:
        try:
            F = np.linalg.cholesky(joint)
        except np.linalg.LinAlgError:            # C Cᵀ singular: its eigen-root
            lam, vecs = np.linalg.eigh(joint)
            F = vecs * np.sqrt(np.clip(lam, 0.0, None))
        M = F @ bartlett_rows(len(names) * n, shape.d_o, rng)
        M *= scale
        out = {key: M[i * n:(i + 1) * n] for i, key in enumerate(names)}
    spectra_ = {key: row_spectrum(spectra.row_gram(M)) for key, M in out.items()}
    return OutputDraw(n, spectra_["softmax"], spectra_["gaussian"],
                      None if values_gram is None else row_spectrum(values_gram),
                      spectra_.get("fresh"), spectra_.get("surrogate"))


def relative_w1(a: np.ndarray, b: np.ndarray, scale: float) -> float:
    """mean |a_(k) − b_(k)| over the sorted eigenvalues, over ``scale`` (the limit's mean
    eigenvalue): the relative Wasserstein-1 distance of two spectra of equal size."""
    return float(np.mean(np.abs(np.sort(a) - np.sort(b))) / scale)
