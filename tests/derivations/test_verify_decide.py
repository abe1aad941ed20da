"""``attnge verify --decide``: the undecided steps' draws double, every draw kept, each look
judged at the per-look thresholds; a rerun on its store resumes; wrong mathematics that one
look cannot tell apart is FAILed once the budget buys the draws."""

import json
import math

import numpy as np
import pytest
import sympy as sp

from attnge import cli, context, judging, ledger, runner
from attnge import evidence as ev
from attnge import regimes as rg
from attnge.context import Context
from attnge.output import terminal
from attnge.params import Params
from attnge.step import Step, Table
from attnge.steps import limit_law
from attnge.theory import exponential as ex
from attnge.theory import outliers

PARAMS = Params(sizes=(200, 400, 800), draws=2)
STEPS = "exponential,not-marchenko-pastur"


def rows(result) -> list:
    return [(t.title, t.rows, t.verdicts) for t in result.tables]


@pytest.fixture(scope="module")
def decided(tmp_path_factory):
    """One decide run on a store of its own (not-MP needs 4 draws; exponential, whose
    checks read no draws, decides at the first look)."""
    store = tmp_path_factory.mktemp("store")
    with context.running(Context()):
        out = runner.decide(ledger.select(STEPS), PARAMS, 300.0, store=str(store))
    return out, store


def test_the_undecided_steps_get_twice_the_draws(decided):
    out, _ = decided
    record = out.decided
    assert [look["draws"] for look in record["looks"]] == [2, 4]
    assert [look["steps"] for look in record["looks"]] == [STEPS.split(","),
                                                           ["not-marchenko-pastur"]]
    assert record["steps"] == {"not-marchenko-pastur": {"draws": 4, "verdict": "PASS"},
                               "exponential": {"draws": 2, "verdict": "PASS"}}
    assert record["stopped"] == "" and record["draws_read"] == 0
    assert record["z_per_look"]["VALUE_Z"] == judging.sequential_z(judging.VALUE_Z)
    assert [r.step.id for r in out.results] == STEPS.split(",")


@pytest.mark.slow
def test_a_look_gives_the_numbers_of_a_fresh_run_at_its_draws(decided):
    """Keeping the draws of the looks before changes no number: the step's tables at 4 draws
    are those of a run at 4 draws from nothing, at the same per-look thresholds."""
    out, _ = decided
    with context.running(Context()), judging.looking():
        fresh = runner.run(ledger.select("not-marchenko-pastur"),
                           Params(sizes=PARAMS.sizes, draws=4))
    assert rows(out.results[1]) == rows(fresh.results[0])


@pytest.mark.slow
def test_a_rerun_on_the_store_measures_nothing_and_gives_the_same_tables(decided):
    out, store = decided
    with context.running(Context()):
        again = runner.decide(ledger.select(STEPS), PARAMS, 300.0, store=str(store))
    assert again.decided["draws_measured"] == 0 and again.decided["draws_read"] > 0
    assert [rows(r) for r in again.results] == [rows(r) for r in out.results]


def test_outside_a_decide_run_every_threshold_is_the_fixed_one():
    for name in ("VALUE_Z", "RATE_Z", "Z_MAX"):
        z = getattr(judging, name)
        assert judging.at(z) == z
        with judging.looking():
            assert judging.at(z) == judging.sequential_z(z) > z
    assert judging.at(judging.VALUE_Z) == judging.VALUE_Z


def _clear():
    for cached in (limit_law.routes, outliers.edge_point):
        cached.cache_clear()
    rg.cache_clear()


@pytest.mark.slow
def test_power_grows_with_the_budget(monkeypatch):
    """θ₂ 20% low in the law (the gap yθ₂² 36% low): a budget that buys no second look
    leaves not-MP INCONCLUSIVE; one that buys 8 draws per size FAILs it (the draws of the
    third look include the first two's, so that one run shows both)."""
    right = ex.theta2
    monkeypatch.setattr(ex, "theta2", lambda: right() * sp.Rational(4, 5))
    _clear()
    try:
        with context.running(Context()):
            short = runner.decide(ledger.select("not-marchenko-pastur"), PARAMS, 1e-3)
            long = runner.decide(ledger.select("not-marchenko-pastur"), PARAMS, 300.0)
    finally:
        monkeypatch.undo()
        _clear()
    assert short.decided["steps"]["not-marchenko-pastur"]["verdict"] == judging.INCONCLUSIVE
    assert "next look, 4 draws per size" in short.decided["stopped"]
    assert [look["verdict"] for look in long.decided["looks"]] == \
        [judging.INCONCLUSIVE, judging.INCONCLUSIVE, "decided"]
    assert long.decided["steps"]["not-marchenko-pastur"] == {"draws": 8, "verdict": "FAIL"}
    assert not long.passed


