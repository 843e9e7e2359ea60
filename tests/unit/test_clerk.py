"""The Clerk's claims are self-contained: references are detected and resolved from the response."""

import json
from pathlib import Path

import factcourt
from factcourt.nodes.agents.clerk import unresolved

FIXTURE = Path(__file__).parents[2] / "factcourt" / "bench" / "fixtures" / "decontext.jsonl"


def test_the_detector_flags_every_fixture_sentence_and_not_its_resolution():
    items = [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines()]
    chinese = [i for i in items if any("\u4e00" <= c <= "\u9fff" for c in i["sentence"])]
    assert len(items) >= 30 and len(chinese) >= 5
    for item in items:
        language = "zh" if item in chinese else "en"
        assert unresolved(item["sentence"], language), item["sentence"]
    assert unresolved("The Eiffel Tower was completed in 1889.", "en") is None
    assert unresolved("In 1989, many Eastern European governments collapsed.", "en") is None
    assert unresolved("长城是世界上最长的防御工程之一。", "zh") is None
    assert unresolved("It was completed in 1889.", "en") == "It"


def test_the_readme_example_comes_out_self_contained(scripted):
    scripted.script["ClerkOutput"] = [
        {
            "claims": [
                {"sentence": 1, "claim": "The Eiffel Tower is in Paris."},
                {"sentence": 2, "claim": "It was completed in 1889."},
            ],
            "dropped": [],
        }
    ]
    result = factcourt.check(
        "The Eiffel Tower is in Paris. It was completed in 1889.",
        model="scripted",
        search="none",
        cache=False,
    )
    assert [c["text"] for c in result["claims"]] == [
        "The Eiffel Tower is in Paris.",
        "The Eiffel Tower was completed in 1889.",
    ]
    assert not [c for c in scripted.calls if c[0] == "ResolvedClaims"]  # the rule resolved it


def test_what_the_rule_cannot_resolve_is_asked_once_with_the_text_as_context(scripted):
    scripted.script["ClerkOutput"] = [
        {
            "claims": [
                {"sentence": 1, "claim": "Ada Lovelace met Babbage."},
                {"sentence": 2, "claim": "This led to the notes."},
            ],
            "dropped": [],
        }
    ]
    scripted.script["ResolvedClaims"] = [{"claims": ["Ada Lovelace's meeting led to the notes."]}]
    result = factcourt.check(
        "Ada Lovelace met Babbage. This led to the notes.", model="scripted", search="none", cache=False
    )
    assert [c["text"] for c in result["claims"]][-1] == "Ada Lovelace's meeting led to the notes."
    [(_, prompt)] = [c for c in scripted.calls if c[0] == "ResolvedClaims"]
    assert "1. This led to the notes." in prompt and "Ada Lovelace met Babbage." in prompt


def test_a_rewrite_naming_a_subject_the_text_never_names_is_not_taken(scripted):
    # the search found Fleming's page for "She discovered penicillin." and judged it supported
    scripted.script["ClerkOutput"] = [{"claims": [{"sentence": 1, "claim": "She discovered penicillin."}]}]
    scripted.script["ResolvedClaims"] = [{"claims": ["Alexander Fleming discovered penicillin."]}]
    result = factcourt.check("She discovered penicillin.", model="scripted", search="none", cache=False)
    [claim] = result["claims"]
    assert (claim["text"], claim["unresolved"], claim["context"]) == ("She discovered penicillin.", "She", "")
    assert result["dropped"] == []


def test_a_reference_left_unresolved_is_checked_with_the_sentence_before_and_marked(scripted, corpus):
    # issue 52: "He was born in 1898" was dropped; where no rule tells who "He" is, it is still checked
    named = "In 1980, the oldest justice on the court had served for 41 years under William O. Douglas."
    text = named + " He was born on October 16, 1898."
    scripted.script["ClerkOutput"] = [
        {
            "claims": [
                {"sentence": 1, "claim": named},
                {"sentence": 2, "claim": "He was born on October 16, 1898."},
            ],
            "dropped": [],
        }
    ]
    scripted.script["ResolvedClaims"] = [{"claims": ["He was born on October 16, 1898."]}]
    result = factcourt.check(
        text, question="Who was the oldest justice in 1980?", model="scripted", corpus=corpus, cache=False
    )
    assert result["dropped"] == []
    first, second = result["claims"]
    assert (first["unresolved"], first["context"]) == ("", "")
    assert second["unresolved"] == "He" and second["context"] == named
    # the search sees the question and whom "He" stands for
    assert (
        second["queries"][0]
        == f"Who was the oldest justice in 1980? {named} He was born on October 16, 1898."
    )
    [label_prompt] = [p for n, p in scripted.calls if n == "Label" and "October 16" in p]
    assert "Who was the oldest justice in 1980?" in label_prompt
    assert "follows this sentence" in label_prompt and "William O. Douglas" in label_prompt


