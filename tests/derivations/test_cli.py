"""The command line: listing, verifying, JSON, reproducibility and bad input."""

import json
import re

import pytest

from attnge import ledger
from attnge.cli import main

SMALL = ["--sizes", "100,200,400", "--draws", "3"]


def test_steps_lists_the_ledger(capsys):
    assert main(["steps"]) == 0
    out = capsys.readouterr().out
    assert [line.split()[0] for line in out.splitlines()] == [s.id for s in ledger.STEPS]


def _untimed(text: str) -> str:
    """The output without the steps' seconds (the end of each step's line)."""
    return re.sub(r" +[0-9.]+ s$", "", text, flags=re.M)


@pytest.mark.slow
def test_verify_normalizer_is_reproducible(capsys, tmp_path):
    """Nothing fails at these sizes; the concentration slope, the step's claim, is outside
    its regime there, so nothing rules out a plateau and the step is INCONCLUSIVE."""
    args = ["verify", "-v", "--steps", "normalizer", *SMALL, "--json", str(tmp_path / "a.json")]
    assert main(args) == 0
    first = capsys.readouterr().out
    assert "attnge verify: 1 step, 0 passed, 1 inconclusive (normalizer), 0 failed" in first
    assert main(args[:-1] + [str(tmp_path / "b.json")]) == 0
    assert _untimed(capsys.readouterr().out) == _untimed(first)  # bit for bit
    a = json.loads((tmp_path / "a.json").read_text())
    b = json.loads((tmp_path / "b.json").read_text())
    for step in a["steps"] + b["steps"]:
        step.pop("wall_s")
    assert a["steps"] == b["steps"] and a["passed"] is True
    assert a["provenance"]["parameters"]["sizes"] == [100, 200, 400]
    assert a["provenance"]["parameters"]["seed"] == 0
    # every printed table cell is in the JSON
    for table in a["steps"][0]["tables"]:
        for row in table["rows"]:
            assert "| " + " | ".join(row) in first


@pytest.mark.slow
def test_a_different_seed_changes_the_samples(capsys):
    main(["verify", "-v", "--steps", "normalizer", *SMALL])
    first = capsys.readouterr().out
    main(["verify", "-v", "--steps", "normalizer", *SMALL, "--seed", "1"])
    assert _untimed(capsys.readouterr().out) != _untimed(first)


@pytest.mark.slow
def test_verify_prints_one_line_per_step_then_the_summary(capsys):
    assert main(["verify", "--steps", "exponential,not-marchenko-pastur", *SMALL]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    # at these sizes the gap to the surrogate cannot be told from 0: INCONCLUSIVE (issue 39)
    assert [line.split()[:2] for line in lines[:2]] == [["exponential", "PASS"],
                                                        ["not-marchenko-pastur", "INC"]]
    assert re.search(r"\d+/\d+ passed .* detects [0-9.]+% +[0-9.]+ s$", lines[0])
    assert lines[2:] == ["", "attnge verify: 2 steps, 1 passed, 1 inconclusive "
                         "(not-marchenko-pastur), 0 failed; 3 checks inconclusive; 0 of the 1 "
                         "step that names a rival ruled it out (none)"]


@pytest.mark.parametrize("args, name", [
    (["--beta", "0"], "beta"), (["--beta", "-1"], "beta"), (["--beta", "inf"], "beta"),
    (["--beta", "abc"], "beta"), (["--y", "0"], "y"), (["--y", "-2"], "y"),
    (["--sizes", "1,2,3"], "sizes"), (["--sizes", "400,200,800"], "sizes"),
    (["--sizes", "100,200"], "sizes"), (["--sizes", "a,b"], "sizes"),
    (["--draws", "0"], "draws"), (["--draws", "1.5"], "draws"), (["--seed", "-1"], "seed"),
    (["--steps", "nope"], "steps"), (["--y", "1000"], "d_qk"),
    (["--beta", "4", "--sizes", "20,40,60"], "d_qk"), (["--bogus"], "unrecognized"),
    (["--remove-top", "-1"], "remove_top"), (["--remove-top", "5000"], "remove_top"),
])
def test_bad_input_one_line_exit_2(capsys, args, name):
    assert main(["verify", *args]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("attnge: error:") and name in lines[0]


def test_json_into_a_folder_is_refused_before_running(capsys, tmp_path):
    assert main(["verify", "--steps", "normalizer", *SMALL, "--json", str(tmp_path)]) == 2
    assert "json" in capsys.readouterr().err


@pytest.mark.slow
def test_python_dash_m(tmp_path):
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-m", "attnge", "steps"], capture_output=True,
                         text=True, check=True)
    assert "exponential" in out.stdout


def test_sizes_too_large_for_memory_exit_2(capsys):
    code = main(["verify", "--steps", "perron", "--sizes", "200000,400000,800000"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "sizes" in err[0] and "GiB" in err[0]
