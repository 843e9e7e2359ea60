"""Verdict probabilities read from the answer's token log-probabilities."""

import math

import pytest

from factcourt.providers.logprobs import label_distribution
from factcourt.state.records import VERDICTS


def tok(text: str, alts: dict[str, float] | None = None) -> dict:
    alts = alts or {text: 0.0}
    return {
        "token": text,
        "logprob": alts.get(text, 0.0),
        "top_logprobs": [{"token": t, "logprob": lp} for t, lp in alts.items()],
    }


def answer(verdict_tokens: list[dict]) -> list[dict]:
    return [
        tok('{"'),
        tok("explanation"),
        tok('":"'),
        tok("It holds."),
        tok('","'),
        tok("verdict"),
        tok('":"'),
    ] + [
        *verdict_tokens,
        tok('"}'),
    ]


def test_alternatives_at_the_first_verdict_token_give_the_distribution():
    first = tok("supported", {"supported": math.log(0.6), "ref": math.log(0.3), "not": math.log(0.1)})
    dist = label_distribution(answer([first]), "verdict", VERDICTS)
    assert dist is not None
    assert abs(dist["supported"] - 0.6) < 1e-9 and abs(dist["refuted"] - 0.3) < 1e-9
    assert abs(dist["not_enough_evidence"] - 0.1) < 1e-9 and dist["conflicting_evidence"] == 0.0


def test_mass_outside_the_labels_is_left_out_and_the_rest_normalised():
    first = tok("ref", {"ref": math.log(0.2), "sup": math.log(0.2), "France": math.log(0.6)})
    dist = label_distribution(answer([first, tok("uted")]), "verdict", VERDICTS)
    assert abs(dist["refuted"] - 0.5) < 1e-9 and abs(dist["supported"] - 0.5) < 1e-9


def test_a_token_that_also_holds_the_opening_quote_is_read_after_the_quote():
    tokens = [
        tok('{"verdict'),
        tok('":'),
        tok(' "s', {' "s': math.log(0.7), ' "re': math.log(0.3)}),
        tok("upported"),
    ]
    tokens.append(tok('"}'))
    dist = label_distribution(tokens, "verdict", VERDICTS)
    assert abs(dist["supported"] - 0.7) < 1e-9 and abs(dist["refuted"] - 0.3) < 1e-9


def test_no_logprobs_or_no_field_or_no_label_mass_gives_none():
    assert label_distribution(None, "verdict", VERDICTS) is None
    assert label_distribution([tok('{"a":"b"}')], "verdict", VERDICTS) is None
    first = tok("France", {"France": 0.0})
    assert label_distribution(answer([first]), "verdict", VERDICTS) is None


def test_the_key_inside_the_explanation_text_is_not_taken_for_the_field():
    tokens = [tok('{"explanation":"the'), tok(" verdict"), tok(' is odd","verdict":"'), tok("refuted")]
    tokens.append(tok('"}'))
    dist = label_distribution(tokens, "verdict", VERDICTS)
    assert dist["refuted"] == 1.0


def test_the_judges_winner_confidence_follows_confidence_source():
    from factcourt.context.base import BaseContext
    from factcourt.nodes.helpers import read_confidence

    tokens = [
        tok('{"'),
        tok("winner"),
        tok('":"'),
        tok("pro", {"pro": math.log(0.7), "con": math.log(0.3)}),
        tok('"}'),
    ]
    judge = {"field": "winner", "labels": ("pro", "con", "uncertain")}
    probabilities, confidence = read_confidence(BaseContext(), tokens, "pro", 0.95, **judge)
    assert confidence == probabilities["pro"] == pytest.approx(0.7)
    stated = BaseContext(confidence_source="reported")
    assert read_confidence(stated, tokens, "pro", 0.95, **judge)[1] == 0.95
    assert read_confidence(BaseContext(), None, "pro", 0.95, **judge) == (None, 0.95)