def test_a_rewrite_that_still_holds_a_reference_is_not_taken(scripted):
    scripted.script["ClerkOutput"] = [
        {
            "claims": [{"sentence": 1, "claim": "She won two Nobel Prizes."}],
            "dropped": [],
        }
    ]
    scripted.script["ResolvedClaims"] = [{"claims": ["She won two Nobel Prizes in total."]}]
    result = factcourt.check("She won two Nobel Prizes.", model="scripted", search="none", cache=False)
    # marked and checked as written, never against a guessed subject
    assert [(c["text"], c["unresolved"]) for c in result["claims"]] == [("She won two Nobel Prizes.", "She")]
    assert result["dropped"] == []


def test_skipped_sentences_are_asked_again_with_the_whole_text_as_context(scripted):
    scripted.script["ClerkOutput"] = [
        {"claims": [{"sentence": 1, "claim": "Marie Curie was born in Warsaw."}]},
        {"claims": [{"sentence": 2, "claim": "Marie Curie won two Nobel Prizes."}]},
    ]
    result = factcourt.check(
        "Marie Curie was born in Warsaw. She won two Nobel Prizes.",
        model="scripted",
        search="none",
        cache=False,
    )
    assert "Marie Curie won two Nobel Prizes." in [c["text"] for c in result["claims"]]
    again = [p for n, p in scripted.calls if n == "ClerkOutput"][1]
    assert "[1] Marie Curie was born in Warsaw." in again and again.endswith("[2] She won two Nobel Prizes.")


def test_clerk_bench_scores_self_contained_claims(scripted, tmp_path):
    from factcourt.bench.clerk import run
    from factcourt.bench.context import BenchContext

    fixture = tmp_path / "f.jsonl"
    rows = [
        {
            "response": "Ada Lovelace wrote notes. She was a mathematician.",
            "sentence": "She was a mathematician.",
            "expect": "Lovelace",
        },
        {
            "response": "It has the Colosseum.",
            "sentence": "It has the Colosseum.",
            "expect": "Rome",
        },
    ]
    fixture.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")

    def clerk(prompt):
        if "Ada" in prompt:
            return {"claims": [{"sentence": 2, "claim": "Ada Lovelace was a mathematician."}]}
        return {"claims": [{"sentence": 1, "claim": "It has the Colosseum."}]}

    scripted.script["ClerkOutput"] = [clerk]
    scripted.script["ResolvedClaims"] = [{"claims": ["It has it."]}]
    summary = run(fixture, BenchContext(model="scripted", cache=False))
    assert summary["self_contained_rate"] == 0.5
    assert [r["self_contained"] for r in summary["rows"]] == [True, False]


def test_a_sentence_that_yields_a_claim_is_not_also_listed_as_dropped(scripted):
    sentence = "The Eiffel Tower is located in Berlin."
    scripted.script["ClerkOutput"] = [
        {
            "claims": [{"sentence": 1, "claim": sentence}],
            "dropped": [{"sentence": 1, "reason": "opinion"}],
        }
    ]
    result = factcourt.check(sentence, model="scripted", search="none", cache=False)
    assert [c["text"] for c in result["claims"]] == [sentence] and result["dropped"] == []


def test_a_claim_without_a_word_is_dropped_not_checked(scripted):
    # the embedded model ended an answer with a stray backtick and the Clerk made it a claim,
    # which the first pass then called "supported"
    text = "秦始皇统一了六国。`"
    scripted.script["ClerkOutput"] = [
        {
            "claims": [
                {"sentence": 1, "claim": "秦始皇统一了六国。"},
                {"sentence": 2, "claim": "`"},
            ],
            "dropped": [],
        }
    ]
    result = factcourt.check(text, model="scripted", search="none", cache=False)
    assert [c["text"] for c in result["claims"]] == ["秦始皇统一了六国。"]
    assert result["dropped"] == [{"sentence": "`", "reason": "not_verifiable", "error": None}]