@pytest.mark.parametrize("argv, message", [
    (["--budget", "1m"], "budget applies with --decide only"),
    (["--store", "x"], "store applies with --decide only"),
    (["--decide", "--budget", "soon"], "budget must be a positive time"),
])
def test_bad_decide_options_exit_2(argv, message, capsys):
    assert cli.main(["verify", "--steps", "perron", *argv]) == 2
    assert message in capsys.readouterr().err


def test_the_command_prints_each_steps_draws_and_writes_the_record(decided, tmp_path, capsys):
    out = tmp_path / "v.json"
    with context.running(Context()):       # its draws read from the fixture's store
        assert cli.main(["--quiet", "verify", "--steps", STEPS, "--sizes", "200,400,800",
                         "--draws", "2", "--decide", "--budget", "5m", "--json", str(out),
                         "--store", str(decided[1])]) == 0
    text = capsys.readouterr().out
    assert "(2 draws)" in text and "(4 draws)" in text
    assert "--decide: 2 look(s)" in text and "not-marchenko-pastur: PASS at 4 draws" in text
    record = json.loads(out.read_text())["provenance"]["decide"]
    assert record["steps"]["not-marchenko-pastur"]["draws"] == 4
    assert record["draws_measured"] == 0


def test_an_interrupted_look_leaves_the_decided_steps_and_names_the_others(decided):
    """Ctrl-C in the second look: exponential (decided in the first) and not-MP's first look
    are on the exception, the run marked incomplete, not-MP named as interrupted."""
    calls = []

    def progress(i, n, step_id):
        calls.append(step_id)
        if len(calls) > 3:                       # the first look: 2 steps and the end
            raise KeyboardInterrupt

    with context.running(Context()), pytest.raises(KeyboardInterrupt) as caught:
        runner.decide(ledger.select(STEPS), PARAMS, 300.0, progress, store=str(decided[1]))
    partial = caught.value.partial_run
    assert not partial.complete and partial.not_run == ["not-marchenko-pastur"]
    assert [r.step.id for r in partial.results] == STEPS.split(",")
    assert partial.decided["steps"]["exponential"] == {"draws": 2, "verdict": "PASS"}
    assert partial.provenance()["interrupted_before"] == ["not-marchenko-pastur"]


def _fake_step(width_of_draws, sweeps=()):
    """A step whose one value row agrees but cannot rule out its rival, with an se that
    ``width_of_draws(draws)`` gives; it says it reads ``sweeps``."""
    from attnge import evidence as ev
    from attnge.step import Step

    def check(params):
        table = ev.value_table("fake")
        ev.value_row(table, "m", ev.Estimate(1.0, width_of_draws(params.draws), float("inf")),
                     1.0, "fake", rival=judging.Rival(0.9, "the rival"))
        return [table]

    return Step(id="fake", title="fake", claim="", latex=lambda: "", derive=lambda p: {},
                check=check, method="", failure="", sweeps=sweeps)


@pytest.mark.parametrize("se, looks, stalled", [
    (lambda n: 0.02 / n ** 0.5, 3, ""),           # se ∝ 1/√draws: grown until it decides
    (lambda n: 0.02 + 1e-4 * n, 2, "narrowed"),   # se that draws do not narrow: stops
])
def test_draws_grow_only_while_they_narrow_the_undecided_rows(se, looks, stalled):
    out = runner.decide([_fake_step(se)], Params(sizes=(200, 400, 800), draws=1), 60.0)
    record = out.decided
    assert len(record["looks"]) == looks
    assert (stalled in record["steps"]["fake"]["stalled"]) if stalled else \
        "stalled" not in record["steps"]["fake"]
    assert record["steps"]["fake"]["verdict"] == (judging.INCONCLUSIVE if stalled else "PASS")


