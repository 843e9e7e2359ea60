"""Model resolution, structured calls, retries of unparsable answers and the SQLite cache."""

import asyncio

import httpx
import openai
import pytest
from langchain_core.messages import HumanMessage

from factcourt.context.base import BaseContext
from factcourt.errors import ConfigError
from factcourt.providers.models import ask, choose
from factcourt.state.claims import JurorAnswer
from tests.fakes import Cut, cut_at_max_tokens, juror


def test_roles_resolve_to_endpoints(monkeypatch):
    ctx = BaseContext(role_models={"moderator": "gpt-4o"})
    assert choose(ctx, "evaluator").endpoint == "embedded"
    assert choose(ctx, "evaluator").method == "json_schema"
    assert choose(ctx, "answer").method == "grammar"  # long-form answers: the string bound holds
    assert choose(ctx, "refiner").method == "grammar"  # a report, no verdict: bounded as written
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    assert choose(ctx, "evaluator").name == "gpt-4o-mini"
    assert choose(ctx, "moderator").name == "gpt-4o"
    assert choose(ctx, "moderator").method == "json_schema"
    vllm = BaseContext(base_url="http://127.0.0.1:8000/v1", model="qwen")
    assert choose(vllm, "clerk").endpoint == "http://127.0.0.1:8000/v1"
    assert choose(vllm, "clerk").method == "function_calling"


def test_a_roles_model_is_its_own_else_the_runs():
    ctx = BaseContext(model="m", role_models={"moderator": "big"})
    assert (ctx.model_of("moderator"), ctx.model_of("clerk")) == ("big", "m")


def test_a_named_model_without_key_or_endpoint_is_a_config_error():
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        choose(BaseContext(model="gpt-4o"), "clerk")


def call(ctx):
    return asyncio.run(
        ask(ctx, "evaluator", JurorAnswer, [HumanMessage("<claim>x</claim>")], run_name="test")
    )


def test_usage_is_counted_from_the_server_reply(scripted):
    answer = call(BaseContext(model="scripted"))
    assert answer.value is not None
    assert answer.usage.calls == 1 and answer.usage.input_tokens == 10
    assert answer.usage.by_role["evaluator"]["output_tokens"] == 5
    # what the prompt cache served, and how long the call took, per role
    assert answer.usage.cached_tokens == 4 and answer.usage.by_role["evaluator"]["cached_tokens"] == 4
    assert answer.usage.by_role["evaluator"]["ms"] >= 0


def test_llama_cpp_timings_of_a_reply_are_kept_for_the_call_that_asked():
    import httpx

    from factcourt.providers.models import _keep_timings, server_timings

    timings = {"prompt_n": 40, "prompt_ms": 800.0, "predicted_n": 5, "predicted_ms": 350.0, "cache_n": 60}

    def reply(path, body):
        return httpx.Response(200, json=body, request=httpx.Request("POST", f"http://127.0.0.1:1{path}"))

    async def one_call():
        with server_timings() as kept:
            await _keep_timings(reply("/v1/chat/completions", {"choices": [], "timings": timings}))
            await _keep_timings(reply("/tokenize", {"tokens": [1], "timings": timings}))  # not a call
            await _keep_timings(reply("/v1/chat/completions", {"choices": []}))  # no timings: OpenAI
        return kept

    assert asyncio.run(one_call()) == [timings]
    # outside a call nothing is read or kept
    asyncio.run(_keep_timings(reply("/v1/chat/completions", {"timings": timings})))


def test_usage_adds_every_count_role_by_role():
    from factcourt.state.records import Usage

    one = Usage.model_call("judge", 10, 2, cached_tokens=6, ms=900, prompt_ms=100, predicted_ms=700)
    two = one + one + Usage.search_call()
    assert (two.calls, two.cached_tokens, two.ms, two.prompt_ms, two.predicted_ms) == (2, 12, 1800, 200, 1400)
    assert two.by_role["judge"] == {
        "calls": 2,
        "input_tokens": 20,
        "output_tokens": 4,
        "cached_tokens": 12,
        "ms": 1800,
        "prompt_ms": 200,
        "predicted_ms": 1400,
    }
    assert two.search_calls == 1


