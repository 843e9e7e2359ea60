"""The trained reader: its numpy forward pass, the shipped file, its chunks and when it abstains."""

import json

import numpy as np
import pytest

import factcourt
from factcourt.context.claims import ClaimsContext
from factcourt.nodes.claims.abstain import abstain_reason, missing_names, unaddressed_by_search
from factcourt.nodes.claims.reader_reading import reads_trained
from factcourt.providers import reader
from factcourt.state.records import Evidence

EIFFEL_PAGE = (
    "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, France. It is "
    "named after the engineer Gustave Eiffel, whose company designed and built the tower from 1887 "
    "to 1889."
)
PEARL_HARBOR = (
    "The attack on Pearl Harbor was a surprise military strike by the Imperial Japanese Navy Air "
    "Service upon the United States naval base at Pearl Harbor in Honolulu, Territory of Hawaii, "
    "on December 7, 1941."
)
JOSEPHUS = "Flavius Josephus was a first-century Roman-Jewish historian and military leader."


def test_the_numpy_reader_computes_what_transformers_computes(tmp_path):
    """The shipped reader runs without torch: its forward pass must be BERT's to the last digits."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from factcourt.reader_training import save

    torch.manual_seed(0)
    model = transformers.BertForSequenceClassification.from_pretrained(str(reader.base_dir()), num_labels=3)
    model.eval()
    path = tmp_path / "r.safetensors"
    save(model, path, {})
    tok = reader.tokenizer()
    encodings = [tok.encode("The Eiffel Tower is in Paris.", EIFFEL_PAGE), tok.encode("Obama.", JOSEPHUS)]
    width = max(len(e.ids) for e in encodings)
    ids, types, mask = (np.zeros((2, width), dtype=np.int64) for _ in range(3))
    for row, e in enumerate(encodings):
        ids[row, : len(e.ids)], types[row, : len(e.ids)], mask[row, : len(e.ids)] = e.ids, e.type_ids, 1
    with torch.no_grad():
        expected = model(
            input_ids=torch.tensor(ids), token_type_ids=torch.tensor(types), attention_mask=torch.tensor(mask)
        ).logits.numpy()
    got = reader.Encoder(path).logits(ids, types, mask)
    assert np.abs(expected - got).max() < 5e-3  # int8 rows: the only difference


STATED = "The Eiffel Tower is in Paris."  # what its page says in other words


def test_the_shipped_reader_supports_what_its_page_says_in_other_words_and_refutes_a_swapped_place():
    """The first pilot read this as not addressed (.45): it had learned to spot copies, not support."""
    [reading] = reader.read_chunks(STATED, [EIFFEL_PAGE])
    assert reading.probabilities["supported"] > 0.8
    [swapped] = reader.read_chunks("The Eiffel Tower is in Rome.", [EIFFEL_PAGE])
    assert swapped.probabilities["refuted"] > 0.8


def test_the_shipped_reader_says_passages_about_something_else_do_not_address_a_claim():
    claim = "Obama was born in Honolulu, Hawaii, to a mother from Kansas and a father from Kenya."
    readings = reader.read_chunks(claim, [JOSEPHUS])
    assert max(readings[0].probabilities, key=readings[0].probabilities.get) == "not_addressed"


def test_the_shipped_file_says_how_it_was_made():
    about = reader.encoder(reader.SHIPPED).about
    assert about["data_sha256"] and about["command"].startswith("factcourt train-reader")
    assert set(about["slopes"]) == {"given", "own_page", "searched"}
    assert reader.SHIPPED.stat().st_size < 20_000_000


def test_evidence_is_packed_into_chunks_in_order_and_long_pieces_are_cut():
    short = reader.chunks(["One.", "Two."])
    assert short == [("One.\nTwo.", (0, 1))]
    long = " ".join(["word"] * (reader.CHUNK_TOKENS + 50))
    packed = reader.chunks([long, "Tail."])
    assert len(packed) == 2 and packed[0][1] == (0,) and packed[1][1] == (0, 1)
    assert packed[1][0].endswith("Tail.")


def test_the_deciding_chunk_is_the_one_that_speaks_most_clearly():
    quiet = reader.ChunkReading({"supported": 0.2, "refuted": 0.1, "not_addressed": 0.7}, (0,))
    loud = reader.ChunkReading({"supported": 0.1, "refuted": 0.8, "not_addressed": 0.1}, (1,))
    assert reader.deciding([quiet, loud]) is loud
    assert reader.deciding([]) is None


def test_missing_names_are_the_claims_names_and_numbers_no_passage_mentions():
    evidence = [Evidence(text=PEARL_HARBOR, title="Attack on Pearl Harbor")]
    claim = "Obama was born in Honolulu, Hawaii, in 1961."
    assert missing_names(claim, evidence) == ["Obama", "1961"]


def _ctx(**settings):
    return ClaimsContext(search="local", cache=False, **settings)


def test_a_claim_is_not_checked_where_the_evidence_does_not_address_it():
    evidence = [Evidence(text=PEARL_HARBOR), Evidence(text=JOSEPHUS)]
    claim = "Obama was born in Honolulu to a mother from Kansas."
    why = abstain_reason(_ctx(), claim, evidence, p_true=0.03, p_silent=0.9)
    assert why == 'the passages found do not mention "Obama" or "Kansas" (P(not addressed) 0.90)'


def test_an_uncertain_reading_of_searched_evidence_is_no_verdict_but_given_evidence_decides():
    evidence = [Evidence(text=EIFFEL_PAGE)]
    claim = "The Eiffel Tower is in Paris."
    why = abstain_reason(_ctx(verdict_bar=0.75), claim, evidence, p_true=0.6, p_silent=0.1)
    assert why == "the reading was uncertain (P(true) 0.60, below the bar of 0.75)"
    assert abstain_reason(_ctx(verdict_bar=0.75), claim, evidence, p_true=0.8, p_silent=0.1) is None
    given = ClaimsContext(search="given", cache=False, verdict_bar=0.75)
    assert abstain_reason(given, claim, evidence, p_true=0.6, p_silent=0.1) is None


def test_no_evidence_and_disagreeing_passages_are_reasons_too():
    assert abstain_reason(_ctx(), "X is Y.", [], p_true=0.9, p_silent=None) == "no evidence was found for it"
    evidence = [Evidence(text="X is Y."), Evidence(text="X is not Y.")]
    why = abstain_reason(_ctx(), "X is Y.", evidence, p_true=0.9, p_silent=0.1, disagree=True)
    assert why and "disagree" in why


def test_the_trained_reader_reads_when_asked_and_by_default_over_the_offline_wikipedia_search():
    assert reads_trained(ClaimsContext(reader="trained", search="given", cache=False))
    assert reads_trained(ClaimsContext(search="local", cache=False))  # reader 'auto'
    assert not reads_trained(ClaimsContext(search="given", cache=False))
    assert not reads_trained(ClaimsContext(search="local", corpus="docs", cache=False))  # a user's corpus
    assert not reads_trained(ClaimsContext(reader="llm", search="local", cache=False))


def test_verify_with_the_trained_reader_decides_without_a_model_call():
    evidence = [Evidence(text=EIFFEL_PAGE, title="Eiffel Tower")]
    result = factcourt.verify(STATED, evidence=evidence, cache=False, reader="trained")
    assert result["verdict"] == "supported", result["unchecked_reason"]
    assert result["usage"]["calls"] == 0
    assert result["first_pass"]["citations"] == [1]
    raw = result["first_pass"]["raw_probabilities"]
    assert set(raw) == {"supported", "refuted", "not_enough_evidence"}
    assert json.loads(result.model_dump_json())["unchecked_reason"] is None


def test_verify_says_why_a_claim_could_not_be_checked():
    evidence = [Evidence(text=JOSEPHUS, title="Josephus")]
    claim = "Obama was born in Honolulu, Hawaii, to a mother from Kansas and a father from Kenya."
    result = factcourt.verify(claim, evidence=evidence, cache=False, reader="trained")
    assert result["verdict"] == "not_enough_evidence"
    assert "does not mention" in result["unchecked_reason"] and "Obama" in result["unchecked_reason"]


def test_a_searched_claim_no_passage_of_its_own_pages_addresses_is_not_read():
    found = [
        Evidence(text=PEARL_HARBOR, title="Attack on Pearl Harbor"),
        Evidence(text=JOSEPHUS, title="Josephus"),
    ]
    claim = "Obama was born in Honolulu, Hawaii, to a mother from Kansas and a father from Kenya."
    why = unaddressed_by_search(_ctx(), claim, found)
    assert why == (
        "none of the passages found comes from a page the claim names (found: Attack on Pearl "
        'Harbor, Josephus); they do not mention "Obama", "Kansas" or "Kenya"'
    )
    own = [Evidence(text=EIFFEL_PAGE, title="Eiffel Tower")]
    assert unaddressed_by_search(_ctx(), "The Eiffel Tower is in Paris.", own) is None
    given = ClaimsContext(search="given", cache=False)
    assert unaddressed_by_search(given, claim, found) is None  # evidence you give is always read
    # a user's corpus titles documents by file name: the rule was measured on Wikipedia's titles
    mine = ClaimsContext(search="local", corpus="notes.jsonl", cache=False)
    assert unaddressed_by_search(mine, claim, found) is None


def test_a_reader_trained_here_is_read_in_place_of_the_shipped_one(monkeypatch, tmp_path):
    assert reader.in_use() == reader.SHIPPED
    monkeypatch.setenv("FACTCOURT_READER", str(tmp_path / "mine.safetensors"))
    assert reader.in_use() == tmp_path / "mine.safetensors"


def test_the_claim_sets_batches_weigh_every_set_and_every_class_alike():
    from collections import Counter

    from factcourt.reader_training import _balanced

    rows = [{"source": "big", "label": "supported"}] * 90 + [{"source": "big", "label": "refuted"}] * 10
    rows += [{"source": "small", "label": "refuted"}] * 5
    drawn = Counter(
        (rows[i]["source"], rows[i]["label"]) for batch in _balanced(rows, 16, 500, 0) for i in batch
    )
    assert abs(drawn["small", "refuted"] / 8000 - 0.5) < 0.03
    assert (
        abs(drawn["big", "supported"] / 8000 - 0.25) < 0.03
        and abs(drawn["big", "refuted"] / 8000 - 0.25) < 0.03
    )


def test_the_fit_trains_on_every_row_then_the_sets_and_a_second_run_takes_up_both_checkpoints(tmp_path):
    pytest.importorskip("torch")
    from factcourt.reader_training import train

    rows = [{"claim": STATED, "evidence": EIFFEL_PAGE, "label": "supported", "source": "corpus"}] * 3
    rows += [{"claim": "Obama.", "evidence": JOSEPHUS, "label": "not_addressed", "source": "corpus"}]
    rows += [
        {"claim": "The Eiffel Tower is in Rome.", "evidence": EIFFEL_PAGE, "label": "refuted", "source": "a"}
    ]
    rows += [{"claim": STATED, "evidence": EIFFEL_PAGE, "label": "supported", "source": "b"}]
    (tmp_path / "train.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    said: list[str] = []
    out = tmp_path / "r.safetensors"
    train(tmp_path, out, epochs=1, batch_size=2, set_steps=2, exclude=("b",), progress=said.append)
    assert out.exists() and out.with_suffix(".ckpt").exists() and out.with_suffix(".sets.ckpt").exists()
    assert reader.encoder(out).about["excluded"] == ["b"]
    train(tmp_path, out, epochs=1, batch_size=2, set_steps=2, exclude=("b",), progress=said.append)
    assert [line for line in said if "resumed" in line] == [
        "r.ckpt: resumed at step 3 of 3",  # the five rows not left out, two a batch
        "r.sets.ckpt: resumed at step 2 of 2",
    ]