def test_a_step_whose_rows_need_more_draws_than_the_looks_reach_is_not_grown():
    """A rival row whose stated need (about 310x the draws: its width 4.41 x 0.2 against the
    0.05 allowed) lies beyond the 32x that five more looks reach: one look, and the record
    says why; a row no number of draws decides (``judging.NO_DRAWS``) is not grown."""
    out = runner.decide([_fake_step(lambda n: 0.2 / n ** 0.5)], Params(sizes=(200, 400, 800),
                                                                      draws=1), 60.0)
    assert len(out.decided["looks"]) == 1
    assert "beyond the 32x (32) the looks left reach" in out.decided["steps"]["fake"]["stalled"]
    table = out.results[0].tables[0]
    z = judging.sequential_z(judging.VALUE_Z)            # the per-look z of the look
    assert table.draws_needed == pytest.approx((z * 0.2 / (judging.RIVAL_SHARE * 0.1)) ** 2)
    assert table.draws_could_decide() and not table.draws_could_decide(32)

    def beyond(params):
        table = Table("fake", ["a"])
        table.add([f"{judging.OUT_OF_REGIME}: sizes"], judging.INCONCLUSIVE, judging.NO_DRAWS)
        return [table]
    step = Step(id="fake", title="fake", claim="", latex=lambda: "", derive=lambda p: {},
                check=beyond, method="", failure="")
    out = runner.decide([step], PARAMS, 60.0)
    assert len(out.decided["looks"]) == 1 and "stalled" not in out.decided["steps"]["fake"]
    assert out.results[0].verdict == judging.INCONCLUSIVE


def test_rows_outside_their_regime_say_no_number_of_draws_decides_them():
    regime = rg.Regime((False, False, False), "too small", 1600)
    table = ev.value_table("t")
    assert ev.limit_row(table, "m", (100, 200, 400), [np.ones(4)] * 3,
                        ev.Extrapolation(1.0, (1.0,)), regime) is None
    assert table.needs == [judging.NO_DRAWS] and not table.draws_could_decide()


def test_a_run_outside_the_fits_regime_states_the_sizes_and_their_price():
    """β = 1.5 at ℓ ≤ 800: the record names ℓ = 1600, 3200, 6400 (the exact mass's regime,
    ``regimes.sizes_that_decide``) and one core's seconds for a look there, the chain draws'
    ℓ³ cost, for a step that reads the chain draws; for one that reads the law draws alone,
    theirs (at ℓ/2 and the sizes, ``ledger_draws.law_draws``), none of the chain's; at β = 1
    the sizes are inside and nothing is stated."""
    params = Params(beta=1.5, sizes=(200, 400, 800), draws=2)
    out = runner.decide([_fake_step(lambda n: 0.02, ("chain",))], params, 60.0)
    [need] = out.decided["sizes_needed"]
    assert need["sizes"] == [1600, 3200, 6400] and need["steps"] == ["fake"]
    assert need["core_seconds"] == pytest.approx(2 * 9.8 * (0.8**3 + 1.6**3 + 3.2**3))
    law = runner.decide([_fake_step(lambda n: 0.02, ("law",))], params, 60.0)
    counts = [min(1024, round(3 * 2 * (6400 / ell) ** 1.25)) for ell in (800, 1600, 3200, 6400)]
    assert law.decided["sizes_needed"][0]["core_seconds"] == pytest.approx(
        sum(n * 1.1 * (ell / 2000) ** 3 for n, ell in zip(counts, (800, 1600, 3200, 6400))))
    inside = runner.decide([_fake_step(lambda n: 0.02)], PARAMS, 60.0)
    assert "sizes_needed" not in inside.decided


def _sized_step():
    """A step reading the chain draws that only sizes inside the fits' regime at β = 1.5
    (ℓ ≥ 1600) decide, and there 8 draws per size."""
    def check(params):
        table = Table("fake", ["a"])
        if params.sizes[0] >= 1600:
            table.add([f"{params.draws} draws"], True if params.draws >= 8 else
                      judging.INCONCLUSIVE, 8 / params.draws)
        else:
            table.add([f"{judging.OUT_OF_REGIME}: sizes"], judging.INCONCLUSIVE,
                      judging.NO_DRAWS)
        return [table]
    return Step(id="fake", title="fake", claim="", latex=lambda: "", derive=lambda p: {},
                check=check, method="", failure="", sweeps=("chain",))


