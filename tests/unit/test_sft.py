"""``factcourt synth-sft``: failures counted and retried, what the Corrector sees, the user's settings."""

import asyncio
import json

import pytest

from factcourt.bench.datasets import load
from factcourt.bench.sft import debate_context, synth_sft
from factcourt.errors import InputError
from tests.fakes import moderator


def rows(*labels):
    return [
        {
            "id": f"r{i}",
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
    return debate_context({"model": "scripted", "cache": False, "rule": "adaptive", "retries": 0, **settings})


def test_a_failed_debate_is_counted_not_written_and_retried(tmp_path, scripted):
    dataset, out = write(tmp_path, rows("Supported", "Supported")), tmp_path / "sft.jsonl"
    scripted.script["ModeratorAnswer"] = [
        lambda p: "no JSON here" if "Claim 0" in p else moderator("supported", stop=True)
    ]
    counts = asyncio.run(synth_sft(dataset, out, ctx()))
    assert counts.pop("first_error").startswith("moderator failed")
    assert counts == {"written": 1, "corrected": 0, "failed": 1, "skipped": 0}
    assert [s["id"] for s in written(out)] == ["r1"]
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
    # the summaries are the Corrector's help, not part of the training prompt
    assert "INSIGHT-ONE" not in written(out)[0]["messages"][1]["content"]


def test_the_users_settings_win_over_the_debatecv_preset():
    chosen = ctx(rounds=1, search="none", rule="free", protocol="jury")
    assert (chosen.rounds, chosen.search, chosen.rule, chosen.protocol) == (1, "none", "free", "jury")
    assert chosen.first_pass == "off" and not chosen.evidence_first
    plain = ctx()
    assert (plain.max_rounds, plain.search, plain.protocol) == (3, "given", "adversarial")


def test_synth_sft_debates_for_the_users_rounds(tmp_path, scripted):
    dataset, out = write(tmp_path, rows("Supported")), tmp_path / "sft.jsonl"
    scripted.script["ModeratorAnswer"] = [moderator("supported", stop=False)]
    asyncio.run(synth_sft(dataset, out, ctx(rounds=1)))
    assert scripted.count("ModeratorAnswer") == 1  # --rounds 1, not the preset's 3
    assert written(out)[0]["moderator_verdict"] == "supported"


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
