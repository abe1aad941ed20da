"""attnge bench: the three timings per size, their ratios and the JSON fields.

No test compares the timings themselves: a timing depends on the machine's load, and the
benchmark's figures are measured and reported in docs/bench, not asserted."""

import json

import pytest

from attnge import cli

FIELDS = {"ell", "draws", "pipeline_s", "naive_s", "floor_s", "speedup_vs_naive",
          "ratio_to_floor", "peak_rss_gib"}


@pytest.mark.slow
def test_rows_and_json(tmp_path, capsys):
    out = tmp_path / "b.json"
    assert cli.main(["--quiet", "bench", "--ell", "60", "--ell", "80", "--draws", "1",
                     "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert [r["ell"] for r in data["rows"]] == [60, 80] and "provenance" in data
    for r in data["rows"]:
        assert set(r) == FIELDS and min(r["pipeline_s"], r["naive_s"], r["floor_s"]) > 0
        assert r["speedup_vs_naive"] == r["naive_s"] / r["pipeline_s"]
    assert "| 80 | 1 |" in capsys.readouterr().out


def test_bad_sizes_exit_2(capsys):
    assert cli.main(["bench", "--ell", "5"]) == 2
    assert "ell must be an integer >= 10" in capsys.readouterr().err
