"""Progress: a line per finished unit off a terminal, a tqdm bar on one, nothing if quiet."""

import io

import pytest

from attnge.output.progress import Progress


class Terminal(io.StringIO):
    def isatty(self):
        return True


def drive(progress):
    for i, label in enumerate(["a", "b", "c"]):
        progress(i, 3, label)
    progress(3, 3, "")


def test_a_line_per_finished_unit_off_a_terminal():
    out = io.StringIO()
    drive(Progress("verify", stream=out))
    lines = out.getvalue().splitlines()
    assert [line.split(" (")[0] for line in lines] == [
        "attnge: verify 1/3 done: a", "attnge: verify 2/3 done: b", "attnge: verify 3/3 done: c"]


def test_quiet_is_silent_everywhere():
    for stream in (io.StringIO(), Terminal()):
        drive(Progress("verify", quiet=True, stream=stream))
        assert stream.getvalue() == ""


def test_a_bar_on_a_terminal():
    pytest.importorskip("tqdm")
    out = Terminal()
    drive(Progress("verify", stream=out))
    assert "attnge verify" in out.getvalue() and "3/3" in out.getvalue()
    assert "done:" not in out.getvalue()


@pytest.mark.slow
def test_the_cli_reports_each_step_and_quiet_silences_it(capsys):
    from attnge import cli

    args = ["verify", "--steps", "normalizer", "--sizes", "100,200,400", "--draws", "1"]
    assert cli.main(args) == 0
    assert "attnge: verify 1/1 done: normalizer" in capsys.readouterr().err
    assert cli.main(["--quiet", *args]) == 0
    assert "done:" not in capsys.readouterr().err
