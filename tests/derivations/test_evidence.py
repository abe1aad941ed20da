"""What ``detectable`` means: a prediction off by exactly that much sits on the threshold."""

import math

import pytest

from derivations import evidence as ev
from derivations.step import Table


def test_an_error_of_detectable_reaches_the_threshold_at_one_size():
    table = Table("t", ["x", "z", "detectable"])
    expected, se = 2.0, 0.01
    ev.z_value(table, ["a"], "a", expected, se, math.inf, expected)
    det = table.values[0]["detectable"]
    z = ev.z_value(table, ["b"], "b", expected * (1 + det), se, math.inf, expected)
    assert z == pytest.approx(ev.Z_MAX) and table.verdicts[-1] is True
    assert ev.z_value(table, ["c"], "c", expected * (1 + 1.01 * det), se, math.inf,
                      expected) > ev.Z_MAX and table.verdicts[-1] is False


def test_a_shared_error_of_detectable_reaches_the_threshold_combined():
    table = Table("t", ["x", "z", "detectable"])
    expected, ses = [1.0, 2.0, 4.0], [0.01, 0.03, 0.02]
    rse = [s / e for s, e in zip(ses, expected)]
    ev.z_combined(table, ["all"], "m", [0.0] * 3, rse)
    det = table.values[0]["detectable"]
    zs = [e * det / s for e, s in zip(expected, ses)]     # every size off by det
    ev.z_combined(table, ["all"], "m", zs, rse)
    assert table.values[1]["z"] == pytest.approx(ev.Z_MAX)


def test_few_draws_need_a_larger_error():
    assert ev.detectable(0.01, 3, 1.0) > ev.detectable(0.01, math.inf, 1.0) == \
        pytest.approx(ev.Z_MAX * 0.01)
