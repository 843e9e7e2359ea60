"""``factcourt synth-sft``: SynDeC samples in the moderator's own format, failures counted and
retried, what the Corrector sees, the user's settings, the train part and four-way labels only."""

import asyncio
import json

import pytest
from langchain_core.messages import convert_to_openai_messages

from factcourt.bench.datasets import load
from factcourt.bench.runner import in_part
from factcourt.bench.sft import debate_context, synth_sft
from factcourt.cli import main
from factcourt.errors import InputError
from tests.fakes import moderator

# ids of the bench's train ('dev') part, so every row is synthesised
TRAIN_IDS = [f"r{i}" for i in range(40) if in_part(f"r{i}", "dev")]
TEST_ID = next(f"r{i}" for i in range(40) if in_part(f"r{i}", "test"))


def rows(*labels):
    return [
        {
            "id": TRAIN_IDS[i],
            "claim": f"Claim {i} about Paris.",
            "label": label == "Supported",
            "evidence": [f"Claim {i} about Paris is documented."],
            "meta": {"label_4way": label},
        }
        for i, label in enumerate(labels)
    ]


def write(tmp_path, data):
    path = tmp_path / "claims.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in data), encoding="utf-8")
    return path


def written(out):
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()] if out.exists() else []


def ctx(**settings):
    # our prompts' format (test_debatecv_paper.py: the preset's own, the paper's)
    base = {"model": "scripted", "cache": False, "rule": "adaptive", "retries": 0, "debate_prompts": "ours"}
    return debate_context({**base, **settings})


def moderator_calls(scripted):
    return [convert_to_openai_messages(m) for name, m in scripted.sent if name == "ModeratorAnswer"]


def test_a_sample_is_the_conversation_the_moderator_node_sent_at_its_deciding_turn(tmp_path, scripted):
    dataset, out = write(tmp_path, rows("Supported")), tmp_path / "sft.jsonl"
    scripted.script["ModeratorAnswer"] = [
        {**moderator("supported", stop=False, new_insights=True), "summary": "FIRST per [E1]"},
        {**moderator("supported", stop=False, new_insights=True), "summary": "SECOND"},
        {**moderator("supported", stop=True), "summary": "THIRD"},
    ]
    asyncio.run(synth_sft(dataset, out, ctx()))
    [sample] = written(out)
    *_, deciding = moderator_calls(scripted)
    assert sample["messages"] == deciding
    # DebateCV's multi-turn dialogue: system, then per round the debate and the moderator's answer
    assert [m["role"] for m in deciding] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert json.loads(deciding[2]["content"])["summary"] == "FIRST per [E1]"
    assert "This was round 3 of at most 3. It is the last round" in deciding[-1]["content"]
    assert sample["group"] == "correct" and sample["corrected_justification"] is None
    assert json.loads(sample["target"]) == {
        **moderator("supported", stop=True),
        "summary": "THIRD",
    }


def test_each_round_adds_one_user_turn_and_the_answer_before_it(tmp_path, scripted):
    dataset, out = write(tmp_path, rows("Supported")), tmp_path / "sft.jsonl"
    scripted.script["ModeratorAnswer"] = [moderator("supported", stop=False, new_insights=True)]
    asyncio.run(synth_sft(dataset, out, ctx()))
    first, second, third = moderator_calls(scripted)
    # what was sent stays as sent: the server's prompt cache serves it
    assert second[:2] == first and third[:4] == second and len(third) == 6


def test_a_wrong_verdict_is_corrected_to_the_gold_label_with_the_correctors_words(tmp_path, scripted):
    dataset, out = write(tmp_path, rows("Not Enough Evidence")), tmp_path / "sft.jsonl"
    scripted.script["ModeratorAnswer"] = [moderator("supported", stop=True)]
    scripted.script["SftJustification"] = [{"justification": "Nothing in [E1] settles it."}]
    counts = asyncio.run(synth_sft(dataset, out, ctx()))
    assert counts["corrected"] == 1
    [sample] = written(out)
    assert sample["group"] == "error"
    target = json.loads(sample["target"])
    assert target["verdict"] == "not_enough_evidence"
    assert target["justification"] == "Nothing in [E1] settles it."
    assert target["stop"] is True  # the rest of the answer is the moderator's own
    # the paper's fields (i)-(vii) beside the chat sample
    assert sample["claim"] == "Claim 0 about Paris."
    assert sample["evidence"] == ["Claim 0 about Paris is documented."]
    assert sample["debate"] and sample["gold_verdict"] == "not_enough_evidence"
    assert sample["predicted_verdict"] == "supported"
    assert sample["predicted_justification"] == "The debate shows supported."
    assert sample["corrected_justification"] == "Nothing in [E1] settles it."


