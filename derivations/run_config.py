"""One run configuration: the parameters every sampled run shares (β, y, the sizes ℓ, the
draws per size and the seed), each with its declared domain, checked in one place.

``attnge verify`` and the truth grid (``params.Params``), ``attnge variants``
(``variants.Run``) and ``attnge threshold`` (``threshold.audit.Sweep``) validate these five
through :func:`configure`, ``attnge mha`` its draws and seed through the same domains. What
differs between them is declared, not rewritten: the smallest ℓ and the fewest draws each
can judge (:class:`Domains`).

>>> VERIFY.sizes([250, 500, 1000])
(250, 500, 1000)
>>> VARIANTS.draws(1)
Traceback (most recent call last):
...
ValueError: draws must be an integer >= 2 (got 1)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from attnge.theory import inputs
from attnge.theory.inputs import integer

__all__ = ["FIELDS", "THRESHOLD", "VARIANTS", "VERIFY", "Domains", "configure", "seed"]

SIZES_MIN = 3
"""A rate or an extrapolation needs three sizes."""

FIELDS = {
    "beta": "inverse temperature, 0 < beta <= 6 (a number or a ratio such as 3/2)",
    "y": "ratio ell/d_qk, 0 < y <= 1000, with d_qk = round(ell/y) >= 1 at every size",
    "sizes": f"at least {SIZES_MIN} strictly increasing integers ell, each at least the "
             "command's smallest",
    "draws": "draws per size, an integer at least the command's fewest",
    "seed": "an integer >= 0",
}
"""The shared parameters and their domains, as the commands' help and errors state them."""


@dataclass(frozen=True)
class Domains:
    """What one command accepts for the shared parameters: the smallest ℓ and the fewest
    draws per size that its checks can judge (the rest of each domain is ``FIELDS``')."""

    smallest_size: int
    fewest_draws: int

    def sizes(self, values: Iterable) -> tuple[int, ...]:
        """At least ``SIZES_MIN`` strictly increasing integers ≥ ``smallest_size``."""
        sizes = tuple(integer(s, "sizes (each ell)", self.smallest_size) for s in values)
        if len(sizes) < SIZES_MIN or any(b <= a for a, b in zip(sizes, sizes[1:])):
            raise ValueError(f"sizes must hold at least {SIZES_MIN} strictly increasing values "
                             f"(got {list(sizes)})")
        return sizes

    def draws(self, value: object) -> int:
        """An integer ≥ ``fewest_draws``."""
        return integer(value, "draws", self.fewest_draws)


VERIFY = Domains(smallest_size=2, fewest_draws=1)
"""``attnge verify`` and the truth grid (each step may ask more: ``Step.validate``)."""
VARIANTS = Domains(smallest_size=8, fewest_draws=2)
"""``attnge variants`` and ``attnge mha`` (its draws; its sizes follow from the layer): a
Gaussian-equivalence verdict reads a distance's spread, which needs two draws."""
THRESHOLD = Domains(smallest_size=4, fewest_draws=1)
"""``attnge threshold``."""


def seed(value: object) -> int:
    """The seed: an integer ≥ 0."""
    return integer(value, "seed", 0)


def configure(run: object, domains: Domains) -> None:
    """Check ``run``'s ``beta``, ``y``, ``sizes``, ``draws`` and ``seed`` against their
    domains and set them, normalised (β and y as floats, the sizes as a tuple), on the frozen
    dataclass ``run``; ValueError naming the first parameter out of its domain."""
    beta = inputs.beta(run.beta)
    y = inputs.ratio(run.y)
    sizes = domains.sizes(run.sizes)
    for ell in sizes:
        inputs.d_qk(ell, y)
    for name, value in (("beta", beta), ("y", y), ("sizes", sizes),
                        ("draws", domains.draws(run.draws)),
                        ("seed", seed(run.seed))):
        object.__setattr__(run, name, value)
