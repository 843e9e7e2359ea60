"""Every agent of one case reads the evidence once: the prompts of a case's agents share a prefix
that holds the whole evidence, byte for byte, so llama.cpp's prompt cache serves it after the first.

What differs between agents (persona, side, team and role, the transcript) comes after it. The
moderator (DebateCV) and IMPD-MACD's judge and refiner keep system prompts of their own: the
moderator sharing the debaters' measured 23% faster but turned 2 of 5 verdicts wrong.
"""

import os

import factcourt
from factcourt.state.records import Evidence
from tests.fakes import debater, juror, moderator

CLAIM = "The Eiffel Tower is in Paris."
EVIDENCE = [
    Evidence(
        text="The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, France.",
        url="https://example.org/eiffel",
        title="Eiffel Tower",
    )
]


def shared_prefix(prompts: list[str]) -> str:
    assert len(prompts) >= 2, "a case needs several agents to share a prefix"
    return os.path.commonprefix(prompts)


def prompts_of(scripted, schema: str) -> list[str]:
    return [text for name, text in scripted.calls if name == schema]


def test_the_jurors_of_a_round_share_the_evidence_and_differ_only_after_it(scripted):
    scripted.script["JurorAnswer"] = [juror("supported")]
    factcourt.verify(CLAIM, EVIDENCE, model="scripted", cache=False, protocol="jury", jurors=3, rounds=1)
    prefix = shared_prefix(prompts_of(scripted, "JurorAnswer"))
    assert EVIDENCE[0].text in prefix and CLAIM in prefix


def test_the_debaters_share_the_evidence_and_differ_only_after_it(scripted):
    scripted.script["DebaterAnswer"] = [debater()]
    scripted.script["ModeratorAnswer"] = [moderator("supported", stop=True)]
    factcourt.verify(CLAIM, EVIDENCE, model="scripted", cache=False, protocol="adversarial", rounds=1)
    prefix = shared_prefix(prompts_of(scripted, "DebaterAnswer"))
    assert EVIDENCE[0].text in prefix and CLAIM in prefix


def test_the_agents_of_both_teams_share_the_item_and_its_knowledge(scripted):
    question, answer = "Where is the Eiffel Tower?", "The Eiffel Tower is in Berlin."
    factcourt.detect(question, answer, EVIDENCE, model="scripted", cache=False, rounds=1)
    agents = prompts_of(scripted, "PerspectiveAnswer")
    assert len(agents) == 6  # 3 perspective agents x 2 teams
    prefix = shared_prefix(agents)
    assert EVIDENCE[0].text in prefix and answer in prefix
