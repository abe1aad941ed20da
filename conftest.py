"""Root pytest configuration: mpmath's globals are restored, and the last BLAS-thread
decision of ``derivations.parallel`` and the truth grid's shared seed-only results
forgotten, after every test."""

import mpmath
import pytest

from attnge import parallel, truth


@pytest.fixture(autouse=True)
def _restore_globals():
    dps, pretty = mpmath.mp.dps, mpmath.mp.pretty
    parallel.reset()
    truth.reset()
    yield
    mpmath.mp.dps, mpmath.mp.pretty = dps, pretty
    parallel.reset()
    truth.reset()
