"""The corrector: minimal rewrites, untouched supported text, no call when nothing is refuted."""

import json

import factcourt
from factcourt.nodes.claims.corrector import apply_edits
from factcourt.state.claims import Edit
from tests.fakes import juror, rating

TEXT = "The Eiffel Tower is in Paris.  It was completed in 1789.\nParis is in France."


def refute_1789(prompt):
    return juror("refuted") if "1789" in prompt else juror("supported")


def test_corrector_rewrites_only_refuted_sentences(scripted, corpus):
    scripted.script["JurorAnswer"] = [refute_1789]
    scripted.script["CorrectorAnswer"] = [{"wrong": "1789", "right": "1889"}]
    result = factcourt.check(
        TEXT, model="scripted", corpus=corpus, cache=False, correct=True, rule="adaptive", first_pass="off"
    )
    fixed = result["correction"]["text"]
    assert fixed == "The Eiffel Tower is in Paris.  It was completed in 1889.\nParis is in France."
    [edit] = result["correction"]["edits"]
    assert edit["original"] == "It was completed in 1789."
    assert edit["claim_id"] and scripted.count("CorrectorAnswer") == 1


def test_corrector_is_skipped_without_refuted_claims(scripted, corpus):
    scripted.script["JurorAnswer"] = [juror("supported")]
    result = factcourt.check(
        TEXT, model="scripted", corpus=corpus, cache=False, correct=True, rule="adaptive", first_pass="off"
    )
    assert result["correction"] is None
    assert scripted.count("CorrectorAnswer") == 0


def test_removal_keeps_the_rest_byte_identical():
    text = "Keep this.  Drop this. And keep\tthat."
    start = text.index("Drop")
    edits = [Edit(original="Drop this.", replacement="", span=(start, start + 10), claim_id="c2")]
    assert apply_edits(text, edits) == "Keep this.  And keep\tthat."


def test_two_claims_of_one_sentence_are_corrected_once(scripted, corpus):
    text = "The Eiffel Tower is in Rome and was built in 1789. The Moon orbits the Earth."
    scripted.script["ClerkOutput"] = [
        {
            "claims": [
                {"sentence": 1, "claim": "The Eiffel Tower is in Rome."},
                {"sentence": 1, "claim": "The Eiffel Tower was built in 1789."},
                {"sentence": 2, "claim": "The Moon orbits the Earth."},
            ],
            "dropped": [],
        }
    ]
    scripted.script["Label"] = [
        lambda p: rating("supported" if "Moon" in p.split("<claim>")[1][:40] else "refuted")
    ]
    scripted.script["CorrectorAnswer"] = [{"wrong": "in Rome and was built in 1789", "right": "in Paris"}]
    result = factcourt.check(text, model="scripted", corpus=corpus, cache=False, correct=True)
    assert result["correction"]["text"] == "The Eiffel Tower is in Paris. The Moon orbits the Earth."
    assert scripted.count("CorrectorAnswer") == 1


def test_a_failed_rewrite_is_named_and_fails_the_run(scripted, corpus, tmp_path, capsys):
    from factcourt.cli import main

    path = tmp_path / "t.txt"
    path.write_text("The Eiffel Tower is in Rome.", encoding="utf-8")
    scripted.script["Label"] = [rating("refuted")]
    scripted.script["CorrectorAnswer"] = [TimeoutError("corrector timed out")]
    code = main(["check", str(path), "--correct", "--model", "scripted", "--corpus", corpus, "--no-cache"])
    said = capsys.readouterr()
    assert code == 1 and "could not be rewritten" in said.err
    assert main(["check", str(path), "--correct", "--json", "--model", "scripted", "--corpus", corpus]) == 1
    correction = json.loads(capsys.readouterr().out)["correction"]
    assert correction["failed"] and "timed out" in correction["failed"][0]["error"]


from factcourt.nodes.claims.corrector import replacement_problem  # noqa: E402

PACIFIC = "The Pacific Ocean is the smallest ocean on Earth."
PACIFIC_EVIDENCE = [
    "The Pacific Ocean is the largest and deepest of Earth's five oceanic divisions, "
    "with an area of 165,250,000 km2."
]


def test_a_minimal_grounded_replacement_passes_the_guard():
    assert (
        replacement_problem(PACIFIC, "The Pacific Ocean is the largest ocean on Earth.", PACIFIC_EVIDENCE)
        is None
    )
    assert replacement_problem(PACIFIC, "", PACIFIC_EVIDENCE) is None  # removal is allowed
    assert replacement_problem("长城建于清朝。", "长城建于明朝。", ["长城的主体建于明朝。"]) is None


