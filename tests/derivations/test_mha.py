"""``attnge mha`` and ``attnge tables --heads``: the fields they report, and bad input."""

import json

import pytest

from attnge import cli, mha


def run(capsys, *argv):
    code = cli.main(["--quiet", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err.strip().splitlines()


def test_a_preset_reports_rel_w1_and_ks_with_standard_errors(capsys, tmp_path):
    code, out, _ = run(capsys, "mha", "--preset", "dinov3-l16", "--draws", "2", "--beta", "1",
                       "--json", str(tmp_path / "r.json"))
    assert code == 0 and "relative W1 (%)" in out
    found = json.loads((tmp_path / "r.json").read_text())
    for key in ("rel_w1_percent", "ks"):
        assert set(found[key]) == {"mean", "se"} and found[key]["mean"] > 0
    assert found["shape"]["n"] == 261 and found["shape"]["d_o"] == 1024
    assert found["m1"]["law"] == pytest.approx(1024 / 261 * (2.718281828459045 - 1), rel=1e-12)
    assert found["provenance"]["parameters"]["preset"] == "dinov3-l16"


@pytest.mark.slow
def test_an_explicit_shape_with_a_figure_and_its_numbers(capsys, tmp_path):
    fig = tmp_path / "f.png"
    code, _, _ = run(capsys, "mha", "--n", "64", "--d", "96", "--heads", "4", "--kv-heads", "2",
                     "--dk", "16", "--draws", "2", "--out", str(fig))
    assert code == 0 and fig.stat().st_size > 0
    csv = fig.with_suffix(".csv").read_text()
    assert "histogram,softmax" in csv and "density,output law" in csv


# a layer where the linear regime holds (β = 1/2, y = n/d_K = 4) and n/4 = 128 is already
# large: 12 draws at n = 128, 256, 512 take about 2 s
SMALL = ("--n", "512", "--d", "768", "--heads", "4", "--dk", "128", "--beta", "0.5",
         "--draws", "12")


@pytest.mark.slow
def test_the_verdict_holds_on_the_theorem_and_breaks_on_a_wrong_model(capsys, tmp_path,
                                                                      monkeypatch):
    """The layer is within its Gaussian model's own draw-to-draw spread and far from the
    i.i.d. surrogate: GE HOLDS. With θ₂ halved in the model (wrong mathematics in the one
    place both the model and its fresh-noise copy read it), the layer's distance stops
    shrinking, beyond the spread, inside the softmax's linear regime: GE BREAKS, exit 1."""
    code, out, _ = run(capsys, "mha", *SMALL, "--json", str(tmp_path / "r.json"))
    found = json.loads((tmp_path / "r.json").read_text())
    assert code == 0 and "**GE HOLDS**" in out and found["verdict"] == "GE HOLDS"
    assert [row["n"] for row in found["ladder"]] == [128, 256, 512]
    top = found["ladder"][-1]
    assert abs(top["excess"]["mean"]) < 4 * top["excess"]["se"]
    assert top["rival_excess"]["mean"] > 0.1                   # the surrogate: 10% farther
    import attnge.numerics.multi_head as sampler
    right = sampler.thetas
    monkeypatch.setattr(sampler, "thetas", lambda b: (right(b)[0], right(b)[1] / 2))
    code, out, _ = run(capsys, "mha", *SMALL, "--json", str(tmp_path / "w.json"))
    found = json.loads((tmp_path / "w.json").read_text())
    assert code == 1 and found["verdict"] == "GE BREAKS" and "not shrinking" in found["reason"]


@pytest.mark.slow
def test_decide_doubles_the_draws_until_the_layer_decides(capsys, tmp_path, monkeypatch):
    """From 3 draws (INCONCLUSIVE: no power against the surrogate) --decide reuses them and
    doubles: GE HOLDS at 6. With θ₂ halved in the model it goes on to GE BREAKS at 12, exit
    1: the power that the budget buys. Every look at the per-look z of 6 looks (4.41)."""
    few = [a if a != "12" else "3" for a in SMALL]
    code, out, _ = run(capsys, "mha", *few, "--decide", "--budget", "2m",
                       "--json", str(tmp_path / "r.json"))
    found = json.loads((tmp_path / "r.json").read_text())
    looks = found["decide"]["looks"]
    assert code == 0 and found["verdict"] == "GE HOLDS" and "--decide: 2 look(s)" in out
    assert [k["draws"] for k in looks] == [3, 6] and looks[0]["verdict"] == "INCONCLUSIVE"
    assert found["decide"]["z_per_look"] == pytest.approx(4.4054, abs=1e-4)
    assert found["draws"] == 6 and found["parameters"]["budget_s"] == 120
    import attnge.numerics.multi_head as sampler
    right = sampler.thetas
    monkeypatch.setattr(sampler, "thetas", lambda b: (right(b)[0], right(b)[1] / 2))
    code, _, _ = run(capsys, "mha", *few, "--decide", "--json", str(tmp_path / "w.json"))
    found = json.loads((tmp_path / "w.json").read_text())
    assert code == 1 and found["verdict"] == "GE BREAKS"
    assert [k["draws"] for k in found["decide"]["looks"]] == [3, 6, 12]


def test_decide_stops_where_the_budget_ends_and_states_the_next_look(capsys, tmp_path):
    few = [a if a != "12" else "3" for a in SMALL]
    code, _, _ = run(capsys, "mha", *few, "--decide", "--budget", "0.1s",
                     "--json", str(tmp_path / "r.json"))
    found = json.loads((tmp_path / "r.json").read_text())
    assert code == 0 and found["verdict"] == "INCONCLUSIVE"
    assert "--decide stopped" in found["reason"] and "6 draws per size" in found["reason"]
    assert found["decide"]["looks"][-1]["next"]["draws"] == 6


@pytest.mark.slow
def test_outside_the_linear_regime_it_names_the_layer_that_would_decide():
    """At β = 2 the layer stays ~70% from its model at n = 32 … 128, but the softmax is far
    from linear there (the theorem speaks of n from 4·65536): INCONCLUSIVE, naming the layer
    that would decide, not GE BREAKS and not "more draws"."""
    shape, d = mha.layer_shape(None, n=128, d=192, heads=4, dk=16)
    result = mha.run(shape, d, 2, 12)
    assert result.verdict == "INCONCLUSIVE" and result.ladder[-1]["model"]["mean"] > 0.5
    assert "outside the softmax's linear regime" in result.reason
    assert "a layer from n = 262144" in result.reason


def test_layers_longer_than_wide_run_on_gaussian_inputs_with_their_mean_eigenvalue(capsys,
                                                                                   tmp_path):
    """n > d (GPT-2's 1024 > 768): rows cannot be orthonormal; the inputs are Gaussian, the
    verdict compares the layer with its Gaussian model, and of the output law only m₁ =
    γ_O(θ₁ + (n/d)θ₂) is stated, which scales the relative W₁; tied K = V states none."""
    from attnge.numerics.multi_head import relative_w1
    code, out, _ = run(capsys, "mha", "--n", "96", "--d", "48", "--heads", "2", "--dk", "16",
                       "--draws", "3", "--json", str(tmp_path / "r.json"))
    found = json.loads((tmp_path / "r.json").read_text())
    assert code == 0 and found["inputs"] == "gaussian" and "gaussian inputs" in out
    t1, t2 = (float(v) for v in mha.thetas(mha.positive_beta(found["beta"])))
    assert found["m1"]["law"] == pytest.approx(0.5 * (t1 + 2 * t2), rel=1e-9)  # d_O = d
    assert found["m2"]["law"] is None and found["right_edge"] is None
    assert found["verdict"] in ("GE HOLDS", "INCONCLUSIVE") and found["reason"]
    assert [row["n"] for row in found["ladder"]] == [24, 48, 96]
    assert "only its mean eigenvalue m_1" in out
    assert mha.layer_inputs(mha.layer_shape("gpt2")[0], 768) == "gaussian"
    shape, d = mha.layer_shape(None, n=64, d=32, heads=2, dk=16)
    result = mha.run(shape, d, 1.0, 2)
    soft, gauss = (result.spectra[key][:shape.n] for key in ("softmax", "gaussian"))
    assert result.rel_w1[0] == pytest.approx(relative_w1(soft, gauss, result.law_moments[0]),
                                             rel=1e-12)
    tied, d = mha.layer_shape(None, n=64, d=32, heads=2, dk=16, sharing="kv")
    assert mha.gaussian_inputs_m1(tied, d, 1) is None


def test_explicit_options_override_a_preset_and_d_o_defaults_to_d():
    shape, d = mha.layer_shape("bert-base", n=128)
    assert (shape.n, d, shape.heads, shape.d_k, shape.d_o) == (128, 768, 12, 64, 768)
    shape, _ = mha.layer_shape(None, n=32, d=64, heads=4, kv_heads=1, dk=8)
    assert shape.sharing == "mqa" and shape.kv_heads == 1
    # over a preset, the defaults follow the explicit values
    assert mha.layer_shape("bert-base", sharing="mqa")[0].kv_heads == 1
    assert mha.layer_shape("kv-tied-2048", dk=32)[0].d_v == 32
    assert mha.layer_shape("bert-base", kv_heads=4)[0].sharing == "mqa"


@pytest.mark.parametrize("argv, name", [
    (("mha", "--preset", "gpt-5"), "preset must be one of"),
    (("mha", "--n", "64"), "d is needed without a preset"),
    (("mha", "--n", "100", "--d", "50", "--heads", "2", "--dk", "8", "--inputs", "orthonormal"),
     "inputs orthonormal needs n <= d"),
    (("mha", "--n", "6", "--d", "50", "--heads", "2", "--dk", "8"), "n must be at least 8"),
    (("mha", "--n", "64", "--d", "50", "--heads", "2", "--dk", "2"), "d_K=2"),
    (("mha", "--preset", "bert-base", "--kv-heads", "5", "--sharing", "mqa"), "kv_heads"),
    (("mha", "--preset", "bert-base", "--sharing", "kv", "--dv", "32"), "d_v must equal d_k"),
    (("mha", "--preset", "bert-base", "--draws", "1"), "draws must be"),
    (("mha", "--preset", "bert-base", "--budget", "5m"), "budget applies with --decide only"),
    (("mha", "--preset", "bert-base", "--decide", "--budget", "5d"), "budget must be"),
    (("mha", "--preset", "bert-base", "--beta", "0"), "beta"),
    (("mha", "--preset", "bert-base", "--n", "1000000", "--d", "1000000"), "GiB"),
    (("tables", "--heads", "2"), "gamma-k is needed"),
    (("tables", "--heads", "2", "--gamma-k", "1", "--y", "2"), "y does not apply"),
    (("tables", "--gamma-k", "1"), "gamma-k applies with --heads only"),
    (("tables", "--heads", "2", "--gamma-k", "1,2", "--gamma-v", "1,2", "--sharing", "kv"),
     "gamma-v is gamma-k for tied keys"),
    (("tables", "--heads", "0", "--gamma-k", "1"), "heads must be"),
    (("tables", "--heads", "2", "--gamma-k", "1", "--moments", "31"), "moments must be"),
    (("verify", "--heads", "0"), "heads must be"),
    (("verify", "--heads", "8", "--sizes", "100,200,400"), "sizes must start at ell >= 400"),
])
def test_bad_input_is_refused_in_one_line_with_exit_2(capsys, argv, name):
    code, _, err = run(capsys, *argv)
    assert code == 2 and len(err) == 1 and name in err[0], err


def test_multi_head_tables_give_both_laws_and_one_head_matches_the_single_head(capsys):
    code, out, _ = run(capsys, "tables", "--heads", "1,3", "--gamma-k", "1/2", "--beta", "1",
                       "--order", "3", "--digits", "20", "--format", "json")
    rows = json.loads(out)["rows"]
    assert code == 0 and [r["h"] for r in rows] == ["1", "3"]
    code, single, _ = run(capsys, "tables", "--y", "2", "--beta", "1", "--order", "3",
                          "--digits", "20", "--format", "json")
    one = json.loads(single)["rows"][0]
    assert rows[0]["attention_moments"] == one["moments"]
    assert rows[0]["attention_edge"] == one["right_edge"]
    # gamma_O defaults to gamma_V = gamma_K = 1/2: the output's m_1 = gamma_O theta1
    assert float(rows[1]["output_moments"][0]) == pytest.approx(float(rows[1]["theta1"]) / 2,
                                                                rel=1e-15)


@pytest.mark.slow
def test_a_report_folder_is_resumed_and_a_damaged_preset_redone(capsys, tmp_path, monkeypatch):
    from attnge import mha as module
    small = {"bert-base": module.Preset(40, 64, 2, 2, 8, "none"),
             "falcon-7b": module.Preset(40, 64, 4, 1, 8, "mqa")}
    monkeypatch.setattr(module, "PRESETS", small)
    folder = tmp_path / "mha"
    code, _, _ = run(capsys, "mha", "--preset", "all", "--draws", "2", "--report", str(folder))
    table = (folder / "README.md").read_text()
    found = json.loads((folder / "bert-base.json").read_text())["provenance"]["parameters"]
    assert found["beta"] == 1.0                       # a preset without an init starts at 1
    assert code == 0 and "| bert-base | 40 |" in table and "| falcon-7b | 40 |" in table
    assert (folder / "falcon-7b.png").stat().st_size > 0
    (folder / "falcon-7b.json").write_text("{ truncated")
    calls = []
    right = module.run
    monkeypatch.setattr(module, "run", lambda shape, *a, **k: calls.append(shape) or
                        right(shape, *a, **k))
    code, _, err = run(capsys, "mha", "--preset", "all", "--draws", "2", "--report",
                       str(folder))
    assert code == 0 and [s.heads for s in calls] == [4]           # only the damaged one
    assert any("reused" in line and "bert-base" in line for line in err)
    code, _, err = run(capsys, "mha", "--preset", "all", "--draws", "3", "--report",
                       str(folder))
    assert code == 0 and len(calls) == 3                            # new parameters: redone


def test_all_presets_need_a_report_folder(capsys):
    code, _, err = run(capsys, "mha", "--preset", "all")
    assert code == 2 and "preset all needs --report" in err[0]


def test_tied_values_measure_w1_against_the_laws_mean_eigenvalue():
    """With K = V the output law's m₁ is γ_Oθ₁ plus a θ₂ term: the relative W₁ is read
    against that m₁, as for every layer with a law (for independent values they agree)."""
    from attnge.numerics.multi_head import relative_w1
    shape, d = mha.layer_shape(None, n=64, d=96, heads=2, dk=16, sharing="kv")
    result = mha.run(shape, d, 1.0, 2)
    soft, gauss = (result.spectra[key][:shape.n] for key in ("softmax", "gaussian"))
    m1 = result.law_moments[0]
    assert result.rel_w1[0] == pytest.approx(relative_w1(soft, gauss, m1), rel=1e-12)
    assert m1 > 1.5 * mha.mean_eigenvalue(shape, 1.0)
    independent, _ = mha.layer_shape(None, n=64, d=96, heads=2, dk=16)
    stated, _ = mha.output_law(independent, 1)
    assert mha.law_unit(independent, 1, mha.mh.moments(stated, 2, "stated")[0]) == 1.0
