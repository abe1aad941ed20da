"""attnge spectrum (the figure's numbers) and attnge verify --report."""

import builtins
import csv
import io

import numpy as np
import pytest

from attnge import spectrum
from attnge.cli import main
from attnge.numerics import spectra
from attnge.numerics.chain import MODEL_KEYS, chain_models
from attnge.numerics.sampling import draw_rng, sample_scores

pytest.importorskip("matplotlib")  # the plot extra; README's test command installs it


@pytest.mark.slow
def test_spectrum_numbers_are_the_sampled_spectra(tmp_path, capsys):
    out = tmp_path / "fig.png"
    assert main(["spectrum", "--ell", "120", "--dqk", "100", "--draws", "2",
                 "--out", str(out)]) == 0
    assert out.stat().st_size > 10_000
    rows = list(csv.DictReader(io.StringIO((tmp_path / "fig.csv").read_text())))
    # sorted s_k²: the mean over draws of a direct recomputation from the same streams
    direct = {k: np.zeros(120) for k in MODEL_KEYS}
    for i in range(2):
        rng = draw_rng(0, spectrum.STREAM, 120, i)
        models = chain_models(sample_scores(120, 100, rng), 1.0, rng)
        for k in MODEL_KEYS:
            direct[k] += spectra.squared_singular_values(models[k]) / 2
    for k in MODEL_KEYS:
        got = [float(r["value"]) for r in rows if r["section"] == "sorted" and r["model"] == k]
        assert np.allclose(got, direct[k], rtol=1e-12, atol=1e-12)
        # histogram densities integrate to the share of the bulk inside the plotted range
        hist = [(float(r["x"]), float(r["x_right"]), float(r["value"])) for r in rows
                if r["section"] == "histogram" and r["model"] == k]
        assert abs(sum((b - a) * v for a, b, v in hist) - 1) < 1e-9
    nu = [(float(r["x"]), float(r["value"])) for r in rows
          if r["section"] == "density" and r["model"] == "nu_infinity"]
    x, d = np.array(nu).T
    # the grid starts just right of the x^(-1/2) hard edge at 0, which holds a few % of mass
    assert 0.85 < np.trapezoid(d, x) <= 1.0
    edges = {r["model"]: float(r["x"]) for r in rows if r["section"] == "edge"}
    assert edges["nu_infinity"] > edges["mp_surrogate"] == pytest.approx(4 * np.expm1(1.0))


@pytest.mark.parametrize("args, name", [
    (["--beta", "0"], "beta"), (["--ell", "1"], "ell"), (["--dqk", "0"], "dqk"),
    (["--draws", "0"], "draws"), (["--out", "fig.pdf"], "out"), (["--remove-top", "-1"],
                                                                   "remove_top"),
])
def test_spectrum_bad_input(capsys, args, name):
    assert main(["spectrum", *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and name in err[0]


def test_missing_matplotlib_is_one_line(monkeypatch, capsys, tmp_path):
    real = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name.startswith("matplotlib"):
            raise ImportError(name)
        return real(name, *args, **kwargs)
    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    assert main(["spectrum", "--out", str(tmp_path / "f.png")]) == 2
    err = capsys.readouterr().err
    assert "attnge[plot]" in err and len(err.strip().splitlines()) == 1


@pytest.mark.slow
def test_report_is_reproducible(tmp_path, capsys):
    # beta = 0.5: Y-Yf's rates are in their regime (the tail rule) from ell = 150
    args = ["verify", "--steps", "normalizer,Y-Yf", "--beta", "0.5", "--sizes", "150,300,600",
            "--draws", "2"]
    assert main([*args, "--report", str(tmp_path / "a")]) == 0
    assert main([*args, "--report", str(tmp_path / "b")]) == 0
    capsys.readouterr()
    a, b = tmp_path / "a", tmp_path / "b"
    text = (a / "report.md").read_text()
    assert text == (b / "report.md").read_text()
    assert "![Y-Yf" in text and "Claim:" in text and "normalizer.png" in text
    for png in ("normalizer.png", "Y-Yf.png"):
        assert (a / png).read_bytes() == (b / png).read_bytes()
    assert (a / "report.json").exists()


def test_report_into_a_file_is_refused(tmp_path, capsys):
    f = tmp_path / "x"
    f.write_text("")
    assert main(["verify", "--steps", "exponential", "--report", str(f)]) == 2
    assert "report" in capsys.readouterr().err
