"""One run configuration: verify's Params, a variant's Run and a threshold Sweep check the
parameters they share in one place (``run_config.configure``), with one message each, and
differ only by their declared smallest ℓ and fewest draws."""

import pytest

from attnge import run_config
from attnge import variants as va
from attnge.params import Params
from attnge.theory.variants import Variant
from attnge.threshold import audit

SHARED = dict(beta=1.0, y=1.0, sizes=(100, 200, 400), draws=2, seed=0)
BUILDERS = {
    "verify": (run_config.VERIFY, lambda **kw: Params(**kw)),
    "variants": (run_config.VARIANTS, lambda **kw: va.Run(Variant(), **kw)),
    "threshold": (run_config.THRESHOLD,
                  lambda **kw: audit.Sweep("temperature", grid=(0.6, 0.9), **kw)),
}


@pytest.mark.parametrize("name", BUILDERS)
@pytest.mark.parametrize("change, message", [
    ({"beta": 0}, "beta must be"),
    ({"y": -1}, "y must be"),
    ({"sizes": (400, 200, 800)}, "sizes must hold at least 3 strictly increasing values"),
    ({"sizes": (100, 200)}, "sizes must hold at least 3 strictly increasing values"),
    ({"seed": -1}, "seed must be an integer >= 0"),
    ({"draws": 0}, "draws must be an integer >= "),
])
def test_every_run_refuses_a_shared_parameter_with_the_same_message(name, change, message):
    with pytest.raises(ValueError, match=message):
        BUILDERS[name][1](**{**SHARED, **change})


@pytest.mark.parametrize("name", BUILDERS)
def test_the_declared_domains_are_the_ones_applied(name):
    domains, build = BUILDERS[name]
    least = domains.smallest_size
    with pytest.raises(ValueError, match=f"sizes \\(each ell\\) must be an integer >= {least}"):
        build(**{**SHARED, "sizes": (least - 1, 200, 400)})
    with pytest.raises(ValueError, match=f"draws must be an integer >= {domains.fewest_draws}"):
        build(**{**SHARED, "draws": domains.fewest_draws - 1})
    run = build(**{**SHARED, "beta": "3/2", "sizes": [100, 200, 400]})
    assert (run.beta, run.sizes) == (1.5, (100, 200, 400))
    assert set(run_config.FIELDS) <= set(vars(run))