def test_a_claim_field_filled_with_a_label_gives_the_sentence_as_the_claim(scripted):
    # the embedded 1.5B Clerk answered "claim": "True" for each sentence of a leaderboard answer
    text = "Richard N. Haass is an American diplomat. He led the Council on Foreign Relations."
    scripted.script["ClerkOutput"] = [
        {
            "claims": [
                {"sentence": 1, "claim": "True"},
                {
                    "sentence": 2,
                    "claim": "Richard N. Haass led the Council on Foreign Relations.",
                },
            ],
            "dropped": [],
        }
    ]
    result = factcourt.check(text, model="scripted", search="none", cache=False)
    assert [c["text"] for c in result["claims"]] == [
        "Richard N. Haass is an American diplomat.",
        "Richard N. Haass led the Council on Foreign Relations.",
    ]


def test_a_claim_states_its_sentence_when_they_share_a_content_word():
    from factcourt.nodes.agents.clerk import states_its_sentence

    assert not states_its_sentence("True", "Haass is an American diplomat.")
    assert not states_its_sentence("对", "李白是唐代诗人。")
    assert states_its_sentence("Haass was born in 1951.", "He was born in 1951 in Brooklyn.") is True
    assert states_its_sentence("李白出生于701年。", "他出生于公元701年。")
    assert states_its_sentence("anything", "`")  # a sentence without words: the other guard drops it


def test_clerk_bench_decomposes_a_shared_text_once_and_rates_each_language(scripted, tmp_path):
    from factcourt.bench.clerk import run
    from factcourt.bench.context import BenchContext

    text = "Rome is old. It has the Colosseum. It was founded in 753 BC."
    rows = [
        {"response": text, "sentence": "It has the Colosseum.", "expect": "Rome"},
        {"response": text, "sentence": "It was founded in 753 BC.", "expect": "Rome"},
        {"response": "长城很长。它建于明朝。", "sentence": "它建于明朝。", "expect": "长城"},
    ]
    fixture = tmp_path / "f.jsonl"
    fixture.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows), encoding="utf-8")

    def clerk(prompt):
        sentences = ["Rome is old.", "It has the Colosseum.", "It was founded in 753 BC."]
        if "长城" in prompt:
            sentences = ["长城很长。", "它建于明朝。"]
        return {"claims": [{"sentence": n, "claim": s} for n, s in enumerate(sentences, 1)]}

    scripted.script["ClerkOutput"] = [clerk]
    summary = run(fixture, BenchContext(model="scripted", cache=False))
    assert summary["responses"] == 2 and summary["clerk_calls"] == 2
    # the scripted model reports 10 prompt tokens (4 cached) and 5 written a call
    assert (summary["prompt_tokens"], summary["cached_tokens"], summary["output_tokens"]) == (20, 8, 10)
    assert summary["by_language"] == {"en": {"items": 2, "rate": 1.0}, "zh": {"items": 1, "rate": 1.0}}


def test_the_long_fixture_holds_eight_texts_and_forty_dependent_sentences():
    long_fixture = Path(__file__).parents[1] / "fixtures" / "decontext_long.jsonl"
    rows = [json.loads(line) for line in long_fixture.read_text().splitlines()]
    texts = {r["response"] for r in rows}
    chinese = [r for r in rows if any("\u4e00" <= c <= "\u9fff" for c in r["sentence"])]
    assert len(texts) >= 8 and len(rows) >= 40 and chinese and len(chinese) < len(rows)