def test_a_look_at_larger_sizes_is_taken_where_the_budget_holds_it():
    """β = 1.5 at ℓ ≤ 800, a step that only sizes inside the fits' regime decide, and there
    8 draws per size: with a budget for it, the looks go on at ℓ = 1600, 3200, 6400 from the
    run's draws, doubling them until it is decided, and the record names its sizes; with a
    budget too short, it says why not."""
    step = _sized_step()
    params = Params(beta=1.5, sizes=(200, 400, 800), draws=2)
    seen = []
    out = runner.decide([step], params, 1e5, finished=lambda r, d: seen.append(r.verdict))
    record = out.decided
    larger = [1600, 3200, 6400]
    assert [(look["draws"], look.get("sizes")) for look in record["looks"]] == \
        [(2, None), (2, larger), (4, larger), (8, larger)]     # and its draws grown there
    assert record["steps"]["fake"] == {"draws": 8, "verdict": "PASS", "sizes": larger}
    assert "sizes_needed" not in record and out.results[0].verdict == "PASS"
    assert seen == ["PASS"]                         # the step printed once, when decided
    short = runner.decide([step], params, 60.0).decided
    assert short["steps"]["fake"]["verdict"] == judging.INCONCLUSIVE
    assert "of the budget left" in short["sizes_needed"][0]["not_taken"]


def test_a_look_at_larger_sizes_starts_from_the_draws_the_budget_holds(monkeypatch):
    """8 draws per size, and a budget that holds a look at ℓ = 1600, 3200, 6400 with 2 of
    them (366 core-seconds a draw per size there, on 2 cores) but not with 4: the look there
    starts from 2 draws and doubles them (its own draws' time, not the estimate's) to 8."""
    monkeypatch.setattr(runner.parallel, "cores", lambda: 2)
    step, params = _sized_step(), Params(beta=1.5, sizes=(200, 400, 800), draws=8)
    out = runner.decide([step], params, 500.0)
    assert [(look["draws"], "sizes" in look) for look in out.decided["looks"]] == \
        [(8, False), (2, True), (4, True), (8, True)]
    assert out.results[0].verdict == "PASS"
    short = runner.decide([step], params, 300.0)
    assert "with 2 draws per size" in short.decided["sizes_needed"][0]["not_taken"]


def test_a_step_outside_the_fits_regime_goes_to_larger_sizes_before_more_draws():
    """At ℓ ≤ 800 and β = 1.5 the step has a row outside its regime (no number of draws
    decides it) beside one that more draws might: its draws are not grown there (they
    could not make it PASS), and the next look is at the sizes that decide."""
    def check(params):
        table = Table("fake", ["a"])
        if params.sizes[0] >= 1600:
            table.add([f"{params.draws} draws"], True)
        else:
            table.add([f"{judging.OUT_OF_REGIME}: sizes"], judging.INCONCLUSIVE,
                      judging.NO_DRAWS)
            table.add([f"{params.draws} draws"], judging.INCONCLUSIVE)    # more may decide
        return [table]
    step = Step(id="fake", title="fake", claim="", latex=lambda: "", derive=lambda p: {},
                check=check, method="", failure="", sweeps=("chain",))
    out = runner.decide([step], Params(beta=1.5, sizes=(200, 400, 800), draws=2), 1e5)
    assert [(look["draws"], "sizes" in look) for look in out.decided["looks"]] == \
        [(2, False), (2, True)]
    assert out.results[0].verdict == "PASS"
    inside = runner.decide([step], Params(beta=1.0, sizes=(200, 400, 800), draws=2), 1e5)
    assert len(inside.decided["looks"]) > 1     # no larger sizes known: the draws grow


def _stating_step(step_id, ell, sweeps=()):
    """A step whose one row, outside its regime, states that three sizes from ``ell`` decide
    it (``math.inf``: none up to ``regimes.SEARCH_MAX``), and that PASSes from there."""
    def check(params):
        table = Table(step_id, ["a"])
        if params.sizes[0] >= ell:
            table.add([f"{params.draws} draws"], True)
        else:
            table.add([f"{judging.OUT_OF_REGIME}: sizes"], judging.INCONCLUSIVE,
                      judging.NO_DRAWS, ell)
        return [table]
    return Step(id=step_id, title=step_id, claim="", latex=lambda: "", derive=lambda p: {},
                check=check, method="", failure="", sweeps=sweeps)


