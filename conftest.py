"""Root pytest configuration: mpmath's globals are restored, and the last BLAS-thread
decision of ``derivations.parallel`` forgotten, after every test."""

import mpmath
import pytest

from derivations import parallel


@pytest.fixture(autouse=True)
def _restore_globals():
    dps, pretty = mpmath.mp.dps, mpmath.mp.pretty
    parallel.reset()
    yield
    mpmath.mp.dps, mpmath.mp.pretty = dps, pretty
    parallel.reset()