def test_the_clerk_names_sentences_by_number_and_each_claim_keeps_its_sentence_and_span(scripted):
    text = "Marie Curie was born in Warsaw. She won two Nobel Prizes. I think she is the greatest."
    scripted.script["ClerkOutput"] = [
        {
            "claims": [
                {"sentence": 1, "claim": "Marie Curie was born in Warsaw."},
                {"sentence": 2, "claim": "Marie Curie won two Nobel Prizes."},
            ],
            "dropped": [{"sentence": 3, "reason": "opinion"}],
        }
    ]
    result = factcourt.check(text, model="scripted", search="none", cache=False)
    [(_, prompt)] = [c for c in scripted.calls if c[0] == "ClerkOutput"]
    assert "[1] Marie Curie was born in Warsaw.\n[2] She won two Nobel Prizes.\n[3] I think" in prompt
    assert [(c["sentence"], text[slice(*c["span"])]) for c in result["claims"]] == [
        ("Marie Curie was born in Warsaw.", "Marie Curie was born in Warsaw."),
        ("She won two Nobel Prizes.", "She won two Nobel Prizes."),
    ]
    assert [(d["sentence"], d["reason"]) for d in result["dropped"]] == [
        ("I think she is the greatest.", "opinion")
    ]


def test_a_claim_is_given_the_sentence_it_shares_most_words_with_when_its_number_shares_none():
    from factcourt.nodes.agents.clerk import source_of

    sentences = ["Marie Curie was born in Warsaw.", "She won two Nobel Prizes.", "It was long ago."]
    assert source_of(3, "Marie Curie won two Nobel Prizes.", sentences) == 2  # shares nothing with 3
    assert source_of(2, "Marie Curie won two Nobel Prizes.", sentences) == 2
    # a resolved pronoun shares more words with the sentence before, yet the number stands
    assert source_of(2, "Marie Curie, born in Warsaw, won.", sentences) == 2
    assert source_of(3, "True", sentences) == 3  # a label: kept where it was named, then replaced
    assert source_of(7, "True", sentences) is None  # no such sentence: that sentence is asked again
    assert source_of(2, "Paris is in France.", ["Paris is in France.", "---"]) == 1


def test_a_number_beyond_the_text_names_no_sentence_so_the_sentence_is_asked_again(scripted):
    text = "The Eiffel Tower is in Paris. It is lovely."
    scripted.script["ClerkOutput"] = [
        {
            "claims": [{"sentence": 1, "claim": "The Eiffel Tower is in Paris."}],
            "dropped": [{"sentence": 5, "reason": "opinion"}],
        },
        {"claims": [], "dropped": [{"sentence": 2, "reason": "opinion"}]},
    ]
    result = factcourt.check(text, model="scripted", search="none", cache=False)
    assert scripted.count("ClerkOutput") == 2
    assert [c["text"] for c in result["claims"]] == ["The Eiffel Tower is in Paris."]
    assert [(d["sentence"], d["reason"]) for d in result["dropped"]] == [("It is lovely.", "opinion")]


def test_list_items_stay_apart_and_keep_their_own_spans_in_a_long_text(scripted):
    # chunks once joined their sentences with spaces: two list items became one sentence, and
    # a Paris claim took the span of the Berlin line
    items = [f"- City number {n} is in Europe" for n in range(60)]
    text = "Key facts:\n" + "\n".join(items) + "\n- Paris is the capital of France\n- Berlin is in Germany"
    result = factcourt.check(text, model="scripted", search="none", cache=False, max_claims=100)
    assert scripted.count("ClerkOutput") > 1  # more than one chunk
    paris = next(c for c in result["claims"] if "Paris" in c["text"])
    assert text[slice(*paris["span"])] == "- Paris is the capital of France"
    prompts = [p for n, p in scripted.calls if n == "ClerkOutput"]
    assert any("] - Paris is the capital of France\n[" in p for p in prompts)


def test_asked_again_what_the_clerk_says_of_other_sentences_is_not_taken_twice(scripted):
    text = "Marie Curie was born in Warsaw. She won two Nobel Prizes."
    scripted.script["ClerkOutput"] = [
        {"claims": [{"sentence": 1, "claim": "Marie Curie was born in Warsaw."}]},
        {
            "claims": [
                {"sentence": 1, "claim": "Marie Curie was born in Poland."},
                {"sentence": 2, "claim": "Marie Curie won two Nobel Prizes."},
            ]
        },
    ]
    result = factcourt.check(text, model="scripted", search="none", cache=False)
    assert [c["text"] for c in result["claims"]] == [
        "Marie Curie was born in Warsaw.",
        "Marie Curie won two Nobel Prizes.",
    ]


