"""The temperature at initialisation: closed form against the scores sampled from the scheme."""

import numpy as np
import pytest
import sympy as sp

from attnge import mha
from attnge.numerics.initialisation import sampled_beta
from attnge.theory import initialisation as ini


def test_the_presets_start_where_their_init_puts_them():
    assert mha.beta_at_init("bert-base") == sp.Rational(192, 625)       # 768 · 0.02²
    assert mha.beta_at_init("gpt3-175b") == sp.Rational(3072, 625)
    assert mha.beta_at_init("llama2-70b") == sp.Rational(2048, 625)
    assert mha.beta_at_init("vit-b16") == 1 and mha.beta_at_init("t5-base") == 1
    assert float(mha.beta_at_init("modernbert-large")) == pytest.approx(0.31692, abs=1e-5)
    assert mha.beta_at_init("kv-tied-2048") is None
    assert mha.initial_beta("kv-tied-2048", "init") == 1
    assert mha.initial_beta(None, "init") == 1
    assert mha.initial_beta("gpt2", "0.5") == sp.Rational(1, 2)


@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n, p in mha.PRESETS.items() if p.init is not None])
def test_the_closed_form_is_the_sampled_scores(name):
    p = mha.PRESETS[name]
    found, se = sampled_beta(p.init, p.d, p.d_head, 48, 12, np.random.default_rng(7))
    exact = float(mha.beta_at_init(name))
    assert abs(found - exact) < 4.5 * se
    forgot_norm = exact / p.d if p.init.input_norm == "layernorm" and p.init.scale != "none" \
        else exact / np.sqrt(p.d_head)          # r² or the scale left out: caught
    assert abs(found - forgot_norm) > 10 * se


def test_mup_and_qk_norm():
    init = ini.Init(sp.Rational(1, 50), sp.Rational(1, 50), scale="mup")
    assert ini.effective_beta(init, 1024, 128) == sp.Rational(1024, 2500) / sp.sqrt(128)
    assert ini.effective_beta(ini.Init(qk_norm_gain=2), 512, 64) == 4
    found, se = sampled_beta(ini.Init(qk_norm_gain=2), 256, 64, 48, 8, np.random.default_rng(1))
    assert abs(found - 4) < 4.5 * se


def test_sides_of_the_temperature_thresholds():
    assert {side for _, _, side in ini.sides(mha.beta_at_init("bert-base"), 512)} == {"below"}
    assert {side for _, _, side in ini.sides(mha.beta_at_init("gpt3-175b"), 2048)} == {"above"}
    with pytest.raises(ValueError, match="scale must be one of"):
        ini.Init(scale="log")
