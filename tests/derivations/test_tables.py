"""attnge tables: every format parsed back and compared with independently computed values.

How each reference is obtained (none reuses the code that made the table):
- Hermite coefficients a_k, θ₁: mpmath quadrature of E[f(χ)He_k(χ)]/k! and E f(χ)²;
- θ₂: quadrature of (E f'(χ))²;
- moments of ν∞: quadrature of its density (numerics.limit_density.density_moments);
- moments of θ₁·MP₁: quadrature of the Marchenko–Pastur density;
- right edge: the closed-form Stieltjes transform of MP_y (theory.outliers.edge_point);
- E D_ii, Var D_ii at given ℓ, d_qk: quadrature over the chi-square law (numerics.reference).
"""

import csv
import io
import json
import re

import mpmath as mp
import pytest

from attnge.cli import main
from attnge.numerics.limit_density import density_moments
from attnge.numerics.reference import chi2_integral, gaussian_integral, hermite_e
from attnge.theory.outliers import edge_point

DIGITS = 15


def run_tables(capsys, *args):
    assert main(["tables", *args]) == 0
    return capsys.readouterr().out


def close(text: str, value, digits: int = DIGITS - 2) -> bool:
    v = mp.mpf(text)
    return abs(v - value) <= mp.mpf(10) ** -digits * max(1, abs(value))


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    out = tmp_path_factory.mktemp("t") / "t.json"
    assert main(["tables", "--beta", "0.5,1", "--y", "1,2", "--order", "6", "--digits",
                 str(DIGITS), "--format", "json", "--out", str(out)]) == 0
    return json.loads(out.read_text())


def test_json_shape_and_decimal_strings(table):
    assert len(table["rows"]) == 4 and "provenance" in table
    row = table["rows"][0]
    for key in ("beta", "y", "theta1", "theta2", "noise_variance", "hermite", "moments",
                "mp_moments", "right_edge", "mp_edge"):
        assert key in row
    assert all(isinstance(v, str) for v in row["hermite"] + row["moments"])
    assert len(row["hermite"]) == 7 and len(row["moments"]) == 6


@pytest.mark.slow
def test_hermite_and_thetas_by_quadrature(table):
    with mp.workdps(30):
        for row in table["rows"]:
            B = mp.mpf(row["beta"])
            f = lambda s: mp.expm1(B * s - B * B / 2)  # noqa: E731
            for k, text in enumerate(row["hermite"]):
                ref = gaussian_integral(lambda s: f(s) * hermite_e(k, s), 30, B) / mp.factorial(k)
                assert close(text, ref), (k, text, ref)
            assert close(row["theta1"], gaussian_integral(lambda s: f(s) ** 2, 30, 2 * B))
            fprime = gaussian_integral(lambda s: B * mp.exp(B * s - B * B / 2), 30, B)
            assert close(row["theta2"], fprime**2)
            assert close(row["noise_variance"], mp.mpf(row["theta1"]) - mp.mpf(row["theta2"]))


@pytest.mark.slow
def test_moments_and_edge_by_second_routes(table):
    for row in table["rows"]:
        B, Y = float(row["beta"]), float(row["y"])
        t1, t2 = mp.expm1(mp.mpf(row["beta"]) ** 2), mp.mpf(row["beta"]) ** 2
        if not (B == 0.5 and Y == 2):  # density quadrature misses that law's near-gap (known)
            quad = density_moments([1, 2, 3], t1, t2, mp.mpf(row["y"]), n_nodes=96,
                                   dps=20)
            for text, ref in zip(row["moments"], quad):
                assert close(text, ref, 9)
        with mp.workdps(25):
            mp_density = lambda x: mp.sqrt(x * (4 * t1 - x)) / (2 * mp.pi * t1 * x)  # noqa: E731
            for q, text in enumerate(row["mp_moments"][:3], start=1):
                ref = mp.quad(lambda x: x**q * mp_density(x), [0, 2 * t1, 4 * t1])
                assert close(text, ref, 12)
        assert close(row["right_edge"], edge_point(B, Y, 30)[1])
        assert close(row["mp_edge"], 4 * t1)


def test_exact_normalizer_at_given_sizes(capsys):
    out = json.loads(run_tables(capsys, "--beta", "1", "--order", "1", "--ell", "300",
                                "--dqk", "150", "--digits", str(DIGITS), "--format", "json"))
    norm = out["rows"][0]["normalizer"]
    with mp.workdps(30):
        mu = mp.exp(-mp.mpf(1) / 2) * chi2_integral(lambda v: mp.exp(v / 2), 150, 30)
        m2 = mp.exp(-1) * chi2_integral(lambda v: mp.exp(2 * v), 150, 30)
        m11 = mp.exp(-1) * chi2_integral(lambda v: mp.exp(v), 150, 30)
        assert close(norm["E D_ii"]["decimal"], mu)
        assert close(norm["Var D_ii"]["decimal"], m2 / 300 + (1 - mp.mpf(1) / 300) * m11 - mu**2)


@pytest.mark.slow
def test_csv_md_latex_hold_the_same_numbers(capsys, table):
    args = ["--beta", "0.5,1", "--y", "1,2", "--order", "6", "--digits", str(DIGITS)]
    rows = list(csv.DictReader(io.StringIO(run_tables(capsys, *args, "--format", "csv"))))
    first = table["rows"][0]
    hermite = [r["decimal"] for r in rows if r["quantity"] == "hermite"
               and r["beta"] == "1/2" and r["y"] == "1"]
    assert hermite == first["hermite"]
    md = run_tables(capsys, *args, "--format", "md")
    latex = run_tables(capsys, *args, "--format", "latex")
    for text in (md, latex):
        for row in table["rows"]:
            for value in row["moments"] + [row["right_edge"], row["theta1"]]:
                assert value in text
    assert "$e - 1$" in md  # a closed form (θ₁ at β = 1), powers of e descending:
    assert "$132 e^{6} - 792 e^{5} + 1980 e^{4} - 2640 e^{3} + 1980 e^{2} - 792 e + 132$" in md
    assert r"\begin{tabular}" in latex and len(re.findall(r"\\\\", latex)) > 40


@pytest.mark.parametrize("args, name", [
    (["--format", "xml"], "format"), (["--beta", "1,abc"], "beta"), (["--beta", "-1"], "beta"),
    (["--y", "0"], "y"), (["--order", "0"], "order"), (["--digits", "0"], "digits"),
    (["--ell", "100"], "ell"), (["--ell", "100", "--dqk", "2", "--beta", "1"], "dqk"),
])
def test_bad_input(capsys, args, name):
    assert main(["tables", *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and name in err[0]
