"""``factcourt bench engine``: medians per prompt, then over prompts; one untimed warm-up."""

import asyncio
import json

import pytest

from factcourt.bench.context import BenchContext
from factcourt.bench.engine import measure, summarise
from factcourt.bench.methods import Prediction
from factcourt.runs import run_config
from factcourt.state.records import Usage


def _call(seconds: float, tokens_in: int, tokens_out: int, verdict="supported", error=None) -> Prediction:
    usage = Usage(calls=1, input_tokens=tokens_in, output_tokens=tokens_out)
    return Prediction(verdict, error, usage, seconds)


def test_seconds_are_the_median_over_prompts_of_each_prompts_median_over_repeats():
    runs = [
        ([_call(10, 400, 90), _call(20, 500, 100)], 30.0),
        ([_call(12, 400, 90), _call(60, 500, 100, verdict="refuted")], 72.0),  # one slow call
        ([_call(11, 400, 90), _call(22, 500, 100)], 33.0),
    ]
    summary = summarise(runs)
    # prompt 1: median(10, 12, 11) = 11; prompt 2: median(20, 60, 22) = 22; over prompts: 16.5
    assert summary["median_s_per_call"] == 16.5
    assert summary["median_s_per_call_first_repeat"] == 15.0  # 10 and 20: what new prompts cost
    assert summary["median_input_tokens"] == 450 and summary["median_output_tokens"] == 95
    assert summary["wall_s_per_repeat"] == [30.0, 72.0, 33.0]
    # generated tokens per second per repeat: 190/30, 190/72, 190/33 -> the median is 190/33
    assert summary["output_tokens_per_s"] == round(190 / 33, 2)
    assert summary["same_verdict_every_repeat"] == "1/2"
    assert summary["failed_calls"] == 0


def test_failed_calls_are_counted_and_left_out_of_the_medians():
    runs = [
        (
            [
                _call(10, 400, 90),
                _call(120, 0, 0, verdict=None, error="did not answer within timeout_s=120 s"),
            ],
            130.0,
        ),
        ([_call(10, 400, 90), _call(30, 500, 100)], 40.0),
    ]
    summary = summarise(runs)
    assert summary["failed_calls"] == 1
    assert summary["median_s_per_call"] == 20.0  # 10 and 30: the time-out's 120 s is not a call's time


@pytest.fixture
def dataset(tmp_path):
    rows = [
        {"id": f"q{i}", "claim": f"Claim {i}.", "label": i % 2 == 0, "evidence": [f"Claim {i} holds."]}
        for i in range(8)
    ]
    path = tmp_path / "claims.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    return path


def test_each_prompt_is_sent_once_per_repeat_after_one_warm_up_call(dataset, monkeypatch):
    sent = []

    async def scripted(method, case, ctx):
        sent.append((method, case.id, ctx.cache))
        return _call(1.0, 300, 50)

    monkeypatch.setattr("factcourt.bench.engine.predict", scripted)
    ctx = BenchContext(model="sim", search="given", max_concurrency=2)
    summary = asyncio.run(measure(dataset, ctx, limit=4, repeats=2, part="all"))
    assert len(sent) == 1 + 4 * 2
    assert {cache for *_, cache in sent} == {False}  # a cached answer would time nothing
    assert {method for method, *_ in sent} == {"single"}
    assert summary["prompts"] == 4 and summary["repeats"] == 2 and summary["concurrency"] == 2


def test_the_embedded_server_takes_as_many_claims_at_once_as_it_has_slots():
    assert run_config(BenchContext(model="local", local_slots=1, max_concurrency=4))["max_concurrency"] == 1
    assert run_config(BenchContext(model="local", local_slots=2, max_concurrency=4))["max_concurrency"] == 2
    assert run_config(BenchContext(model="sim", local_slots=1, max_concurrency=4))["max_concurrency"] == 4


def test_each_repeat_reports_its_cost_per_role_with_the_tokens_the_prompt_cache_served():
    def call(cached: int) -> Prediction:
        spent = {"cached_tokens": cached, "ms": 9000, "prompt_ms": 4000, "predicted_ms": 5000}
        return Prediction("supported", None, Usage.model_call("evaluator", 400, 70, **spent), 9.0)

    # the first repeat evaluates every prompt; the second finds them in the server's cache
    summary = summarise([([call(0), call(0)], 18.0), ([call(399), call(399)], 10.0)])
    first, second = summary["cost_per_repeat"]
    assert first["cached_share"] == 0 and second["cached_share"] == 399 / 400
    evaluator = first["by_role"]["evaluator"]
    assert evaluator["evaluated_tokens_per_claim"] == 400 and evaluator["output_tokens_per_claim"] == 70
    # 800 tokens in 8 s of prompt time and 140 written in 10 s: the floor is 4 + 5 = 9 s a claim
    assert evaluator["floor_seconds_per_claim"] == pytest.approx(9.0)