def test_unparsable_answers_are_retried_then_reported(scripted):
    scripted.script["JurorAnswer"] = ["garbage", "{broken", juror("supported")]
    answer = call(BaseContext(model="scripted", retries=2))
    assert answer.value.verdict == "supported" and answer.usage.calls == 3
    scripted.calls.clear()
    scripted.script["JurorAnswer"] = ["garbage"]
    answer = call(BaseContext(model="scripted", retries=1))
    assert answer.value is None and "unparsable" in answer.error and answer.usage.calls == 2


def test_second_identical_call_is_served_by_the_cache(monkeypatch):
    from factcourt.providers import models
    from factcourt.providers.simulated import SimulatedChatModel

    built = []
    monkeypatch.setattr(
        models, "_build", lambda ctx, choice, url, **_: built.append(1) or SimulatedChatModel()
    )
    models._built.clear()
    first = call(BaseContext(model="sim"))
    second = call(BaseContext(model="sim"))
    assert first.usage.calls == 1 and not first.cached
    assert second.cached and second.usage.calls == 0 and second.value == first.value
    third = call(BaseContext(model="sim", cache=False))
    assert third.usage.calls == 1


def test_search_auto_follows_the_keys(monkeypatch):
    assert BaseContext().search == "local"
    monkeypatch.setenv("SERPER_API_KEY", "s")
    assert BaseContext().search == "serper"
    monkeypatch.setenv("TAVILY_API_KEY", "t")
    assert BaseContext().search == "tavily"
    assert BaseContext(search="local").search == "local"


def test_a_bug_on_our_side_is_neither_blamed_on_the_endpoint_nor_retried(scripted):
    # raised in our code (here the fake's), not while the client read the reply
    scripted.script["JurorAnswer"] = [TypeError("our bug"), juror("supported")]
    answer = call(BaseContext(model="scripted", retries=2))
    assert answer.value is None and len(scripted.calls) == 1
    assert "TypeError: our bug" in answer.error and "chat completion" not in answer.error


def test_a_prompt_over_the_context_window_names_both_sizes_and_is_not_retried(scripted):
    import httpx
    from openai import BadRequestError

    # llama.cpp's reply to a prompt longer than a slot's context window; the client keeps "error"
    error = {
        "code": 400,
        "message": "request (5031 tokens) exceeds the available context size (4096 tokens)",
        "type": "exceed_context_size_error",
        "n_prompt_tokens": 5031,
        "n_ctx": 4096,
    }
    request = httpx.Request("POST", "http://127.0.0.1/v1/chat/completions")
    reply = httpx.Response(400, json={"error": error}, request=request)
    refused = BadRequestError("Error code: 400", response=reply, body=error)
    scripted.script["JurorAnswer"] = [refused, juror("supported")]
    answer = call(BaseContext(model="scripted", retries=2))
    assert answer.value is None and len(scripted.calls) == 1
    assert "refused a prompt of 5031 tokens: its context window holds 4096" in answer.error


def test_an_answer_cut_at_max_tokens_is_retried_and_its_tokens_are_counted(scripted):
    scripted.script["JurorAnswer"] = [cut_at_max_tokens('{"ver', 300, 64), juror("supported")]
    answer = call(BaseContext(model="scripted", retries=1))
    assert answer.value.verdict == "supported" and answer.usage.calls == 2 and answer.usage.unparsable == 1
    assert answer.usage.input_tokens == 300 + 10 and answer.usage.output_tokens == 64 + 5


def ask_once_or_smaller(ctx):
    return asyncio.run(
        ask(ctx, "clerk", JurorAnswer, [HumanMessage("<claim>x</claim>")], run_name="t", retry_cut=False)
    )


