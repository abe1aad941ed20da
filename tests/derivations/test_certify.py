"""attnge certify: the issue's done-when, refused claims, the independent checker against
tampered files, wrong mathematics injected into one route, formats and bad input."""

import copy
import csv
import io
import json
import sys
from fractions import Fraction

import pytest

from attnge import edge_certificates as certify
from attnge.cli import main
from attnge.theory import certificates as ce

pytest.importorskip("flint")


def run(capsys, *args):
    code = main(["certify", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def one_head(tmp_path_factory):
    """The issue's example: beta = y = 1, default claim."""
    path = tmp_path_factory.mktemp("certify") / "c.json"
    assert main(["certify", "--beta", "1", "--y", "1", "--json", str(path)]) == 0
    return path, json.loads(path.read_text())


@pytest.fixture(scope="module")
def several(tmp_path_factory):
    """A small grid of one head, and a refuted claim."""
    path = tmp_path_factory.mktemp("certify") / "grid.json"
    assert main(["certify", "--beta", "1/2,1", "--y", "1/4,2", "--json", str(path)]) == 0
    refuted = path.with_name("refuted.json")
    assert main(["certify", "--beta", "1", "--y", "1", "--claim", "edge > 2*mp-edge",
                 "--json", str(refuted)]) == 1
    return json.loads(path.read_text()), json.loads(refuted.read_text())


def produced_then_checked(capsys, monkeypatch, tmp_path, *args):
    """Produce a certificate under the monkeypatches, then check it with them undone."""
    path = tmp_path / "produced.json"
    assert main(["certify", *args, "--json", str(path)]) == 0
    monkeypatch.undo()
    capsys.readouterr()
    return run(capsys, "--check", str(path))


def check(capsys, tmp_path, document):
    path = tmp_path / "t.json"
    path.write_text(json.dumps(document))
    return run(capsys, "--check", str(path))


def test_done_when_width_and_certified(one_head):
    _, doc = one_head
    (cell,) = doc["cells"]
    lo, hi = Fraction(cell["edge"]["lo"]), Fraction(cell["edge"]["hi"])
    assert (hi - lo) / lo <= Fraction(1, 10**20)
    assert cell["certified"] is True and cell["verdict"] == "certified"
    mp_lo, mp_hi = Fraction(cell["mp_edge"]["lo"]), Fraction(cell["mp_edge"]["hi"])
    assert lo > mp_hi
    t1 = ce.theta1_bounds(1, 60)                        # the surrogate's edge is 4 theta_1
    assert mp_lo <= 4 * t1[0] <= 4 * t1[1] <= mp_hi
    assert cell["moment_ratio"]["k"] == 5              # m_6/m_5 > 4 theta_1 at beta = y = 1
    assert cell["m2_gap"] == {"value": "1", "positive": True}   # y theta_2^2
    assert "provenance" in doc


def test_false_claim_is_refused_with_its_enclosure(capsys, tmp_path):
    code, _, err = run(capsys, "--beta", "1", "--y", "1", "--claim", "edge > 2*mp-edge",
                       "--json", str(tmp_path / "r.json"))
    assert code == 1
    assert "refused: edge > 2*mp-edge is false at beta = 1, y = 1: edge <= 9.0095425" in err
    cell = json.loads((tmp_path / "r.json").read_text())["cells"][0]
    assert cell["certified"] is False and cell["verdict"] == "refuted"
    assert Fraction(cell["edge"]["hi"]) <= 2 * Fraction(cell["mp_edge"]["lo"])


def test_checker_accepts_untouched_files(capsys, one_head):
    path, _ = one_head
    code, out, _ = run(capsys, "--check", str(path))
    assert code == 0 and out.startswith("accepted: 1 cells")


def test_checker_accepts_the_grid_and_the_refutation(capsys, tmp_path, several):
    for doc in several:
        assert check(capsys, tmp_path, doc)[0] == 0


def _shift(value: str, factor: str) -> str:
    return str(Fraction(value) * Fraction(factor))


def _raise_threshold(c):         # a larger k made to look smallest by its own threshold
    ratio = c["moment_ratio"]
    ratio.update(k=ratio["k"] + 1, threshold_hi=ratio["ratio_lo"],
                 ratio_lo=_shift(ratio["ratio_lo"], "1.02"))


TAMPERS = {  # name: (tamper, a fragment of the checker's message)
    "edge lo above the edge": (lambda c: c["edge"].update(
        lo=_shift(c["edge"]["lo"], "1.000000001")), "edge: ["),
    "edge hi below the edge": (lambda c: c["edge"].update(
        hi=_shift(c["edge"]["hi"], "0.999999999")), "edge: ["),
    "edge lo a last digit up": (lambda c: c["edge"].update(
        lo=str(Fraction(c["edge"]["lo"]) + Fraction(1, 10**24))), "does not hold the proved"),
    "mp-edge hi down": (lambda c: c["mp_edge"].update(
        hi=_shift(c["mp_edge"]["hi"], "0.99")), "mp_edge: ["),
    "k down": (lambda c: c["moment_ratio"].update(k=c["moment_ratio"]["k"] - 1),
               "moment_ratio: {"),
    "k up": (lambda c: c["moment_ratio"].update(k=c["moment_ratio"]["k"] + 1),
             "moment_ratio: {"),
    "k null": (lambda c: c["moment_ratio"].update(k=None), "moment_ratio: {"),
    "k up, threshold raised": (_raise_threshold, "moment_ratio: {"),
    "k_max lowered": (lambda c: c["moment_ratio"].update(k_max=4), "k_max is not 64"),
    "ratio raised": (lambda c: c["moment_ratio"].update(
        ratio_lo=_shift(c["moment_ratio"]["ratio_lo"], "1.001")), "moment_ratio: {"),
    "threshold lowered": (lambda c: c["moment_ratio"].update(
        threshold_hi=_shift(c["moment_ratio"]["threshold_hi"], "0.99")), "moment_ratio: {"),
    "bracket swapped": (lambda c: c.update(bracket={"lo": c["bracket"]["hi"],
                                                    "hi": c["bracket"]["lo"]}), "signs of phi'"),
    "beta changed": (lambda c: c.update(beta="11/10"), "theta2 is"),
    "beta and theta2 changed": (lambda c: c.update(beta="11/10", theta2="121/100"),
                                "theta1 is not in"),
    "y changed": (lambda c: c.update(y="1/10"), "gamma_k is"),
    "gamma_v shown on attention": (lambda c: c.update(gamma_v="2"), "gamma_v is '2'"),
    "kind values": (lambda c: c.update(kind="values"), "kind must be"),
    "digits raised": (lambda c: c.update(digits=60), "moment_ratio: {"),
    "theta1 shifted": (lambda c: c["theta1"].update(lo=_shift(c["theta1"]["lo"], "1.0001")),
                       "theta1 is not in"),
    "m2 gap changed": (lambda c: c["m2_gap"].update(value="2"), "m2_gap is 1"),
    "width understated": (lambda c: c.update(relative_width="1e-40"), "relative_width"),
    "verdict flipped": (lambda c: c.update(verdict="undecided", certified=False),
                        "the enclosures give 'certified'"),
    "stronger claim": (lambda c: c.update(claim="edge > 1.4*mp-edge", factor="7/5"),
                       "the enclosures give 'refuted'"),
    "weaker claim, same k": (lambda c: c.update(claim="edge > 1/2*mp-edge", factor="1/2"),
                             "moment_ratio: {"),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(TAMPERS))
def test_checker_rejects_tampered_files(capsys, tmp_path, one_head, name):
    doc = copy.deepcopy(one_head[1])
    tamper, message = TAMPERS[name]
    tamper(doc["cells"][0])
    code, out, err = check(capsys, tmp_path, doc)
    assert code == 1, name
    assert out.startswith("rejected") and "cell 1" in err and message in err, err


def test_checker_rejects_a_refutation_turned_into_a_certificate(capsys, tmp_path, several):
    doc = copy.deepcopy(several[1])
    doc["cells"][0].update(verdict="certified", certified=True)
    code, _, err = check(capsys, tmp_path, doc)
    assert code == 1 and "the enclosures give 'refuted'" in err


def test_wrong_mp_transform_in_arb_is_caught_by_the_checker(capsys, tmp_path, monkeypatch):
    """Every arb route reads the base's MP transform; a wrong one (ratio off by 1e-12) moves
    both enclosures, and only the checker's mpmath route sees it."""
    from attnge.numerics import edge_enclosure as ee

    right = ee._Chain.g

    def wrong(self, u, left=False):
        self.ratio = self.ratio * (1 + self.fl.arb("1e-12")) if not left else self.ratio
        try:
            return right(self, u, left)
        finally:
            self.ratio = self.ratio / (1 + self.fl.arb("1e-12")) if not left else self.ratio

    monkeypatch.setattr(ee._Chain, "g", wrong)
    code, _, err = produced_then_checked(capsys, monkeypatch, tmp_path, "--y", "1/2")
    assert code == 1 and "(beta = 1, y = 1/2): edge: " in err


def test_wrong_moment_recursion_is_caught_by_the_checker(capsys, tmp_path, monkeypatch):
    """The producer's moments (the quartic) with its w^2 M^4 term lost: the certificate's k
    is then too small, which the checker's moments (the stated law) refuse."""
    from attnge.theory import certificates as ce

    def wrong(K, a, b, y):     # M = 1 + (a + b - by) w M^2 + by w M^3, the last term lost
        a, b, y = Fraction(a), Fraction(b), Fraction(y)
        m, p2, p3 = [Fraction(1)], [Fraction(1)], [Fraction(1)]
        for n in range(1, K + 1):
            m.append((a + b - b * y) * p2[n - 1] + b * y * p3[n - 1])
            p2.append(sum(m[i] * m[n - i] for i in range(n + 1)))
            p3.append(sum(m[i] * p2[n - i] for i in range(n + 1)))
        return m[1:]

    monkeypatch.setattr(ce, "quartic_moments", wrong)
    code, _, err = produced_then_checked(capsys, monkeypatch, tmp_path)
    assert code == 1 and "moment_ratio" in err


def test_moments_beyond_the_edge_stop_the_producer(capsys, tmp_path, monkeypatch):
    """Moments read at 2 theta_1 (m_n 2^n): their ratios pass the enclosure's edge, which
    the producer refuses (exit 3, nothing written)."""
    from attnge.theory import certificates as ce

    right = ce.quartic_moments
    monkeypatch.setattr(ce, "quartic_moments", lambda K, a, b, y: [
        m * 2**n for n, m in enumerate(right(K, a, b, y), start=1)])
    code, _, err = run(capsys, "--beta", "1", "--y", "1", "--json", str(tmp_path / "w.json"))
    assert code == 3 and "exceeds the edge's enclosure" in err
    assert not (tmp_path / "w.json").exists()


def test_moment_route_disagreement_is_caught_by_the_checker(capsys, tmp_path, monkeypatch):
    """A producer whose moments are slightly too large reports a k that is too small; the
    checker's own moments (the stated law) refuse the proof at that k."""
    from attnge.theory import certificates as ce

    right = ce.law_moments_at
    monkeypatch.setattr(ce, "law_moments_at", lambda t, K, cell, route: [
        m * Fraction(1001, 1000) ** n for n, m in enumerate(right(t, K, cell, route), 1)])
    code, _, err = produced_then_checked(capsys, monkeypatch, tmp_path, "--y", "1/4")
    assert code == 1 and "moment_ratio" in err


def test_multi_head_and_output_laws(capsys, tmp_path):
    path = tmp_path / "mh.json"
    code, out, _ = run(capsys, "--beta", "1", "--heads", "8", "--gamma-k", "2", "--law",
                       "output", "--gamma-o", "3", "--json", str(path), "--format", "csv")
    assert code == 0
    (row,) = csv.DictReader(io.StringIO(out))
    assert row["verdict"] == "certified" and row["kind"] == "output" and row["m2 gap"] == "9/2"
    path2 = tmp_path / "att.json"
    assert main(["certify", "--beta", "1/2", "--heads", "4", "--gamma-k", "1/2",
                 "--json", str(path2)]) == 0
    capsys.readouterr()
    for p in (path, path2):
        assert run(capsys, "--check", str(p))[0] == 0


def test_more_digits_are_checked_at_more_digits(capsys, tmp_path):
    path = tmp_path / "d60.json"
    assert main(["certify", "--beta", "1", "--y", "1", "--digits", "60", "--json",
                 str(path)]) == 0
    capsys.readouterr()
    cell = json.loads(path.read_text())["cells"][0]
    lo, hi = Fraction(cell["edge"]["lo"]), Fraction(cell["edge"]["hi"])
    assert (hi - lo) / lo < Fraction(1, 10**50)
    assert run(capsys, "--check", str(path))[0] == 0


def test_tied_keys_and_values_have_a_gap_polynomial_in_theta1(capsys, tmp_path):
    path = tmp_path / "kv.json"
    code, _, _ = run(capsys, "--beta", "1", "--heads", "4", "--gamma-k", "1/2", "--law",
                     "output", "--gamma-o", "1", "--sharing", "kv", "--json", str(path))
    assert code == 0
    cell = json.loads(path.read_text())["cells"][0]
    assert cell["m2_gap"] == {"value": "72*theta1 + 322", "positive": True}
    assert run(capsys, "--check", str(path))[0] == 0


def test_formats_hold_the_same_numbers(capsys, several):
    cells = several[0]["cells"]
    md = certify.render(cells, "md", {})
    latex = certify.render(cells, "latex", {})
    rows = list(csv.DictReader(io.StringIO(certify.render(cells, "csv", {}))))
    assert len(rows) == len(cells) == 4
    for row, cell in zip(rows, cells):
        assert row["edge lo"] == cell["edge"]["lo"] and row["verdict"] == cell["verdict"]
        assert cell["edge"]["lo"] in md and cell["edge"]["hi"] in latex
    assert json.loads(certify.render(cells, "json", {}))["cells"] == cells


@pytest.mark.parametrize("args, name", [
    (["--claim", "edge >> mp-edge"], "claim"),
    (["--claim", "edge > -2*mp-edge"], "claim"),
    (["--digits", "10"], "digits"),
    (["--format", "xml"], "format"),
    (["--beta", "0"], "beta"),
    (["--y", "0,1"], "y"),
    (["--gamma-k", "2"], "gamma-k"),
    (["--heads", "2"], "gamma-k"),
    (["--heads", "2", "--gamma-k", "1", "--law", "values"], "law"),
    (["--heads", "2", "--gamma-k", "1", "--gamma-o", "2"], "gamma-v and gamma-o"),
    (["--check", "c.json", "--beta", "2"], "beta"),
    (["--check", "/nonexistent/c.json"], "check"),
])
def test_bad_input_one_line_exit_2(capsys, args, name):
    code, out, err = run(capsys, *args)
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and name in lines[0]


def test_without_flint_a_one_line_error(capsys, monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "flint", None)
    code, _, err = run(capsys, "--json", str(tmp_path / "c.json"))
    assert code == 2 and "pip install 'attnge[certify]'" in err
    assert not (tmp_path / "c.json").exists()


def test_checker_rejects_files_that_are_no_certificate(capsys, tmp_path):
    path = tmp_path / "x.json"
    path.write_text("not json")
    assert run(capsys, "--check", str(path))[0] == 1
    path.write_text(json.dumps({"cells": [{"beta": "1"}]}))
    code, _, err = run(capsys, "--check", str(path))
    assert code == 1 and "not an attnge certificate" in err
    path.write_text(json.dumps({"format": "attnge-certificate", "version": 1,
                                "cells": [{"beta": "1"}]}))
    code, _, err = run(capsys, "--check", str(path))
    assert code == 1 and "unreadable or inconsistent" in err


def test_checker_needs_no_flint(capsys, monkeypatch, one_head):
    monkeypatch.setitem(sys.modules, "flint", None)
    assert run(capsys, "--check", str(one_head[0]))[0] == 0


@pytest.mark.slow
def test_docs_grid_is_complete_and_its_k_matrix_current(capsys, tmp_path):
    """docs/certify: 49 cells, all certified, the README's k matrix from the certificate,
    and a few cells re-verified by the checker (the whole file takes about a minute)."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "docs" / "certify"
    doc = json.loads((root / "certificate.json").read_text())
    cells = {(c["beta"], c["y"]): c for c in doc["cells"]}
    betas = ["1/10", "1/4", "1/2", "1", "3/2", "2", "3"]
    ys = ["1/10", "1/4", "1/2", "1", "2", "4", "10"]
    assert set(cells) == {(b, y) for b in betas for y in ys}
    assert all(c["certified"] for c in cells.values())
    text = (root / "README.md").read_text().split("<!-- k-matrix -->")[1]
    rows = [line.split("|")[2:-1] for line in text.strip().splitlines()[2:9]]
    for b, row in zip(betas, rows):
        for y, k in zip(ys, row):
            found = cells[(b, y)]["moment_ratio"]["k"]
            assert k.strip() == ("—" if found is None else str(found)), (b, y)
    few = {**doc, "cells": [cells[("1", "1/10")], cells[("3/2", "10")], cells[("1/10", "1")]]}
    assert check(capsys, tmp_path, few)[0] == 0
