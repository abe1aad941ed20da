"""Entries above a level: the expected count and the partners in a row or column, against
sampled scores at a small d_qk (where long queries and keys cluster them)."""

import numpy as np
import pytest

from attnge.numerics import outliers


def test_partners_per_entry_match_sampled_scores():
    ell, d, beta, a = 300, 10, 1.5, 3.0
    tau = (np.log(1 + a * np.sqrt(ell)) + beta**2 / 2) / beta
    rng = np.random.default_rng(5)
    counts, partners = [], []
    for _ in range(20):
        Q, K = rng.standard_normal((ell, d)), rng.standard_normal((ell, d))
        above = (Q @ K.T) / np.sqrt(d) > tau
        rows, cols = above.sum(axis=1), above.sum(axis=0)
        i, j = np.nonzero(above)
        counts.append(above.sum())
        partners += list(rows[i] - 1 + cols[j] - 1)
    expected = outliers.expected_entries_above(a, ell, d, beta)
    assert np.mean(counts) == pytest.approx(expected, rel=0.1)
    predicted = outliers.partners_per_entry(a, ell, d, beta)
    independent = 2 * (ell - 1) * expected / ell**2
    assert predicted > 3 * independent                # the clustering is real at d = 10
    assert np.mean(partners) == pytest.approx(predicted, rel=0.2)