def test_an_answer_cut_at_max_tokens_comes_back_at_once_for_a_caller_that_asks_smaller(scripted):
    scripted.script["JurorAnswer"] = [cut_at_max_tokens('{"ver', 300, 512), juror("supported")]
    answer = ask_once_or_smaller(BaseContext(model="scripted", retries=2))
    assert answer.value is None and answer.cut and len(scripted.calls) == 1
    assert "cut at max_tokens" in answer.error
    assert (answer.usage.input_tokens, answer.usage.output_tokens, answer.usage.unparsable) == (300, 512, 1)


def test_a_cut_reply_of_function_calling_is_told_from_its_finish_reason(scripted):
    # function calling (a base_url server) returns the cut reply instead of raising
    scripted.script["JurorAnswer"] = [Cut('{"verdict": "supp'), juror("supported")]
    answer = ask_once_or_smaller(BaseContext(model="scripted", retries=2))
    assert answer.value is None and answer.cut and len(scripted.calls) == 1


def test_a_cut_then_a_failed_connection_is_no_cut(scripted):
    refused = openai.APIConnectionError(request=httpx.Request("POST", "http://127.0.0.1/v1/chat/completions"))
    scripted.script["JurorAnswer"] = [cut_at_max_tokens('{"ver', 300, 64), refused]
    answer = call(BaseContext(model="scripted", retries=1))
    assert answer.value is None and not answer.cut and "connect" in answer.error


def test_the_embedded_servers_grammar_bounds_whitespace_keys_and_strings():
    import json

    from factcourt.providers.models import llguidance_grammar
    from factcourt.state.records import ClerkOutput

    grammar = llguidance_grammar(ClerkOutput)
    head, _, spec = grammar.partition("%json ")
    assert head.startswith("%llguidance")
    spec = json.loads(spec)
    assert spec["x-guidance"] == {"whitespace_pattern": r"[\x20\x0A]{1,12}"}  # indented, bounded
    objects = [spec, *spec["$defs"].values()]
    assert all(o["additionalProperties"] is False for o in objects if o.get("type") == "object")
    assert spec["$defs"]["ClerkClaim"]["properties"]["claim"]["maxLength"] == 300


def test_a_grammar_bound_reply_is_read_like_structured_output_and_a_cut_one_is_a_parsing_error():
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage

    from factcourt.providers.models import grammar_bound

    replies = iter(
        [AIMessage('{"explanation": "r", "verdict": "supported", "confidence": 0.9}'), AIMessage('{"verd')]
    )
    model = GenericFakeChatModel(messages=replies)
    bound = grammar_bound(model, JurorAnswer)
    whole = bound.invoke([HumanMessage("x")])
    assert whole["parsed"].verdict == "supported" and whole["parsing_error"] is None
    cut = bound.invoke([HumanMessage("x")])
    assert cut["parsed"] is None and cut["parsing_error"] is not None and cut["raw"].content == '{"verd'


def test_a_local_weights_file_is_cached_by_what_it_is_not_by_its_name(tmp_path, monkeypatch):
    """Another file of the same name, or the file replaced in place, never gets the old answers."""
    import contextlib
    import os

    from factcourt.providers import models
    from factcourt.providers.simulated import SimulatedChatModel

    monkeypatch.setattr(models, "endpoint_url", lambda ctx, choice: "http://127.0.0.1:9/v1")  # no server
    monkeypatch.setattr(models, "_build", lambda ctx, choice, url, **_: SimulatedChatModel())
    monkeypatch.setattr(models, "_turn", lambda ctx, choice: contextlib.nullcontext())
    models._built.clear()
    first, second = tmp_path / "a" / "model.gguf", tmp_path / "b" / "model.gguf"
    for path, data in ((first, b"one"), (second, b"two")):
        path.parent.mkdir()
        path.write_bytes(data)

    def cached(path) -> bool:
        return call(BaseContext(local_weights=str(path), structured_output="function_calling")).cached

    assert choose(BaseContext(local_weights=str(first)), "evaluator").endpoint == "embedded"
    assert not cached(first) and cached(first)
    assert not cached(second) and cached(second)
    first.write_bytes(b"three")
    os.utime(first, ns=(1, 1))  # replaced in place: size and time differ
    assert not cached(first)
    monkeypatch.chdir(tmp_path / "a")
    assert cached("model.gguf")  # the same file by a relative path


