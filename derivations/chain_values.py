"""Values along the chain: each model's spectrum judged on the chain draws.

m₁ of each model against its exact mean at each ℓ (``theory.chain_means``), and m₁..m₄
of the bulk (the limit law's definition: the top values clipped) fitted to ℓ → ∞ against
those of ν∞, the law every model of the chain shares in the limit. Clipping matters for
the models with entries f(S), whose rare large entries make outliers: at the defaults it
takes the detectable error of their m₄ from about 230% to about 20%. For the models built
from the softmax's scores, the clip and the sizes of the fit follow the limit law's regimes
(``attnge.fits.regimes``): the predicted outliers and the exact mass.
"""

from __future__ import annotations

from attnge import evidence as ev
from attnge import judging
from attnge import regimes as rg
from attnge.exact_means import evaluate, untested
from attnge.fits import BULK_POWERS, CLIP_TOP, K, limit_values, regimes
from attnge.numerics.spectra import clipped_moments
from attnge.params import Params
from attnge.step import Table
from attnge.theory import chain_means

GAUSSIAN = ("Y_lin_Q", "Y_lin_f")
"""Models with Gaussian rows: no large entries, no saturation, so no outlier regime to
respect (Y_lin_Q's covariance is still heavy in the keys' norms: ``regimes.key_norms``)."""
DEGREE = 2      # m₁ is of degree 2 in X_ij (E X² is m_2): z-tested where d_qk > (4·2)²β²


def values_table(sw: ev.Sweep, params: Params, model: str, shown: str) -> Table:
    """The value checks of ``model`` (a key of the chain sweep, written ``shown``)."""
    sizes = sorted(sw)
    table = ev.value_table(f"Values of the spectrum of {shown} from the chain draws")
    # Y_lin_f's mean is θ₁ at every size; Y_lin_Q's entries are Gaussian, with a variance
    # that is a mean over scores: its standard error needs d_qk, not the scores' tail
    why = dict(zip(params.sizes, [None] * len(params.sizes) if model == "Y_lin_f" else
                   untested(DEGREE, params, scores=model != "Y_lin_Q")))
    tested = [ell for ell in sizes if why[ell] is None]
    if tested:
        formula = chain_means.m1(model)
        ev.exact_rows(table, f"m_1({shown})", tested,
                      [v for ell, v in zip(sizes, ev.per_size(sw, lambda m: m.moments(model)[0]))
                       if ell in tested],
                      [float(evaluate(formula, params.beta, ell, params.d_qk(ell)))
                       for ell in tested])
    for ell in sizes:
        if ell not in tested:
            table.add([f"m_1({shown}) at ell = {ell}", "", "", "", why[ell], ""])
    nu = limit_values(params)[0]
    reg = None if model in GAUSSIAN else regimes(params, sizes)
    clip = CLIP_TOP if reg is None else reg.clip

    def regime(q: int) -> rg.Regime | None:
        if reg is not None:             # entries from the softmax's scores: its regimes
            return reg.bulk
        if model == "Y_lin_Q":          # m_q is of degree q in the keys' covariance
            return rg.key_norms(params.beta, params.y, sizes, q)
        return None

    for q in range(1, K + 1):
        ev.limit_row(table, f"m_{q}({shown}), bulk (top {clip} clipped), ell -> inf", sizes,
                     ev.per_size(sw, lambda m, q=q: clipped_moments(
                         m.spectra[model], K, min(clip, m.spectra[model].size - 1))[q - 1]),
                     ev.Extrapolation(nu[q - 1], BULK_POWERS), regime=regime(q))
    return table


def method(shown: str) -> str:
    """The method text of the value checks of ``shown``, from the constants they use."""
    return (f"Value checks: m_1({shown}) against its exact mean at each ell (where d_qk > "
            f"{(4 * DEGREE) ** 2} b^2 and the draws reach the scores that carry it), m_1..m_4 "
            f"of its bulk (top {CLIP_TOP} clipped) fitted to ell -> inf "
            f"({', '.join(f'ell^-{p:.3g}' for p in BULK_POWERS)}) against nu_infinity. "
            f"A distance's or a moment difference's slope is INCONCLUSIVE where its rule's "
            f"width exceeds {judging.RIVAL_SHARE:g} of the way to 0, the slope of a plateau "
            f"(the rival: two models that differ in the limit); the step's own distance "
            f"decides the step. ")


FAILURE = f"a value more than {judging.VALUE_Z:g} se (normal scale) from its prediction, "
