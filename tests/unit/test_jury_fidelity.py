"""MAD-Fact as published, beside our jury: a model per juror, Table 1's roles, the Judge agent."""

import pytest

import factcourt
from factcourt.cli import build_parser
from factcourt.commands.shared import settings_values
from factcourt.context.claims import OURS, PRESETS, ClaimsContext
from factcourt.errors import ConfigError
from factcourt.providers import models
from tests.fakes import ScriptedModel, juror

CLAIM = "The Eiffel Tower is in Paris."
# the preset with our roles, guard and confidence, so each test below names what it changes
BASE = {"cache": False, "search": "none", **PRESETS["madfact"], **OURS["madfact"], "rule": "free"}


def test_the_madfact_preset_runs_the_papers_roles_without_our_guard():
    assert (
        PRESETS["madfact"] | {"role_texts": "paper", "change_guard": False, "jurors": 3, "rounds": 2}
        == (PRESETS["madfact"])
    )
    assert PRESETS["madfact"]["confidence_source"] == "reported"  # the agent's own estimate (§4.2.2)


@pytest.fixture
def three_models():
    made = {
        n: ScriptedModel(script={"JurorAnswer": [juror(v)]})
        for n, v in zip("abc", ["supported", "refuted", "supported"], strict=True)
    }
    for name, model in made.items():
        models.register_model(name, model)
    yield made
    for name in made:
        models.register_model(name, None)


def test_each_juror_answers_with_its_own_model(three_models, scripted):
    result = factcourt.verify(CLAIM, model="scripted", juror_models=["a", "b", "c"], **{**BASE, "jurors": 3})
    assert [m.count("JurorAnswer") for m in three_models.values()] == [2, 2, 2]  # 2 rounds each
    assert scripted.count("JurorAnswer") == 0
    assert result["votes"] == {"General Public": "supported", "Critic": "refuted", "News Author": "supported"}


def test_juror_models_set_the_jury_size_and_must_match_it():
    assert ClaimsContext.make(juror_models=["a", "b", "c"]).jurors == 3
    with pytest.raises(ConfigError, match="3 models for 2 jurors"):
        ClaimsContext.make(juror_models=["a", "b", "c"], jurors=2)


def test_the_cli_reads_juror_models_and_the_jury_judge():
    args = build_parser().parse_args(["check", "x", "--juror-models", "a, b,c", "--jury-judge", "model"])
    values = settings_values(args)
    assert values["juror_models"] == ["a", "b", "c"] and values["jury_judge"] == "model"


def test_paper_roles_are_table_1_verbatim_without_our_rules(scripted):
    scripted.script["JurorAnswer"] = [juror("supported")]
    factcourt.verify(CLAIM, model="scripted", **{**BASE, "role_texts": "paper"})
    prompts = [p for n, p in scripted.calls if n == "JurorAnswer"]
    assert (
        "When information is insufficient, you tend to search rather than jump to conclusions." in prompts[2]
    )
    assert "You are Critic, one of the referees in this task." in prompts[1]
    assert not any("hide behind" in p or "keep your verdict" in p for p in prompts)


def test_neutral_roles_keep_our_rules(scripted):
    scripted.script["JurorAnswer"] = [juror("supported")]
    factcourt.verify(CLAIM, model="scripted", **BASE)
    prompts = [p for n, p in scripted.calls if n == "JurorAnswer"]
    assert "hide behind" in prompts[0] and "referees" not in prompts[0]


def test_without_the_guard_a_changed_verdict_counts(scripted):
    # round 1: all supported; round 2: Critic moves to refuted citing nothing
    scripted.script["JurorAnswer"] = [juror("supported")] * 3 + [
        juror("supported"),
        juror("refuted"),
        juror("refuted"),
    ]
    guarded = factcourt.verify(CLAIM, model="scripted", **BASE)
    assert guarded["verdict"] == "supported"
    scripted.calls.clear()
    free = factcourt.verify(CLAIM, model="scripted", **{**BASE, "change_guard": False})
    assert free["verdict"] == "refuted" and not any(t["rejected_change"] for t in free["transcript"])


def test_the_judge_agent_reads_the_last_opinions_and_its_ruling_decides(scripted):
    scripted.script["JurorAnswer"] = [juror("supported"), juror("refuted"), juror("supported")]
    scripted.script["Rating"] = [{"explanation": "The Critic's point stands.", "verdict": "refuted"}]
    result = factcourt.verify(CLAIM, model="scripted", jury_judge="model", **BASE)
    [prompt] = [p for n, p in scripted.calls if n == "Rating"]
    assert "Judge of a fact-checking jury" in prompt and "[Round 2] Critic: refuted" in prompt
    assert "[Round 1]" not in prompt, "the judge reads the last round only"
    assert result["verdict"] == "refuted" and result["justification"] == "The Critic's point stands."
    assert result["ruling"]["verdict"] == "refuted" and result["usage"]["calls"] == 7


def test_a_failed_ruling_leaves_the_vote_to_decide(scripted):
    scripted.script["JurorAnswer"] = [juror("supported"), juror("refuted"), juror("supported")]
    scripted.script["Rating"] = ["not json"]
    result = factcourt.verify(CLAIM, model="scripted", jury_judge="model", retries=0, **BASE)
    assert result["verdict"] == "supported" and result["ruling"]["failed"]


def test_the_judge_agent_breaks_a_tie_as_eq_12_does_by_the_last_speaker(scripted):
    """Eq. 12: a tie goes to the evaluator who spoke last; the prompt said "the better-argued side"."""
    scripted.script["JurorAnswer"] = [juror("supported"), juror("refuted"), juror("supported")]
    scripted.script["Rating"] = [{"explanation": "A tie: the last speaker decides.", "verdict": "refuted"}]
    result = factcourt.verify(CLAIM, model="scripted", jury_judge="model", **BASE)
    [prompt] = [p for n, p in scripted.calls if n == "Rating"]
    assert "tie, follow the evaluator who spoke last (the last one listed)" in prompt
    # "the last one listed" holds: the opinions are listed in the order the jurors spoke
    listed = [
        line.split("] ")[1].split(":")[0] for line in prompt.splitlines() if line.startswith("[Round 2]")
    ]
    spoke = [t["speaker"] for t in result["transcript"] if t["round"] == 2]
    assert listed == spoke and len(listed) > 1