def test_the_test_part_is_refused_before_any_debate(tmp_path, scripted):
    dataset, out = write(tmp_path, rows("Supported")), tmp_path / "sft.jsonl"
    for part in ("test", "all"):
        with pytest.raises(InputError, match=f"part '{part}' holds the test claims"):
            asyncio.run(synth_sft(dataset, out, ctx(), part=part))
    assert not scripted.calls and not out.exists()


def test_a_dataset_without_four_way_labels_is_refused(tmp_path, scripted):
    data = [{**r, "meta": {}} for r in rows("Supported")]
    with pytest.raises(InputError, match="no four-way label"):
        asyncio.run(synth_sft(write(tmp_path, data), tmp_path / "sft.jsonl", ctx()))
    assert not scripted.calls


def test_a_dataset_with_no_train_case_is_refused(tmp_path, scripted):
    data = [{**rows("Supported")[0], "id": TEST_ID}]
    with pytest.raises(InputError, match="no case selected"):
        asyncio.run(synth_sft(write(tmp_path, data), tmp_path / "sft.jsonl", ctx()))


def test_the_command_says_why_in_one_sentence_and_exits_2(tmp_path, scripted, capsys):
    dataset, out = write(tmp_path, rows("Supported")), tmp_path / "sft.jsonl"
    code = main(
        ["synth-sft", "--dataset", str(dataset), "--out", str(out), "--part", "test", "--model", "scripted"]
    )
    assert code == 2
    said = " ".join(capsys.readouterr().err.split())
    assert "synth-sft reads only the 'dev' part" in said and not out.exists()


AVERITEC = [
    {
        "claim": "The moon is made of cheese.",
        "label": "Refuted",
        "questions": [
            {
                "question": "What is the moon made of?",
                "answers": [
                    {"answer": "Rock", "answer_type": "Abstractive", "source_url": "https://a.org"},
                    {
                        "answer": "No",
                        "answer_type": "Boolean",
                        "boolean_explanation": "It is rock.",
                        "source_url": "https://b.org",
                    },
                ],
            }
        ],
    },
    {"claim": "Cheese is made of milk.", "label": "Conflicting Evidence/Cherrypicking", "questions": []},
]


def test_averitecs_own_json_is_read_with_its_four_way_labels_and_the_shared_ids(tmp_path):
    path = tmp_path / "dev.json"
    path.write_text(json.dumps(AVERITEC, indent=4), encoding="utf-8")
    (first, gold), (second, gold_2) = load(path)
    assert (first.id, second.id) == ("averitec-dev-000", "averitec-dev-001")
    assert [(e.text, e.url) for e in first.evidence] == [
        ("Q: What is the moon made of? A: Rock", "https://a.org"),
        ("Q: What is the moon made of? A: No. It is rock.", "https://b.org"),
    ]
    assert (gold.label, gold.label_4way) == (False, "refuted")
    assert (gold_2.label, gold_2.label_4way) == (False, "conflicting_evidence")


def test_a_json_list_that_is_not_averitec_names_the_claim(tmp_path):
    path = tmp_path / "dev.json"
    path.write_text(json.dumps([{"claim": "No label here."}]), encoding="utf-8")
    with pytest.raises(InputError, match=r"dev.json: claim 0: not an AVeriTeC claim"):
        load(path)


def test_a_failed_debate_is_counted_not_written_and_retried(tmp_path, scripted):
    dataset, out = write(tmp_path, rows("Supported", "Supported")), tmp_path / "sft.jsonl"
    scripted.script["ModeratorAnswer"] = [
        lambda p: "no JSON here" if "Claim 0" in p else moderator("supported", stop=True)
    ]
    counts = asyncio.run(synth_sft(dataset, out, ctx()))
    assert counts.pop("first_error").startswith("moderator failed")
    assert counts == {"written": 1, "corrected": 0, "failed": 1, "skipped": 0}
    assert [s["id"] for s in written(out)] == [TRAIN_IDS[1]]
    scripted.script["ModeratorAnswer"] = [moderator("supported", stop=True)]
    again = asyncio.run(synth_sft(dataset, out, ctx()))
    assert again == {"written": 1, "corrected": 0, "failed": 0, "skipped": 1, "first_error": None}