def test_the_guard_refuses_reasoning_verdict_words_and_long_rewrites():
    seen = (
        "The Pacific Ocean is the largest and deepest of Earth's five oceanic divisions, with a size of "
        "165,250,000 km2. This contradicts the claim that it is the smallest ocean. Therefore, the "
        "verdict is refuted."
    )
    assert "long" in replacement_problem(PACIFIC, seen, PACIFIC_EVIDENCE)
    assert "verdict" in replacement_problem(
        PACIFIC, "The verdict: the Pacific is the largest ocean.", PACIFIC_EVIDENCE
    )
    assert "claim" in replacement_problem(PACIFIC, "The claim is wrong; it is the largest.", PACIFIC_EVIDENCE)


def test_the_guard_refuses_a_rewrite_that_drops_the_sentence_or_adds_unstated_facts():
    assert "keeps" in replacement_problem(PACIFIC, "Oceans cover 71% of the planet.", PACIFIC_EVIDENCE)
    assert "Atlantic" in replacement_problem(
        PACIFIC, "The Atlantic Ocean is the smallest ocean on Earth.", PACIFIC_EVIDENCE
    )


def check_with_replacements(scripted, corpus, *replacements):
    """Check TEXT with 1789 refuted, the corrector answering ``replacements`` in turn."""
    scripted.script["JurorAnswer"] = [refute_1789]
    # the whole sentence named wrong: its replacement is the rewrite, judged by the guard
    scripted.script["CorrectorAnswer"] = [
        {"wrong": "It was completed in 1789.", "right": r} for r in replacements
    ]
    return factcourt.check(
        TEXT, model="scripted", corpus=corpus, cache=False, correct=True, rule="adaptive", first_pass="off"
    )


def test_a_bad_replacement_is_asked_once_more_then_reported_failed(scripted, corpus):
    result = check_with_replacements(
        scripted,
        corpus,
        "It was completed in 1889. Therefore the claim is refuted by the evidence.",
        "The verdict is refuted: it was completed in 1889.",
    )
    assert scripted.count("CorrectorAnswer") == 2
    assert result["correction"]["edits"] == [] and result["correction"]["text"] == TEXT
    [failure] = result["correction"]["failed"]
    assert "verdict" in failure["error"]
    second = [p for n, p in scripted.calls if n == "CorrectorAnswer"][1]
    assert "was refused" in second


def test_a_refused_replacement_then_a_good_one_is_applied(scripted, corpus):
    result = check_with_replacements(
        scripted,
        corpus,
        "Therefore it was completed in 1889, as the evidence shows.",
        "It was completed in 1889.",
    )
    assert result["correction"]["text"].count("1889") == 1 and result["correction"]["failed"] == []


def test_bench_corrector_scores_fixed_removed_and_failed_corrections(scripted, tmp_path):
    from factcourt.bench.context import BenchContext
    from factcourt.bench.corrector import run

    rows = [
        {"id": f"x{i}", "claim": claim, "label": False, "evidence": [evidence]}
        for i, (claim, evidence) in enumerate(
            [
                ("The Pacific is the smallest ocean.", "The Pacific is the largest ocean."),
                ("Rome was founded in 1900.", "Nothing is known here."),
                ("Paris is in Spain.", "Paris is in France."),
            ]
        )
    ]
    rows.append(
        {"id": "t", "claim": "Paris is in France.", "label": True, "evidence": ["Paris is in France."]}
    )
    dataset = tmp_path / "claims.jsonl"
    dataset.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")

    def corrector(prompt):
        if "Pacific" in prompt:
            return {"wrong": "smallest", "right": "largest"}
        if "Rome" in prompt:
            return {"wrong": "in 1900", "right": ""}
        return {"wrong": "Paris is in Spain.", "right": "The claim is refuted: Paris is in France."}

    scripted.script["CorrectorAnswer"] = [corrector]
    summary = run(dataset, BenchContext(model="scripted", search="given", cache=False), limit=30, part="all")
    assert summary["claims"] == 3 and (summary["fixed"], summary["removed"], summary["failed"]) == (1, 1, 1)
    assert summary["first_try"] == 2 and abs(summary["rubric_rate"] - 2 / 3) < 1e-9


def test_bench_corrector_exits_1_when_a_correction_call_fails(scripted, tmp_path, capsys):
    from factcourt.cli import main

    dataset = tmp_path / "claims.jsonl"
    dataset.write_text(
        json.dumps(
            {"id": "x", "claim": "Paris is in Spain.", "label": False, "evidence": ["Paris is in France."]}
        )
    )
    scripted.script["CorrectorAnswer"] = [TimeoutError("down")]
    argv = ["bench", "corrector", "--dataset", str(dataset), "--evidence", "given", "--model", "scripted"]
    assert main([*argv, "--set", "retries=0"]) == 1
    assert "correction call(s) failed" in capsys.readouterr().err