def test_the_look_at_larger_sizes_takes_the_sizes_the_rows_state():
    """At β = 1.5 the exact mass's regime starts at ℓ = 1600, but a row that states 3200
    (the outliers' regimes, say) gets its look at 3200, 6400, 12800; a step that needs
    sizes whose look the budget does not hold waits, with its price, while one that needs
    less is looked at; a row that no ℓ decides takes no look and is stated out of reach."""
    params = Params(beta=1.5, sizes=(200, 400, 800), draws=2)
    out = runner.decide([_stating_step("a", 3200)], params, 1e5)
    assert [look.get("sizes") for look in out.decided["looks"]] == [None, [3200, 6400, 12800]]
    assert out.results[0].verdict == "PASS" and "sizes_needed" not in out.decided

    steps = [_stating_step("a", 3200), _stating_step("b", 64000, ("chain",))]
    out = runner.decide(steps, params, 600.0)
    assert out.decided["looks"][-1]["sizes"] == [3200, 6400, 12800]
    assert out.decided["looks"][-1]["steps"] == ["a"]
    assert [r.verdict for r in out.results] == ["PASS", judging.INCONCLUSIVE]
    [need] = out.decided["sizes_needed"]
    assert need["steps"] == ["b"] and need["sizes"] == [64000, 128000, 256000]
    assert "of the budget left" in need["not_taken"]
    assert need["core_seconds"] == pytest.approx(2 * 9.8 * (32**3 + 64**3 + 128**3))

    out = runner.decide([_stating_step("c", math.inf)], params, 1e5)
    assert len(out.decided["looks"]) == 1
    assert out.decided["sizes_needed"] == [{"steps": ["c"], "sizes": [], "not_taken":
                                            "no ell up to 1e+12 puts their rows inside "
                                            "their regime"}]
    assert "c: out of reach: no ell up to" in terminal.decided(out.decided)


def test_a_bound_methods_draws_are_kept_apart_by_their_object():
    """Two threshold sweeps' ``measure`` take the same arguments and read their own fields:
    the store names each draw by its object too."""
    from attnge.draw_store import DrawStore
    from attnge.threshold import audit

    a = audit.Sweep("temperature", grid=(0.6, 0.9), sizes=(100, 200, 400), draws=1)
    b = audit.Sweep("order", grid=(0.6, 0.9), sizes=(100, 200, 400), draws=1)
    store = DrawStore()
    store.put(a.measure, (0.6, 100, 0), "a's draw")
    assert store.get(b.measure, (0.6, 100, 0), None) is None
    assert store.get(a.measure, (0.6, 100, 0)) == "a's draw"


def test_a_step_whose_numbers_the_run_draws_do_not_move_stops():
    """A step with draws of its own (as ``threshold``'s fixed sweeps): the second look
    changes none of its numbers, and it is not grown again."""
    out = runner.decide([_fake_step(lambda n: 0.02)], PARAMS, 60.0)
    assert len(out.decided["looks"]) == 2
    assert "changed none of its numbers" in out.decided["steps"]["fake"]["stalled"]


def test_a_variants_draw_has_one_name_whatever_the_number_of_draws():
    """A variant's draw does not read the run's draws per size: its name in the store is the
    same at 2 and at 4 draws (so that the variant steps keep theirs across looks), and
    another seed names another draw."""
    from attnge import variants as va
    from attnge.draw_store import DrawStore
    from attnge.theory.variants import Variant

    two, four = (va.Run(Variant(), 0.5, 1, (100, 200, 400), n) for n in (2, 4))
    assert DrawStore.key(va.measure, (two, 100, 0)) == DrawStore.key(va.measure, (four, 100, 0))
    other = va.Run(Variant(), 0.5, 1, (100, 200, 400), 2, seed=1)
    assert DrawStore.key(va.measure, (two, 100, 0)) != DrawStore.key(va.measure, (other, 100, 0))