def test_a_chunk_whose_answer_was_cut_at_max_tokens_is_asked_again_in_halves(scripted):
    # asking the same chunk again is cut again; each half needs half the tokens
    import re

    from tests.fakes import cut_at_max_tokens

    def clerk(prompt):
        numbered = re.findall(r"^(?:<response>)?\[(\d+)\] (.+?)(?:</response>)?$", prompt, re.M)
        if len(numbered) > 2:
            return cut_at_max_tokens("{", 300, 512)
        return {"claims": [{"sentence": int(n), "claim": claim} for n, claim in numbered]}

    scripted.script["ClerkOutput"] = [clerk]
    text = "Paris is in France. Rome is in Italy. Oslo is in Norway. Bern is in Switzerland."
    result = factcourt.check(text, model="scripted", search="none", cache=False, retries=2)
    prompts = [p for n, p in scripted.calls if n == "ClerkOutput"]
    asked = [len(re.search(r"<response>(\[[^<]*)</response>", p)[1].splitlines()) for p in prompts]
    assert asked == [4, 2, 2]  # the cut answer is not asked again whole
    assert [text[slice(*c["span"])] for c in result["claims"]] == [
        "Paris is in France.",
        "Rome is in Italy.",
        "Oslo is in Norway.",
        "Bern is in Switzerland.",
    ]
    assert result["dropped"] == [] and result["usage"]["by_role"]["clerk"]["output_tokens"] == 512 + 2 * 5


def test_a_half_cut_again_keeps_its_sentences_whole_as_claims(scripted):
    # a Clerk that loops until max_tokens is cut on any chunk: halving stops at one level, and
    # no sentence is lost
    from tests.fakes import cut_at_max_tokens

    scripted.script["ClerkOutput"] = [cut_at_max_tokens("{\n\n\n", 300, 512)]
    text = " ".join(f"{city} is a city in Europe." for city in ["Paris", "Rome", "Oslo", "Bern", "Vienna"])
    result = factcourt.check(text, model="scripted", search="none", cache=False, retries=2)
    assert scripted.count("ClerkOutput") == 3  # the chunk, then its two halves
    assert [c["text"] for c in result["claims"]] == [
        f"{city} is a city in Europe." for city in ["Paris", "Rome", "Oslo", "Bern", "Vienna"]
    ]
    assert result["dropped"] == [] and result["usage"]["by_role"]["clerk"]["output_tokens"] == 3 * 512


def test_a_sentence_the_clerk_drops_is_checked_whole_when_it_names_something_or_holds_a_number(scripted):
    # seen on real answers (issue 52): facts dropped as "opinion" by a small Clerk
    from factcourt.nodes.agents.clerk import holds_a_fact

    assert holds_a_fact("So they both won the world championship in 2015 and 2019.")
    assert holds_a_fact("7. Sir Ranulph Fiennes - Explorer and adventurer.")
    for said in ("Sure!", '"', "I think Paris is lovely.", "You should visit Rome.", "7. Be kind."):
        assert not holds_a_fact(said), said
    scripted.script["ClerkOutput"] = [
        {
            "claims": [{"sentence": 1, "claim": "Brazil won the World Cup in 2002."}],
            "dropped": [{"sentence": 2, "reason": "opinion"}, {"sentence": 3, "reason": "opinion"}],
        }
    ]
    text = "Brazil won the World Cup in 2002. So they both won in 2015 and 2019. I love football."
    result = factcourt.check(text, model="scripted", search="none", cache=False)
    assert [c["text"] for c in result["claims"]][1] == "So they both won in 2015 and 2019."
    assert result["dropped"] == [{"sentence": "I love football.", "reason": "opinion", "error": None}]


def test_he_after_the_sentence_that_names_the_justice_is_the_justice(scripted):
    # the example: the rule resolves it, so the claim names whom it is about
    named = "In 1980, the oldest justice on the United States Supreme Court was Justice William O. Douglas."
    scripted.script["ClerkOutput"] = [
        {
            "claims": [
                {"sentence": 1, "claim": named},
                {"sentence": 2, "claim": "He was born on October 16, 1898."},
            ]
        }
    ]
    result = factcourt.check(
        named + " He was born on October 16, 1898.", model="scripted", search="none", cache=False
    )
    assert result["claims"][1]["text"] == "Justice William O. Douglas was born on October 16, 1898."
    assert result["claims"][1]["unresolved"] == ""
