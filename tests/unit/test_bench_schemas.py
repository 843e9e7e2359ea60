"""The benchmarks' own schemas live beside them: never checkpointed, answered by the bench's own rules."""

import asyncio

import pytest

from factcourt import systems
from factcourt.bench import baselines, schemas
from factcourt.bench.context import BenchContext
from factcourt.state.records import Evidence


def test_benchmark_schemas_are_no_state_a_checkpoint_may_hold():
    held = {name for _, name in systems.checkpointed_types()}
    own = {n for n, value in vars(schemas).items() if getattr(value, "__module__", "") == schemas.__name__}
    assert {"ClaimCot", "MadrCritique"} <= own and held.isdisjoint(own)


K = [Evidence(text="The Eiffel Tower is in Paris, France.", url="u")]


@pytest.mark.parametrize("method", ["fire", "safe", "cot_claim", "majority", "cooperation"])
def test_every_claim_baseline_runs_on_the_simulated_model(method):
    ctx = BenchContext(model="sim", search="given", cache=False)
    verdict, error, _ = asyncio.run(getattr(baselines, method)(ctx, "The Eiffel Tower is in Paris.", K))
    assert (verdict, error) == ("supported", None)


@pytest.mark.parametrize("method", ["cot", "self_reflection", "mad", "madr"])
def test_every_qa_baseline_runs_on_the_simulated_model(method):
    ctx = BenchContext(model="sim", search="given", cache=False)
    verdict, error, _ = asyncio.run(
        getattr(baselines, method)(ctx, "Where is the Eiffel Tower?", "The Eiffel Tower is in Paris.", K)
    )
    assert (verdict, error) == ("supported", None)