def test_a_failed_corrector_is_counted_not_written(tmp_path, scripted):
    dataset, out = write(tmp_path, rows("Refuted")), tmp_path / "sft.jsonl"
    scripted.script["ModeratorAnswer"] = [moderator("supported", stop=True)]
    scripted.script["SftJustification"] = ["no JSON here"]
    counts = asyncio.run(synth_sft(dataset, out, ctx()))
    assert counts.pop("first_error").startswith("corrector failed")
    assert counts == {"written": 0, "corrected": 0, "failed": 1, "skipped": 0}
    assert written(out) == [] and scripted.count("SftJustification") == 1


def test_the_corrector_sees_the_moderators_round_summaries(tmp_path, scripted):
    dataset, out = write(tmp_path, rows("Refuted")), tmp_path / "sft.jsonl"
    scripted.script["ModeratorAnswer"] = [
        {**moderator("supported", stop=False), "summary": "INSIGHT-ONE"},
        {**moderator("supported", stop=True), "summary": "INSIGHT-TWO"},
    ]
    scripted.script["SftJustification"] = [{"justification": "Per [E1] it is false."}]
    asyncio.run(synth_sft(dataset, out, ctx()))
    [corrector] = [p for n, p in scripted.calls if n == "SftJustification"]
    assert "INSIGHT-ONE" in corrector and "INSIGHT-TWO" in corrector
    assert "Correct verdict: refuted" in corrector


def test_the_users_settings_win_over_the_debatecv_preset():
    chosen = ctx(rounds=1, search="none", rule="free", protocol="jury")
    assert (chosen.rounds, chosen.search, chosen.rule, chosen.protocol) == (1, "none", "free", "jury")
    assert chosen.first_pass == "off" and chosen.theta == 0.0  # the preset's, where the user named none
    plain = ctx()
    assert (plain.max_rounds, plain.search, plain.protocol) == (3, "given", "adversarial")


def test_synth_sft_debates_for_the_users_rounds(tmp_path, scripted):
    dataset, out = write(tmp_path, rows("Supported")), tmp_path / "sft.jsonl"
    scripted.script["ModeratorAnswer"] = [moderator("supported", stop=False)]
    asyncio.run(synth_sft(dataset, out, ctx(rounds=1)))
    assert scripted.count("ModeratorAnswer") == 1  # --rounds 1, not the preset's 3
    assert written(out)[0]["predicted_verdict"] == "supported"


@pytest.mark.parametrize(
    "label",
    [
        "Conflicting Evidence/Cherrypicking",
        "Conflicting Evidence/Cherry-picking",
        "conflicting evidence/cherry picking",
    ],
)
def test_four_way_labels_are_read_whatever_their_spelling(tmp_path, label):
    [(_, gold)] = load(write(tmp_path, rows(label)))
    assert gold.label_4way == "conflicting_evidence"


def test_four_way_label_spellings_of_every_class(tmp_path):
    labels = ["supported", "REFUTED", "Not-Enough-Evidence", "not_enough_evidence"]
    golds = [g for _, g in load(write(tmp_path, rows(*labels)))]
    assert [g.label_4way for g in golds] == [
        "supported",
        "refuted",
        "not_enough_evidence",
        "not_enough_evidence",
    ]


def test_an_unknown_four_way_label_is_an_error_not_a_binary_fallback(tmp_path):
    with pytest.raises(InputError, match=r"claims.jsonl:1: .*'Mostly True'"):
        load(write(tmp_path, rows("Mostly True")))
    [(_, gold)] = load(write(tmp_path, [{"id": "a", "claim": "C", "label": True}]))
    assert gold.label_4way is None  # no four-way label: binary, as before


@pytest.mark.parametrize("text", ['{"id": "r0", "messages": []}\n', "[1, 2]\n"])
def test_an_out_file_that_holds_other_records_is_refused_before_any_debate(tmp_path, scripted, text):
    from factcourt.errors import ConfigError

    dataset, out = write(tmp_path, rows("Supported")), tmp_path / "other.jsonl"
    out.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=r"other.jsonl:1: .*method"):
        asyncio.run(synth_sft(dataset, out, ctx()))
    assert not scripted.calls and out.read_text(encoding="utf-8") == text
