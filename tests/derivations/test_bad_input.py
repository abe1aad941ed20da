"""Bad input and faults: one line naming the parameter, the exit code, nothing computed."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from attnge import cli, runner
from attnge import coefficient_tables as tables
from attnge.params import Params, parse_sizes
from attnge.theory import inputs


def run(capsys, *argv):
    code = cli.main(list(argv))
    err = capsys.readouterr().err.strip().splitlines()
    return code, err


@pytest.mark.parametrize("argv, name", [
    (("verify", "--steps", "normalizer", "--draws", "1", "--sizes", "100,200,10000000"),
     "sizes: ell=10000000"),
    (("verify", "--steps", "normalizer", "--beta", "1e308", "--sizes", "100,200,400"), "beta"),
    (("spectrum", "--beta", "1e308", "--ell", "50", "--dqk", "50"), "beta"),
    (("spectrum", "--dqk", "10000000", "--ell", "1000"), "ell, dqk"),
    (("tables", "--beta", "1", "--y", "1e308"), "y must be in"),
    (("tables", "--digits", "10000"), "digits must be an integer from 1 to"),
    (("tables", "--order", "1000"), "order must be an integer from 1 to"),
    (("tables", "--moments", "1000"), "moments must be an integer from 1 to"),
    (("threshold", "--mode", "temperature", "--grid", "100,200", "--sizes", "100,200,400",
      "--draws", "1"), "grid must hold c <="),
    (("threshold", "--mode", "temperature", "--y", "1e308", "--grid", "0.2,0.4",
      "--sizes", "100,200,400", "--draws", "1"), "y must be in"),
    (("threshold", "--mode", "temperature", "--beta", "1"), "beta applies to --mode order"),
    (("threshold", "--mode", "order", "--y", "2"), "y applies to --mode temperature"),
    (("verify", "--steps", "normalizer,,"), "steps must be"),
])
def test_refused_in_one_line_with_exit_2(capsys, argv, name):
    code, err = run(capsys, *argv)
    assert code == 2 and len(err) == 1 and name in err[0], err


@pytest.mark.parametrize("command", [
    ("tables", "--order", "4", "--out", "{f}/t.md"),
    ("spectrum", "--ell", "50", "--dqk", "50", "--draws", "1", "--out", "{f}/x.png"),
    ("verify", "--steps", "normalizer", "--json", "{f}/o.json"),
    ("verify", "--steps", "normalizer", "--report", "{f}/r"),
    ("threshold", "--mode", "order", "--out", "{f}/d"),
])
def test_an_output_path_through_a_file_is_refused_before_computing(capsys, tmp_path,
                                                                   monkeypatch, command):
    afile = tmp_path / "afile"
    afile.write_text("keep")
    monkeypatch.setattr(runner, "run", lambda *a, **k: pytest.fail("computed"))
    code, err = run(capsys, *[c.format(f=afile) for c in command])
    assert code == 2 and len(err) == 1 and "is a file" in err[0], err
    assert afile.read_text() == "keep"


def test_an_internal_error_exits_3_with_a_log(capsys, monkeypatch, tmp_path):
    def broken(*a, **k):
        raise ValueError("something inside went wrong")
    monkeypatch.setattr(runner, "run", broken)
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    code, err = run(capsys, "verify", "--steps", "normalizer", "--sizes", "100,200,400")
    assert code == 3 and len(err) == 1 and "internal error" in err[0]
    log, = tmp_path.glob("attnge-error-*.log")            # this run's own log
    assert str(log) in err[0] and "something inside went wrong" in log.read_text()
    code, err = run(capsys, "--debug", "verify", "--steps", "normalizer", "--sizes",
                    "100,200,400")
    assert code == 3 and any("Traceback" in line for line in err)


def test_beta_has_one_limit_everywhere():
    with pytest.raises(ValueError, match=f"beta must be in \\(0, {inputs.BETA_MAX:g}\\]"):
        inputs.beta(inputs.BETA_MAX * 1.01)
    assert inputs.beta(inputs.BETA_MAX) == inputs.BETA_MAX


def test_threshold_exits_1_when_a_verdict_fails(capsys, monkeypatch):
    from attnge.step import Table
    from attnge.threshold import audit as threshold

    failing = Table("t", ["x"])
    failing.add(["bad"], False)
    monkeypatch.setattr(threshold, "run", lambda *a, **k: {})
    monkeypatch.setattr(threshold, "quantities", lambda *a, **k: [])
    monkeypatch.setattr(threshold, "tables", lambda *a, **k: [failing])
    code, _ = run(capsys, "threshold", "--mode", "order")
    assert code == 1


def test_report_without_matplotlib_names_the_option_and_the_extra(capsys, monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "matplotlib", None)      # import fails
    code, err = run(capsys, "verify", "--steps", "normalizer", "--report", "out")
    assert code == 2 and len(err) == 1
    assert err[0].startswith("attnge: error: report:") and "attnge[plot]" in err[0]


TEXT = st.one_of(st.text(max_size=30), st.from_regex(r"-?[0-9.e+,]{0,20}", fullmatch=True))


def one_line_naming(err: ValueError, name: str) -> bool:
    text = str(err)
    return "\n" not in text and name in text


@given(TEXT)
def test_every_parser_returns_or_raises_one_line_naming_its_parameter(text):
    for name, parse in (("sizes", parse_sizes), ("beta", lambda t: tables.parse_list(t, "beta")),
                        ("beta", inputs.beta), ("y", inputs.ratio),
                        ("draws", lambda t: inputs.integer(t, "draws", 1)),
                        ("beta", lambda t: Params(beta=t)), ("y", lambda t: Params(y=t)),
                        ("draws", lambda t: Params(draws=t))):
        try:
            parse(text)
        except ValueError as err:
            assert one_line_naming(err, name), (name, text, err)


def test_a_ratio_is_a_number_where_a_float_is():
    assert inputs.ratio("1/16") == 1 / 16 and inputs.beta(" 3/2 ") == 1.5
    for text in ("1/0", "1/4/2", "a/b", "1/-4"):
        with pytest.raises(ValueError, match="^y must be"):
            inputs.ratio(text)
