"""The parameters of a verification run, validated once, with one-line errors."""

from __future__ import annotations

from dataclasses import dataclass

from attnge.run_config import VERIFY, configure
from attnge.theory import inputs
from attnge.theory.inputs import integer

DEFAULT_SIZES = (250, 500, 1000, 2000)
HEADS_MAX = 128


def parse_sizes(text: str, name: str = "sizes") -> tuple[int, ...]:
    """'250,500,1000' → (250, 500, 1000); ValueError naming ``name`` otherwise."""
    parts = [p.strip() for p in str(text).split(",")]
    if not all(p.isascii() and p.isdigit() for p in parts):
        raise ValueError(f"{name} must be a comma-separated list of integers (got {text!r})")
    return tuple(int(p) for p in parts)


@dataclass(frozen=True)
class Params:
    """β, y = ℓ/d_qk, the sizes ℓ, the number of draws per size and the seed (the run
    configuration of ``run_config``, its ``VERIFY`` domains), the top values left out of
    the bulk and the heads of the multi-head steps."""

    beta: float = 1.0
    y: float = 1.0
    sizes: tuple[int, ...] = DEFAULT_SIZES
    draws: int = 8
    seed: int = 0
    remove_top: int = 3     # r: the top r squared singular values left out of "the bulk"
    heads: int = 2          # h of the multi-head steps (their sizes: n = ell // h)

    def __post_init__(self) -> None:
        configure(self, VERIFY)             # beta, y, sizes, draws, seed: run_config
        r = integer(self.remove_top, "remove_top", 0)
        if r >= self.sizes[0] - 1:
            raise ValueError(f"remove_top must be an integer from 0 to {self.sizes[0] - 2} "
                             f"(below the smallest ell) (got {r})")
        object.__setattr__(self, "remove_top", r)
        object.__setattr__(self, "heads", integer(self.heads, "heads", 1, HEADS_MAX))

    def d_qk(self, ell: int) -> int:
        """d_qk = round(ℓ/y), at least 1."""
        return inputs.d_qk(ell, self.y)

    def require_d_qk(self, bound: float, what: str) -> None:
        """Refuse sizes whose d_qk ≤ bound (``what`` does not exist there)."""
        for ell in self.sizes:
            d = self.d_qk(ell)
            if not d > bound:
                raise ValueError(
                    f"d_qk must be > {bound:g} for {what} to exist at beta={self.beta:g} "
                    f"(got d_qk={d} at ell={ell}, y={self.y:g})")

    def as_dict(self) -> dict:
        return {"beta": self.beta, "y": self.y, "sizes": list(self.sizes),
                "d_qk": [self.d_qk(ell) for ell in self.sizes],
                "draws": self.draws, "seed": self.seed, "remove_top": self.remove_top,
                "heads": self.heads}
