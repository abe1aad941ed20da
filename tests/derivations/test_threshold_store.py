"""The resume store: every line validated, damaged ones set aside and redone, none lost."""

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attnge.threshold import audit
from attnge.threshold.modes import MODES

SWEEP = audit.Sweep("order", grid=(0.5, 0.9), sizes=(60, 90, 120), draws=1)


def fake(sweep):
    """A store with every draw of ``sweep`` finished, without measuring (numbers made up,
    within the schema's bounds)."""
    n = len(sweep.mode.result_keys)
    return {sweep.key(v, ell, k): {name: i / n for i, name in
                                   enumerate(sweep.mode.result_keys)}
            for v in sweep.grid for ell in sweep.sizes for k in range(sweep.draws)}


def write(path, records):
    path.write_text("".join(json.dumps({"key": k, "result": r}) + "\n"
                            for k, r in records.items()))


def test_the_schema_is_what_the_measurement_returns():
    order = audit.Sweep("order", grid=(0.5, 0.9), sizes=(60, 90, 120), draws=1)
    temperature = audit.Sweep("temperature", grid=(0.3, 0.6), sizes=(60, 90, 120), draws=1)
    one_entry = audit.Sweep("one-entry", grid=(0.3, 0.5), sizes=(60, 90, 120), draws=1)
    for sweep in (order, temperature, one_entry):
        assert set(sweep.measure(sweep.grid[0], 60, 0)) == set(sweep.mode.result_keys)


def test_damaged_lines_are_named_set_aside_and_redone(tmp_path, monkeypatch):
    records = fake(SWEEP)
    path = audit.store_path(tmp_path, "order")
    write(path, records)
    first = next(iter(records))
    with open(path, "ab") as fh:
        fh.write(json.dumps({"key": first, "result": {"frobenius lin_f": "abc"}}).encode()
                 + b"\n")                                         # right key, wrong type
        fh.write(b"\xff\n")                                       # not UTF-8
        fh.write(b'{"key": "torn')                                # a write cut in half
    measured, warnings = [], []
    monkeypatch.setattr(audit.Sweep, "measure",
                        lambda self, v, ell, k: measured.append((v, ell, k)) or records[
                            self.key(v, ell, k)])
    done = audit.run(SWEEP, tmp_path, warn=warnings.append)
    assert done == records and measured == []        # the valid record of that key stands
    assert len(warnings) == 3 and all(str(path) in w and "line" in w for w in warnings)
    rejected = audit.rejected_path(path).read_bytes().splitlines()
    assert len(rejected) == 3 and rejected[1] == b"\xff"
    assert audit.load(path, "order").damaged == []   # the store is clean again
    path.write_bytes(path.read_bytes().replace(first.encode(), b"x" + first.encode(), 1))
    audit.run(SWEEP, tmp_path, warn=warnings.append)  # a record that lost its key: redone
    assert measured == [(0.5, 60, 0)]


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tail=st.binary(max_size=200))
def test_any_bytes_appended_never_crash_and_never_lose_a_record(tmp_path, tail):
    records = fake(SWEEP)
    path = audit.store_path(tmp_path, "order")
    write(path, records)
    with open(path, "ab") as fh:
        fh.write(tail)
    store = audit.load(path, "order")
    assert all(store.done[k] == r for k, r in records.items())
    if store.damaged:
        audit.set_aside(path, store)
    again = audit.load(path, "order")
    assert again.damaged == [] and all(again.done[k] == r for k, r in records.items())
    audit.rejected_path(path).unlink(missing_ok=True)


@pytest.mark.slow
def test_the_committed_quick_sweeps_are_reproduced_within_the_stated_tolerance():
    """A fresh run of the smallest size of docs/threshold/*.jsonl, the quick sweep's first
    draws per point (``--decide`` stored more; another BLAS build may differ in the last
    digits: REPRODUCIBLE_RTOL)."""
    root = Path(__file__).parents[2] / "docs" / "threshold"
    for mode in MODES.values():
        sweep = audit.Sweep(mode, seed=0, **mode.quick)
        ell = min(sweep.sizes)
        checked = 0
        for line in (root / f"threshold-{mode.name}.jsonl").read_text().splitlines():
            record = json.loads(line)
            parts = record["key"].split("|")
            if int(parts[3]) != ell:
                continue
            value, draw = float(parts[2]), int(parts[4])
            if draw >= sweep.draws:
                continue
            assert sweep.key(value, ell, draw) == record["key"]
            fresh = sweep.measure(value, ell, draw)
            for name, old in record["result"].items():
                # + 1e-12: a distance at rounding level (a Wasserstein distance of 4e-15 at
                # alpha = 0.9) moves by more than 1e-9 of itself between BLAS thread counts
                tol = 1.0 / ell + 1e-12 if name.startswith("kolmogorov") else \
                    audit.REPRODUCIBLE_RTOL * abs(old) + 1e-12
                assert abs(fresh[name] - old) <= tol, (mode.name, record["key"], name)
            checked += 1
        assert checked == len(sweep.grid) * sweep.draws
