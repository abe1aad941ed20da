"""The law draws: the chain draws' scores first, then their own stream, whichever steps ran."""

from attnge import ledger_draws
from attnge.context import Context, running
from attnge.params import Params

PARAMS = Params(beta=1.0, y=1.0, sizes=(100, 200, 400), draws=2)


def _bytes(sweep):
    return {ell: [(d.eigs.tobytes(), d.s1, d.frob2) for d in draws] for ell, draws in sweep.items()}


def test_the_law_sweep_is_the_same_with_or_without_the_chain_sweep_and_never_measures_it():
    with running(Context()) as alone:
        law = ledger_draws.law_sweep(PARAMS)
        assert not any(isinstance(k, tuple) and k[0] == "chain" for k in alone._sweeps)
    with running(Context()):
        chain = ledger_draws.chain_sweep(PARAMS)
        after = ledger_draws.law_sweep(PARAMS)
    assert _bytes(law) == _bytes(after)
    assert sorted(law) == [50, 100, 200, 400]
    assert [len(law[ell]) for ell in sorted(law)] == [
        ledger_draws.law_draws(PARAMS, ell) for ell in sorted(law)]
    for ell, draws in chain.items():        # the first draws at a run size are the chain's
        assert _bytes({ell: [ledger_draws._as_law_draw(m) for m in draws]})[ell] == \
            _bytes(law)[ell][:PARAMS.draws]
