"""Input parsing: encodings, evidence files, dataset rows, sentence splitting and spans."""

import json

import pytest

from factcourt.bench.datasets import load
from factcourt.errors import InputError
from factcourt.inputs import decode, read_evidence_file
from factcourt.nodes.agents.clerk import chunk, sentences_of


def test_decode_utf8_bom_and_utf16():
    assert decode("café".encode(), "x") == "café"
    assert decode("\ufeffcafé".encode(), "x") == "café"
    assert decode("café".encode("utf-16"), "x") == "café"


def test_decode_rejects_other_encodings_with_the_offset():
    with pytest.raises(InputError, match="not UTF-8.*offset 3"):
        decode("café".encode("latin-1"), "notes.txt")


def test_evidence_file_json_jsonl_and_errors(tmp_path):
    as_json = tmp_path / "e.json"
    as_json.write_text(json.dumps(["plain text", {"text": "t", "url": "u"}]), encoding="utf-8")
    assert [e.text for e in read_evidence_file(as_json)] == ["plain text", "t"]
    as_jsonl = tmp_path / "e.jsonl"
    as_jsonl.write_text('{"text": "a"}\n{"text": "b", "title": "B"}\n', encoding="utf-8")
    assert [e.title for e in read_evidence_file(as_jsonl)] == ["", "B"]
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"text": "a"}\n{"text": \n', encoding="utf-8")
    with pytest.raises(InputError, match="broken.jsonl:2"):
        read_evidence_file(broken)
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps([{"content": "x"}]), encoding="utf-8")
    with pytest.raises(InputError, match="item 1"):
        read_evidence_file(wrong)


def test_dataset_rows_keep_gold_and_meta_away_from_the_case(tmp_path):
    rows = [
        {
            "id": "a",
            "claim": "C",
            "label": False,
            "source_question": "Q",
            "evidence": ["Q: x A: y", "https://only.a/url"],
            "meta": {"label_4way": "Refuted", "justification": "secret"},
        },
        {
            "id": "b",
            "question": "Who?",
            "answer": "Me",
            "knowledge": "K",
            "label": True,
            "meta": {"right_answer": "Me"},
        },
    ]
    path = tmp_path / "d.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    (case_a, gold_a), (case_b, gold_b) = load(path)
    assert [e.text for e in case_a.evidence] == ["Q: x A: y"]
    assert gold_a.label is False and gold_a.label_4way == "refuted"
    assert "secret" not in repr(case_a)
    assert case_b.claim == 'The answer to the question "Who?" is "Me".'
    assert [e.text for e in case_b.evidence] == ["K"] and gold_b.label is True
    assert len(load(path, limit=1)) == 1


@pytest.mark.parametrize(
    ("written", "label"), [(True, True), (0, False), (1, True), ("false", False), ("1", True)]
)
def test_dataset_labels_as_booleans_numbers_or_words(tmp_path, written, label):
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps({"id": "a", "claim": "C", "label": written}), encoding="utf-8")
    assert load(path)[0][1].label is label


def test_a_dataset_label_that_is_no_truth_value_names_its_line(tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps({"id": "a", "claim": "C", "label": "maybe"}), encoding="utf-8")
    with pytest.raises(InputError, match=r"d.jsonl:1: label 'maybe'"):
        load(path)


def test_sentences_chunks_and_spans():
    text = "First one. Second one! 第三句。第四句？\nLast line"
    expected = ["First one.", "Second one!", "第三句。", "第四句？", "Last line"]
    assert [s.text for s in sentences_of(text)] == expected
    assert all(text[s.start : s.end] == s.text for s in sentences_of(text))
    chunks = chunk(sentences_of("A b c. " * 400), limit=100)
    assert all(c[-1].end - c[0].start <= 100 for c in chunks) and sum(len(c) for c in chunks) == 400


def test_a_chunk_of_many_short_lines_holds_at_most_chunk_sentences():
    # the Clerk writes a claim or two a line: 13 list lines in one chunk overran its 512 tokens
    from factcourt.nodes.agents.clerk import CHUNK_SENTENCES

    sentences = sentences_of("\n".join(f"- Item {n} is red" for n in range(20)))
    chunks = chunk(sentences)
    assert [len(c) for c in chunks] == [CHUNK_SENTENCES, CHUNK_SENTENCES, 20 - 2 * CHUNK_SENTENCES]
    long = sentences_of(" ".join(f"Sentence {n} says {'a lot ' * 10}." for n in range(6)))
    assert [len(c) for c in chunk(long, limit=200)] == [2, 2, 2]  # the characters close it first


def test_initials_and_decimals_end_no_sentence_and_every_line_ends_one():
    text = (
        "Richard N. Haass met Dr. Smith in the U.S. on a $3.5 million deal. He left.\n"
        "- Paris is in France\n- Rome"
    )
    assert [s.text for s in sentences_of(text)] == [
        "Richard N. Haass met Dr. Smith in the U.S. on a $3.5 million deal.",
        "He left.",
        "- Paris is in France",
        "- Rome",
    ]


@pytest.mark.parametrize(
    ("lines", "complaint"),
    [
        (["[1, 2]"], r"d.jsonl:1: .*not a JSON object"),
        (['"a claim"'], r"d.jsonl:1: .*not a JSON object"),
        ([{"id": None, "claim": "C", "label": True}], r"d.jsonl:1: id None"),
        ([{"id": True, "claim": "C", "label": True}], r"d.jsonl:1: id True"),
        (
            [{"id": "a", "claim": "C", "label": True, "evidence": [{"text": "t", "url": 5}]}],
            r"d.jsonl:1: .*url",
        ),
        (
            [{"id": "a", "claim": "C", "label": True}, {"id": "a", "claim": "D", "label": False}],
            "d.jsonl:2: .*'a'",
        ),
        (
            [{"id": 1, "claim": "C", "label": True}, {"id": "1", "claim": "D", "label": False}],
            "d.jsonl:2: .*'1'",
        ),
        ([], "holds no case"),
    ],
)
def test_dataset_rows_that_cannot_be_cases_name_their_line(tmp_path, lines, complaint):
    path = tmp_path / "d.jsonl"
    path.write_text(
        "".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines), encoding="utf-8"
    )
    with pytest.raises(InputError, match=complaint):
        load(path)


def test_dataset_ids_may_be_integers_and_evidence_urls_null(tmp_path):
    from factcourt.bench.runner import select

    path = tmp_path / "d.jsonl"
    rows = [
        {
            "id": n,
            "claim": f"C{n}",
            "label": n % 2 == 0,
            "evidence": [{"text": "t", "url": None, "title": None}],
        }
        for n in range(8)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    (case, _), *_ = load(path)
    assert case.id == "0" and case.evidence[0].url == "" and case.evidence[0].title == ""
    dev = [c.id for c, _ in select(path, None, None, part="dev")]
    test = [c.id for c, _ in select(path, None, None, part="test")]
    assert sorted(dev + test, key=int) == [str(n) for n in range(8)]


def test_a_sentence_with_tags_keeps_the_span_of_the_text_as_written():
    text = "Use the <b> tag for bold. The Eiffel Tower is in Berlin."
    assert [(s.text, s.start, s.end) for s in sentences_of(text)] == [
        ("Use the <b> tag for bold.", 0, 25),
        ("The Eiffel Tower is in Berlin.", 26, 56),
    ]
