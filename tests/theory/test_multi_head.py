"""The multi-head and output laws: two routes, the single head at h = 1, the sanity values."""

import pytest
import sympy as sp

from attnge.theory import limit_law as ll
from attnge.theory import multi_head as mh

T1, T2, H, GK, GV, GO = sp.symbols("theta1 theta2 h gamma_K gamma_V gamma_O", positive=True)


def moments(kind, K, sharing="none", route="stated", **kw):
    gv = GK if sharing == "kv" else GV
    return mh.law_moments(kind, K, kw.get("t1", T1), kw.get("t2", T2), kw.get("h", H),
                          GK, gv, GO, sharing, route)


@pytest.mark.parametrize("kind", mh.KINDS)
@pytest.mark.parametrize("sharing", mh.SHARING)
def test_the_stated_law_and_the_matrix_model_have_the_same_moments(kind, sharing):
    stated = moments(kind, 5, sharing, "stated")
    matrix = moments(kind, 5, sharing, "matrix")
    assert all(sp.simplify(a - b) == 0 for a, b in zip(stated, matrix))


def test_one_head_is_the_single_head_law_exactly():
    for route in mh.ROUTES:
        one = moments("attention", 6, route=route, h=1)
        assert [sp.expand(a - b) for a, b in zip(one, ll.limit_moments(6, T1, T2, 1 / GK))] \
            == [0] * 6


def test_sanity_values_of_the_theory():
    for route in mh.ROUTES:
        m = moments("attention", 2, route=route)
        assert sp.simplify(m[1] - ((1 + 1 / H) * T1**2 + T2**2 / GK)) == 0
        assert sp.simplify(m[1] - m[0] ** 2 - (T1**2 / H + T2**2 / GK)) == 0   # kappa_2
        out = moments("output", 2, route=route)
        assert sp.simplify(out[0] - GO * T1) == 0
        assert sp.simplify(out[1] / out[0] ** 2 - 1
                           - (1 / H + 1 / GV + 1 / GO + T2**2 / (GK * T1**2))) == 0
        assert sp.simplify(moments("values", 1, "kv", route)[0] - (GK * T1 + H * T2)) == 0
        assert sp.simplify(moments("output", 1, "kv", route)[0]
                           - GO * (T1 + H * T2 / GK)) == 0


def test_without_theta2_attention_is_theta1_mp():
    """θ₂ = 0: ρ = δ_θ₁ and ν_{∞,h} = θ₁ MP_{1/h}, whose moments are Narayana polynomials."""
    m = moments("attention", 4, t2=0)
    assert [sp.expand(v - T1 ** (k + 1) * n) for k, (v, n) in
            enumerate(zip(m, ll.narayana_moments(4, 1 / H)))] == [0] * 4


@pytest.mark.parametrize("call, match", [
    (lambda: mh.law("heads", 1, 1, 2, 1), "kind must be"),
    (lambda: mh.law("attention", 1, 1, 2, 1, sharing="gqa"), "sharing must be"),
    (lambda: mh.law("values", 1, 1, 2, 1, 2, sharing="kv"), "gamma_v must equal gamma_k"),
    (lambda: mh.law("attention", 1, 1, -2, 1), "heads must be positive"),
    (lambda: mh.law("attention", 1, 2, 2, 1), "theta2 must be at most theta1"),
    (lambda: mh.law("output", 1, 1, 2, 1, 1), "gamma_o must be"),
    (lambda: mh.moments(mh.law("attention", 1, 1, 2, 1), 0), "K must be"),
    (lambda: mh.moments(mh.law("attention", 1, 1, 2, 1), 2, "matrix"), "compound"),
])
def test_bad_input_is_refused_naming_the_parameter(call, match):
    with pytest.raises(ValueError, match=match):
        call()
