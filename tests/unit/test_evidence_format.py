"""How the knowledge base is shown to the agents: the prompt's budget is shared by the pieces shown."""

from factcourt.nodes.helpers import EVIDENCE_BUDGET, EVIDENCE_SHOWN, format_evidence
from factcourt.state.records import Evidence


def piece(text: str, n: int = 1) -> Evidence:
    return Evidence(title=f"T{n}", url=f"u{n}", text=text)


def test_one_given_passage_is_shown_whole_up_to_the_budget():
    # HaluEval's knowledge is one passage of up to ~1000 characters; its last sentence often
    # carries the fact that decides the item (who operates a prison, a station's number).
    passage = "Filler sentence about the prison. " * 18 + "It is operated by the Federal Bureau of Prisons."
    assert 400 < len(passage) < EVIDENCE_BUDGET
    shown = format_evidence([piece(passage)])
    assert "operated by the Federal Bureau of Prisons." in shown
    assert "…" not in shown


def test_a_passage_over_the_budget_is_cut_with_a_mark():
    shown = format_evidence([piece("word " * 1000)])
    body = shown.split(": ", 1)[1]
    assert len(body) == EVIDENCE_BUDGET
    assert body.endswith("…")


def test_many_pieces_share_the_budget_and_only_the_latest_are_shown():
    pieces = [piece(f"{n} " + "x" * 1000, n) for n in range(EVIDENCE_SHOWN + 2)]
    shown = format_evidence(pieces).splitlines()
    assert len(shown) == EVIDENCE_SHOWN
    assert shown[0].startswith("[E3] T2 (u2): 2 ")
    assert sum(len(line.split(": ", 1)[1]) for line in shown) <= EVIDENCE_BUDGET


def test_room_short_pieces_leave_goes_to_the_long_one():
    pieces = [piece("Short snippet one.", 1), piece("x" * 3000, 2), piece("Short snippet two.", 3)]
    shown = format_evidence(pieces).splitlines()
    assert shown[0] == "[E1] T1 (u1): Short snippet one." and shown[2] == "[E3] T3 (u3): Short snippet two."
    assert len(shown[1].split(": ", 1)[1]) == EVIDENCE_BUDGET - 2 * len("Short snippet one.")


def test_short_pieces_are_shown_as_they_are():
    assert format_evidence([piece("Paris is in France.")]) == "[E1] T1 (u1): Paris is in France."
    assert format_evidence([]) == "(none yet)"