def test_a_replacement_that_changes_nothing_is_refused():
    sentence = "Dustin Diamond died in a prison riot."
    assert "changes nothing" in replacement_problem(sentence, sentence, ["Dustin Diamond died of cancer."])


def test_negations_function_words_and_the_originals_own_words_need_no_evidence():
    evidence = ["Hindus form the majority in Kerala.", "The CDC recommended beard styles for respirators."]
    assert replacement_problem("Millets protect you.", "Millets do not protect you.", evidence) is None
    assert replacement_problem("A note can show it.", "A note cannot show it.", evidence) is None
    # the claim's own word 'Claims' is no report word; 'recommended' grounds 'recommend'
    assert (
        replacement_problem("Claims of links were a hoax.", "Claims of links were not a hoax.", evidence)
        is None
    )
    assert replacement_problem("The CDC banned beards.", "The CDC recommend beards.", evidence) is None


def test_the_corrected_sentence_is_the_original_with_the_wrong_words_replaced():
    from factcourt.nodes.claims.corrector import substituted

    assert substituted(PACIFIC, "smallest", "largest") == (
        "The Pacific Ocean is the largest ocean on Earth.",
        None,
    )
    # found whatever its case and quotes; the sentence's own stop is kept
    assert substituted(PACIFIC, '"the Smallest ocean on Earth."', "the largest ocean on Earth.") == (
        "The Pacific Ocean is the largest ocean on Earth.",
        None,
    )
    assert substituted(PACIFIC, "smallest", "") == ("", None)  # nothing true to say: removed
    assert substituted(PACIFIC, PACIFIC, "The Pacific is the largest.") == (
        "The Pacific is the largest.",
        None,
    )
    replacement, problem = substituted(PACIFIC, "Atlantic", "largest")
    assert replacement is None and "'Atlantic' are not in the sentence" in problem
    assert substituted(PACIFIC, " ", "largest") == (None, "it names no wrong words")
    assert substituted("长城建于清朝。", "清朝", "明朝") == ("长城建于明朝。", None)


def test_a_word_doubled_by_the_substitution_is_no_correction():
    # the 1.5B named "not" as the wrong words of "is not on": "President Trump is is on ..."
    sentence = "President Trump is not on supplemental oxygen."
    assert "repeats" in replacement_problem(sentence, "President Trump is is on supplemental oxygen.", [])
    # a doubling the sentence already had is the user's
    assert replacement_problem("It is is wrong.", "It is is right.", ["right"]) is None


def test_swapped_fields_are_read_the_right_way_round():
    from factcourt.nodes.claims.corrector import substituted

    # the 1.5B once put the correction under "wrong" and the sentence's words under "right"
    sentence = "Hindus are a minority in Kerala."
    assert substituted(sentence, "a majority", "a minority") == (
        "Hindus are a majority in Kerala.",
        None,
    )


def test_a_respelt_word_is_no_correction_but_a_changed_number_is():
    evidence = ["Hillary Clinton and Trump's campaign.", "It was completed in 1889."]
    sentence = "Links between Trumps campaign and Russia were a hoax by Hilary Clinton."
    respelt = "Links between Trump's campaign and Russia were a hoax by Hillary Clinton."
    assert "spelling" in replacement_problem(sentence, respelt, evidence)
    assert replacement_problem("It was completed in 1789.", "It was completed in 1889.", evidence) is None
    negated = "Links between Trump's campaign and Russia were not a hoax by Hillary Clinton."
    assert replacement_problem(sentence, negated, evidence) is None


def test_wrong_words_not_in_the_sentence_are_asked_again_with_the_reason(scripted, corpus):
    scripted.script["JurorAnswer"] = [refute_1789]
    scripted.script["CorrectorAnswer"] = [
        {"wrong": "1798", "right": "1889"},
        {"wrong": "1789", "right": "1889"},
    ]
    result = factcourt.check(
        TEXT, model="scripted", corpus=corpus, cache=False, correct=True, rule="adaptive", first_pass="off"
    )
    assert "It was completed in 1889." in result["correction"]["text"] and not result["correction"]["failed"]
    second = [p for n, p in scripted.calls if n == "CorrectorAnswer"][1]
    assert "'1798' are not in the sentence" in second and '"wrong": "1798"' in second
