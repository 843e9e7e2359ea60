"""The corrector: minimal rewrites, untouched supported text, no call when nothing is refuted."""

import factcourt
from factcourt.nodes.corrector import apply_edits
from factcourt.state import Edit
from tests.fakes import juror

TEXT = "The Eiffel Tower is in Paris.  It was completed in 1789.\nParis is in France."


def refute_1789(prompt):
    return juror("refuted") if "1789" in prompt else juror("supported")


def test_corrector_rewrites_only_refuted_sentences(scripted, corpus):
    scripted.script["JurorAnswer"] = [refute_1789]
    scripted.script["CorrectorAnswer"] = [{"replacement": "It was completed in 1889."}]
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
