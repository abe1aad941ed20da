"""Root pytest configuration: mpmath's globals are restored, and the truth grid's shared
seed-only results (in the run context) and the kept exact masses
(``softmax_mass.expected_mass``) forgotten, after every test. The run context keeps
the sweeps themselves across tests: a test that must not see another's draws runs in
``context.running(Context())``. Doctests cannot carry a marker: the slow ones are marked
here (``SLOW_DOCTESTS``), so that ``-m "not slow"`` leaves them out too."""

import mpmath
import pytest

from attnge import context, truth
from attnge.numerics import softmax_mass

SLOW_DOCTESTS = {"docs/reference/tutorial.rst::tutorial.rst",      # 4 s: laws, samples, a verify
                 "derivations/variants.py::derivations.variants.check"}  # 1 s: a variant run


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.nodeid in SLOW_DOCTESTS:
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def _restore_globals():
    dps, pretty = mpmath.mp.dps, mpmath.mp.pretty
    context.current().forget(truth.SEED_KIND)
    yield
    mpmath.mp.dps, mpmath.mp.pretty = dps, pretty
    context.current().forget(truth.SEED_KIND)
    softmax_mass.expected_mass.cache_clear()
