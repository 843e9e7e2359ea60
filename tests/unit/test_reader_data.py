"""The reader's training data: dev parts only, nothing shared with a test part, one fact changed."""

import json
import random

from factcourt.bench.reader_data import (
    EVIDENCE_SETS,
    change_one_fact,
    dataset_rows,
    held_back,
    restatement,
    sentences,
    window,
)
from factcourt.bench.runner import in_part


def _ids(prefix, want_dev, want_held, count):
    found, n = [], 0
    while len(found) < count:
        case_id = f"{prefix}-{n}"
        n += 1
        if in_part(case_id, "dev") == want_dev and (not want_dev or held_back(case_id) == want_held):
            found.append(case_id)
    return found


def _write(path, rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def _shared(tmp_path):
    """Eight tiny sets; COVID-Fact's test claim shares its evidence group with a dev claim."""
    for path in EVIDENCE_SETS:
        name = path.split("/")[0]
        train = _ids(name, True, False, 6)
        [test] = _ids(name + "-t", False, False, 1)
        [held] = _ids(name + "-h", True, True, 1)
        rows = []
        for i, case_id in enumerate([*train, test, held]):
            row = {"id": case_id, "label": i % 2 == 0, "evidence": [f"evidence {name} {i}"], "meta": {}}
            if name == "halueval_qa":
                row |= {"question": f"Q{i}?", "answer": f"A{i}", "knowledge": row.pop("evidence")}
            else:
                row["claim"] = f"claim {name} {i}"
            if name == "covidfact":
                row["meta"] = {"evidence_group": 0 if case_id in (train[0], test) else i}
            rows.append(row)
        # a dev row whose claim and evidence are a test row's, word for word
        rows.append({**rows[6], "id": _ids(name + "-d", True, False, 1)[0]})
        _write(tmp_path / path, rows)
    (tmp_path / "healthver" / "claims_4way.jsonl").write_text(
        json.dumps(
            {
                "id": _ids("hv-nei", True, False, 1)[0],
                "claim": "c",
                "label": None,
                "evidence": ["e"],
                "meta": {"label_norm": "not_enough_info"},
            }
        )
        + "\n",
        encoding="utf-8",
    )
    return tmp_path


def test_training_rows_come_from_dev_parts_and_share_nothing_with_a_test_part(tmp_path):
    train, held, _ = dataset_rows(_shared(tmp_path), per_set=100)
    assert train and held
    assert all(in_part(r.id, "dev") and not held_back(r.id) for r in train)
    assert all(in_part(r.id, "dev") and held_back(r.id) for r in held)
    test_pairs = {(f"claim {p.split('/')[0]} 6", f"evidence {p.split('/')[0]} 6") for p in EVIDENCE_SETS}
    assert not {(r.claim, r.evidence) for r in train} & test_pairs
    # COVID-Fact: the dev claim over the test claim's evidence group is left out
    assert "claim covidfact 0" not in {r.claim for r in train}
    assert "claim covidfact 2" in {r.claim for r in train}


def test_not_enough_info_rows_are_the_third_class_and_no_set_gives_more_than_its_share(tmp_path):
    train, _, _ = dataset_rows(_shared(tmp_path), per_set=4)
    assert {r.label for r in train if r.source == "healthver"} >= {"not_addressed"}
    per_set = {}
    for r in train:
        per_set[r.source] = per_set.get(r.source, 0) + 1
    assert max(per_set.values()) <= 4


def test_one_fact_is_changed_a_year_or_a_negation():
    rng = random.Random(0)
    sentence = "The tower was completed in 1889 in Paris."
    changed = {change_one_fact(sentence, ["Gustave Eiffel built it."], random.Random(s)) for s in range(20)}
    assert sentence not in changed and None not in changed
    assert any("1889" not in c for c in changed)  # a year moved
    assert any(" not " in c for c in changed)  # or a verb negated
    assert change_one_fact("lowercase words only here", [], rng) is None


def test_summaries_split_into_sentences():
    assert sentences("Paris is big. It is old! Is it 2.5 km? Yes.") == [
        "Paris is big.",
        "It is old!",
        "Is it 2.5 km?",
        "Yes.",
    ]


def test_a_restatement_says_less_than_its_sentence_in_other_words():
    """Supported rows that are not the page's own words, so the reader learns entailment, not copying."""
    first = "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, France."
    said = {restatement(first, "Eiffel Tower", random.Random(s)) for s in range(30)}
    assert "The Eiffel Tower is in Paris." in said
    assert "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris." in said
    later = "It was completed in 1889 (after two years), and it is 330 m tall."
    said = {restatement(later, "Eiffel Tower (landmark)", random.Random(s)) for s in range(30)}
    assert "Eiffel Tower was completed in 1889." in said
    assert all("(" not in c and not c.startswith("It ") for c in said)


def test_a_window_of_a_page_holds_its_sentence_and_stays_short():
    text = " ".join(f"Sentence number {i} has seven words here." for i in range(40))
    target = "Sentence number 17 has seven words here."
    for seed in range(10):
        part = window(text, target, random.Random(seed), words=60)
        assert target in part and len(part.split()) <= 60


def test_an_opening_aside_is_not_said_as_a_claim():
    sentence = "A member of the Democratic Party, he was the first African American to serve as president."
    said = {restatement(sentence, "Barack Obama", random.Random(s)) for s in range(30)}
    assert "A member of the Democratic Party." not in said
