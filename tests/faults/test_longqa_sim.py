"""The simulated model runs the long-form question builder end to end (issue 54, item 15).

It failed with "the simulated model knows no schema 'FactSubQuestions'".
"""

import json
from pathlib import Path

import pytest

from factcourt.cli import main

SEEDS = Path(__file__).parent.parent / "fixtures" / "halluqa_seeds.json"


@pytest.mark.parametrize("search", ["none", "local"])
def test_build_longqa_runs_to_the_end_on_the_simulated_model(search, tmp_path, capsys):
    out = tmp_path / "lq"
    argv = ["build-longqa", "--seeds", str(SEEDS), "--out", str(out), "--limit", "2", "--model", "sim"]
    assert main([*argv, "--search", search, "--quiet", "--no-cache"]) == 0, capsys.readouterr().err
    built = [json.loads(line) for line in (out / "built.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [row["status"] for row in built] == ["built", "built"], built
    for row in built:
        assert row["selected"] and row["question"].startswith(row["seed"]["question"])
        assert len(row["question"]) > len(row["seed"]["question"])


def test_the_simulated_sub_questions_name_their_facts_and_a_listed_topic():
    from factcourt.providers.simulated import rule_answer

    prompt = (
        "<question>Where is the Eiffel Tower?</question>\n<facts>\n"
        "1. The Eiffel Tower is in Paris.\n2. It was completed in 1889.\n</facts>\n"
        "Topics: history, geography, other\nWrite one question per fact."
    )
    answer = rule_answer("FactSubQuestions", prompt)
    assert [q["fact"] for q in answer["questions"]] == [1, 2]
    assert answer["topic"] in ("history", "geography", "other")
    fused = rule_answer(
        "FusedQuestion",
        "<question>Where is the Eiffel Tower?</question>\n<candidates>\n1. A? / B?\n2. C?\n</candidates>",
    )
    assert fused["selected"] == [1, 2] and fused["question"].startswith("Where is the Eiffel Tower?")
