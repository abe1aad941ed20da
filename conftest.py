"""Root pytest configuration: mpmath's globals are restored after every test."""

import mpmath
import pytest


@pytest.fixture(autouse=True)
def _restore_mpmath():
    dps, pretty = mpmath.mp.dps, mpmath.mp.pretty
    yield
    mpmath.mp.dps, mpmath.mp.pretty = dps, pretty
