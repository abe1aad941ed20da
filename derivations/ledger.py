"""The ledger: the proof steps in the order of the proof. Adding a step is one line here."""

from __future__ import annotations

from attnge.step import Step
from attnge.steps import (
    chain_m0_y,
    chain_y_yf,
    chain_yf_yq,
    chain_ylinq_ylinf,
    chain_yq_ylinq,
    exponential,
    limit_law,
    mha_output,
    multi_head_law,
    normalizer,
    not_marchenko_pastur,
    outliers,
    perron,
    threshold,
    variants_causal,
    variants_inputs,
    variants_kernel,
    variants_weights,
)

STEPS: tuple[Step, ...] = (
    exponential.STEP,
    normalizer.STEP,
    chain_m0_y.STEP,
    chain_y_yf.STEP,
    chain_yf_yq.STEP,
    chain_yq_ylinq.STEP,
    chain_ylinq_ylinf.STEP,
    limit_law.STEP,
    not_marchenko_pastur.STEP,
    perron.STEP,
    outliers.STEP,
    multi_head_law.STEP,
    mha_output.STEP,
    threshold.STEP,
    variants_kernel.STEP,
    variants_weights.STEP,
    variants_inputs.STEP,
    variants_causal.STEP,
)
DEFAULT: tuple[Step, ...] = tuple(step for step in STEPS if step.default)
"""The steps of ``attnge verify`` without --steps or --all: the theorem's. The attention
variants' steps (issue 30) run when named or with --all."""


def select(ids: str | None, every: bool = False) -> list[Step]:
    """The steps named in a comma-separated list, in ledger order; when None, ``DEFAULT``
    (every step with ``every``)."""
    if ids is None:
        return list(STEPS if every else DEFAULT)
    wanted = [s.strip() for s in ids.split(",")]
    known = {step.id for step in STEPS}
    unknown = [s for s in wanted if s not in known]
    if unknown:
        raise ValueError(f"steps must be a comma-separated list of step ids from "
                         f"{', '.join(sorted(known))} (got {ids!r})")
    return [step for step in STEPS if step.id in wanted]
