"""Root pytest configuration: mpmath's globals are restored, and the truth grid's shared
seed-only results (in the run context) forgotten, after every test. The run context keeps
the sweeps themselves across tests: a test that must not see another's draws runs in
``context.running(Context())``."""

import mpmath
import pytest

from attnge import context, truth


@pytest.fixture(autouse=True)
def _restore_globals():
    dps, pretty = mpmath.mp.dps, mpmath.mp.pretty
    context.current().forget(truth.SEED_KIND)
    yield
    mpmath.mp.dps, mpmath.mp.pretty = dps, pretty
    context.current().forget(truth.SEED_KIND)