def test_missing_local_weights_are_a_config_error_before_any_call(tmp_path):
    with pytest.raises(ConfigError, match="no such GGUF file"):
        call(BaseContext(local_weights=str(tmp_path / "missing.gguf")))


def test_a_fresh_ask_has_the_embedded_server_evaluate_the_whole_prompt():
    import asyncio

    from factcourt.providers.models import ModelChoice, chat_model

    loop = asyncio.new_event_loop()
    try:
        ctx = BaseContext()
        embedded = ModelChoice("evaluator", "qwen", "embedded", "json_schema")
        fresh = chat_model(ctx, embedded, loop, "http://127.0.0.1:9/v1", fresh=True)
        cached = chat_model(ctx, embedded, loop, "http://127.0.0.1:9/v1")
        assert fresh.extra_body["cache_prompt"] is False and "cache_prompt" not in cached.extra_body
        # another server may not know llama.cpp's option: only the embedded one is sent it
        other = ModelChoice("evaluator", "m", "http://127.0.0.1:9/v1", "json_schema")
        assert (
            "cache_prompt" not in chat_model(ctx, other, loop, "http://127.0.0.1:9/v1", fresh=True).extra_body
        )
    finally:
        loop.close()


# ----------------------------------------------- settings flow one way: a run's models (#66)

CHECKED = "Paris is the capital of France. The Eiffel Tower is in Berlin. Water boils at 100 degrees."


def test_a_check_resolves_each_role_once_at_its_start(monkeypatch):
    """A whole run (a debate of three claims) resolves each role's model once, then reads it."""
    import factcourt
    from factcourt.context.claims import ClaimsContext
    from factcourt.providers import models

    resolved: list[str] = []
    resolve = models.choose

    def counted(ctx, role):
        resolved.append(role)
        return resolve(ctx, role)

    monkeypatch.setattr(models, "choose", counted)
    result = factcourt.check(CHECKED, model="sim", protocol="adversarial", search="none", cache=False)
    assert len(result.claims) == 3 and result.usage.calls > 3  # the debaters and the moderator spoke
    assert sorted(resolved) == sorted(ClaimsContext.agent_roles())  # every role, once (was 20 calls)


def _reached(ctx, role):
    """What ``role_choice`` gave before #66: with the settings of a model that has its own."""
    name = ctx.model_of(role)
    return choose(ctx.for_model(name) if name in ctx.model_settings else ctx, role)


def _outcome(resolve, *args):
    try:
        return resolve(*args)
    except ConfigError as exc:
        return f"ConfigError: {exc}"


@pytest.mark.parametrize(
    "settings",
    [
        {},  # auto: the embedded model without a key
        {"key": "sk-test"},  # auto: OpenAI's with one
        {"model": "sim:0.2", "role_models": {"moderator": "sim"}},
        {"model": "qwen", "base_url": "http://127.0.0.1:8000/v1", "structured_output": "json_schema"},
        {"model": "gpt-4o"},  # no key, no endpoint: the same one sentence at each read
        {"target": "qwen-7b"},  # an audit target on an endpoint of its own (model_settings)
    ],
)
def test_the_table_a_run_reads_is_what_choose_gave(monkeypatch, settings):
    from factcourt.api.audit import audit_context
    from factcourt.context.audit import AuditContext
    from factcourt.context.base import known_roles
    from factcourt.providers.models import models

    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    settings = dict(settings)
    if key := settings.pop("key", None):
        monkeypatch.setenv("OPENAI_API_KEY", key)
    if target := settings.pop("target", None):
        ctx = audit_context("smoke", target, "http://127.0.0.1:8081/v1", {"model": "sim"}, {})
    else:
        ctx = AuditContext(**settings)
    table = models(ctx)
    for role in known_roles():
        assert _outcome(table.__getitem__, role) == _outcome(choose, ctx, role)
        assert _outcome(table.reached, role) == _outcome(_reached, ctx, role)
    if target:
        assert table.reached("target").endpoint == "http://127.0.0.1:8081/v1"
        assert table["grader"].endpoint == "simulated"
    assert models(ctx) is table  # kept with the context: read, never resolved again


