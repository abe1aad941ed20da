"""Tests of numerics.measure: the differences' rank, the engine against the models, memory."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from attnge.numerics.measure import RANK_ONE, RANK_RTOL, measure_draw


def test_rank_one_differences_have_nothing_beyond_s1_and_the_others_do():
    m = measure_draw(120, 60, 1.0, seed=0, draw=0)
    for key, d in m.differences.items():
        if key in RANK_ONE:
            assert d.rest <= RANK_RTOL, key
        else:                                   # full rank: the check can fail
            assert d.rest > 0.5, key
    rank_one = m.differences["Y->Y_f"]                   # ‖M‖ = ‖M‖_F for rank one
    assert abs(rank_one.op / (rank_one.frob * np.sqrt(120)) - 1) < 1e-12


def test_top_singular_value_by_power_iteration_or_lanczos(monkeypatch):
    from attnge.numerics import law_draws
    from attnge.numerics.sampling import attention, draw_rng, sample_scores

    A = attention(sample_scores(200, 200, draw_rng(0, "t", 200, 0)).S, 1.0)
    exact = np.linalg.svd(A, compute_uv=False)[0]
    assert abs(law_draws.top_singular_value(A) / exact - 1) < 1e-14
    monkeypatch.setattr(law_draws, "POWER_STEPS", 1)       # no convergence: Lanczos
    assert abs(law_draws.top_singular_value(A) / exact - 1) < 1e-14


@pytest.mark.slow
def test_the_engine_measures_what_the_models_of_chain_models_give():
    """measure_draw builds the models one at a time, roots before G, Grams overwritten in
    place; chain_models builds them all at once. Same draw, same numbers (1e-10), with the
    spectra here from NumPy's svd of each model and the norms from its dense difference."""
    from attnge.numerics.chain import chain_models
    from attnge.numerics.measure import DIFFERENCES, SPECTRA
    from attnge.numerics.sampling import draw_rng, sample_scores

    ell, d_qk, beta = 150, 100, 1.0
    m = measure_draw(ell, d_qk, beta, seed=4, draw=2)
    rng = draw_rng(4, "chain", ell, 2)
    models = chain_models(sample_scores(ell, d_qk, rng), beta, rng)
    for key in SPECTRA:
        s2 = np.linalg.svd(models[key], compute_uv=False) ** 2
        assert np.max(np.abs(m.spectra[key] - s2)) <= 1e-10 * s2[0], key
    for name in DIFFERENCES:
        a, b = name.split("->")
        s = np.linalg.svd(models[a] - models[b], compute_uv=False)
        assert abs(m.differences[name].op / s[0] - 1) < 1e-10, name
        assert abs(m.differences[name].frob / (np.linalg.norm(s) / np.sqrt(ell)) - 1) < 1e-10


def test_identities_and_statistics_are_named_fields_with_their_values():
    """The records of one draw: every identity residual is rounding, the forms' expected
    values are the traces they name, and the statistics are numbers (issue 28)."""
    from dataclasses import fields

    from attnge.numerics.chain import key_gram
    from attnge.numerics.measure import Identities, Statistic, Statistics
    from attnge.numerics.sampling import draw_rng, sample_scores
    from attnge.theory.linear_model import sigma_f

    ell, d_qk, beta = 120, 60, 1.0
    m = measure_draw(ell, d_qk, beta, seed=1, draw=0)
    assert {f.name for f in fields(Identities)} == set(Identities.LABELS)
    assert all(0 <= getattr(m.identities, f.name) < 1e-10 for f in fields(Identities))
    assert isinstance(m.statistics, Statistics)
    assert isinstance(m.statistics.projection_on_c, Statistic)
    Sf = sigma_f(key_gram(sample_scores(ell, d_qk, draw_rng(1, "chain", ell, 0)).K, d_qk), beta)
    assert abs(m.statistics.form_identity.expected / np.trace(Sf) - 1) < 1e-12
    assert abs(m.statistics.form_uu.expected / (Sf.sum() / ell) - 1) < 1e-12   # u = 1/sqrt(ell)
    assert m.statistics.norm_d_squared > 0 and m.statistics.spike_alone >= 0


PEAK_SCRIPT = """
import sys
from attnge.numerics.measure import measure_draw

def status(field):
    with open("/proc/self/status") as fh:
        return next(int(line.split()[1]) * 1024 for line in fh if line.startswith(field))

ell, d_qk = int(sys.argv[1]), int(sys.argv[2])
measure_draw(50, 50, 1.0, 0, 0)                  # imports and lambdify, before the baseline
with open("/proc/self/clear_refs", "w") as fh:   # the peak (VmHWM) starts again from here
    fh.write("5")
before = status("VmRSS:")
measure_draw(ell, d_qk, 1.0, 0, 0)
print(status("VmHWM:") - before)
"""


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
@pytest.mark.parametrize("d_qk", [1000, 500])
def test_memory_guard_holds_the_real_peak_of_one_draw_within_25_percent(d_qk):
    """The peak resident memory of one draw (a fresh process, its peak VmHWM reset after
    the imports; glibc told to hand every freed array of 1 MB or more back at once, so that
    the peak is the arrays alive) against the guard's 8 (MATRICES_PER_DRAW ℓ² + 2ℓ d_qk)
    bytes. (ru_maxrss would not do: a child started from a large process inherits its peak.)"""
    from attnge.numerics.measure import MATRICES_PER_DRAW

    ell = 1000
    env = {**os.environ, "MALLOC_MMAP_THRESHOLD_": str(2**20)}
    out = subprocess.run([sys.executable, "-c", PEAK_SCRIPT, str(ell), str(d_qk)], env=env,
                         capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[2])
    peak = int(out.stdout.split()[-1])
    guard = 8 * (MATRICES_PER_DRAW * ell * ell + 2 * ell * d_qk)
    assert 0.75 * peak <= guard <= 1.25 * peak, (peak / 2**20, guard / 2**20)


def test_trace_moments_are_the_moments_of_the_spectra():
    """Traces of Gram powers against the spectrum: M0 that of measure_law_draw (same
    stream), Y^lin_f that of the same S with the next normal draws of the stream."""
    from attnge.numerics import law_draws, spectra
    from attnge.numerics.sampling import draw_rng, sample_scores
    from attnge.theory.exponential import thetas

    ell, d_qk, beta = 120, 80, 1.5
    got = law_draws.trace_moments(ell, d_qk, beta, seed=2, draw=3)
    law = law_draws.measure_law_draw(ell, d_qk, beta, seed=2, draw=3)
    assert np.allclose(got["M0"], law.moments(4), rtol=1e-10, atol=0)
    rng = draw_rng(2, law_draws.STREAM, ell, 3)
    S = sample_scores(ell, d_qk, rng).S
    t1, t2 = thetas(beta)
    lin = (beta * S + np.sqrt(t1 - t2) * rng.standard_normal((ell, ell))) / np.sqrt(ell)
    assert np.allclose(got["Y_lin_f"],
                       spectra.spectral_moments(spectra.squared_singular_values(lin), 4),
                       rtol=1e-10, atol=0)


@pytest.mark.parametrize("ell, d_qk, beta", [(120, 60, 1.0), (100, 400, 2.0)])
def test_a_law_draw_on_the_chains_stream_is_the_chain_draws_m0_bit_for_bit(ell, d_qk, beta):
    """The law steps read the chain draws' scores without their models: the spectrum of M0,
    s₁(A) and ‖A‖_F² of ``measure_law_draw(..., "chain")`` are the chain draw's bytes."""
    from attnge.numerics.law_draws import measure_law_draw

    chain = measure_draw(ell, d_qk, beta, 3, 2)
    law = measure_law_draw(ell, d_qk, beta, 3, 2, "chain")
    assert law.eigs.tobytes() == chain.spectra["M0"].tobytes()
    assert (law.s1, law.frob2) == (chain.perron.s1, chain.perron.frob2)
    other = measure_law_draw(ell, d_qk, beta, 3, 2)           # stream "law": another draw
    assert other.eigs.tobytes() != law.eigs.tobytes()