def test_a_runs_models_do_not_change_under_it_and_the_next_run_resolves_anew(monkeypatch):
    from factcourt.providers.models import models

    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    ctx = BaseContext()
    assert models(ctx)["evaluator"].endpoint == "embedded"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")  # mid-run: this run's models stay as resolved
    assert models(ctx)["evaluator"].endpoint == "embedded"
    assert models(BaseContext())["evaluator"].endpoint == "openai"  # the next run's are its own


def test_a_context_made_for_one_model_resolves_with_its_own_settings_once():
    from factcourt.providers.models import models

    own = {"base_url": "http://127.0.0.1:8081/v1", "structured_output": "json_mode"}
    ctx = BaseContext(model="sim", model_settings={"qwen-7b": own})
    assert ctx.for_model("qwen-7b") is ctx.for_model("qwen-7b")  # one per run and model
    answer = models(ctx.for_model("qwen-7b"))["answer"]
    assert (answer.name, answer.endpoint, answer.method) == ("qwen-7b", own["base_url"], "json_mode")
    assert models(ctx)["answer"].endpoint == "simulated"  # the run's own roles keep the run's
    assert ctx.for_model("qwen-7b", temperature=0.5) is not ctx.for_model("qwen-7b")


def test_a_copied_or_pickled_context_resolves_its_own_models():
    import copy
    import pickle
    from dataclasses import replace

    from factcourt.providers.models import models

    ctx = BaseContext(model="sim")
    table = models(ctx)
    assert table["clerk"].name == "sim"
    assert models(replace(ctx, model="sim:0.5"))["clerk"].name == "sim:0.5"
    for other in (pickle.loads(pickle.dumps(ctx)), copy.copy(ctx), copy.deepcopy(ctx)):
        assert other == ctx and models(other) is not table  # a Ray worker resolves for itself
        assert models(other)["clerk"] == table["clerk"]


def test_a_bad_sim_latency_is_refused_before_the_run():
    from factcourt.api import preflight
    from factcourt.context.claims import ClaimsContext

    with pytest.raises(ConfigError, match="sim:LATENCY takes seconds per call"):
        preflight(ClaimsContext(model="sim:fast"))
    with pytest.raises(ConfigError, match="^model 'gpt-4o' needs OPENAI_API_KEY"):
        preflight(ClaimsContext(model="gpt-4o"))


def test_an_audit_resolves_each_agents_model_once(monkeypatch):
    """Each agent answers with its own temperature and length, from the run's table."""
    from collections import Counter

    import factcourt
    from factcourt.context.audit import AUDIT_ROLES
    from factcourt.providers import models

    resolved: Counter[str] = Counter()
    resolve = models.choose

    def counted(ctx, role):
        resolved[role] += 1
        return resolve(ctx, role)

    monkeypatch.setattr(models, "choose", counted)
    factcourt.audit(
        ["fake_news"], model="sim", scale="smoke", cache=False, search="none", audit_scenario_cap=2
    )
    # the target twice: with the run's settings (run_config) and with its own (for_model); was 44 in all
    assert resolved == {**dict.fromkeys(AUDIT_ROLES, 1), "target": 2}
