"""The claim court's pages: a check's text with each claim's verdict marked, a verified claim."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from factcourt.report.html import MARKS, VERDICT_MARKS, data_json, locate, marked_pages, safe_url
from factcourt.state.claims import CheckResult, ClaimReport, Edit, VerifyResult
from factcourt.state.records import Turn


def claim_view(claim: ClaimReport, edits: list[Edit] | None = None) -> dict[str, Any]:
    """One claim's card: its verdict's mark, its debate by round, its evidence's safe links, its edits."""
    rounds: dict[int, list[Turn]] = {}
    for turn in claim.transcript:
        rounds.setdefault(turn.round, []).append(turn)
    return {
        **dict(claim),
        "mark": claim.mark,
        "rounds_seen": sorted(rounds.items()),
        "links": [safe_url(e.url or "") for e in claim.evidence],
        "edits": edits or [],
    }


def check_view(result: CheckResult, folder: Path | None = None) -> dict[str, Any]:
    """A check's page: the text with each claim's verdict marked, the claims, drops and scores."""
    text = result.response
    edits: dict[str, list[Edit]] = {}
    for edit in result.correction.edits if result.correction else []:
        edits.setdefault(edit.claim_id, []).append(edit)
    claims = [claim_view(c, edits.get(c.id)) for c in result.claims]
    marks = []
    for k, c in enumerate(claims):
        if c["span"]:
            start, end = c["span"]
            marks.append((start, end, c["mark"], k, f"{c['id']}: {MARKS[c['mark']][1]}"))
    taken = sorted((s, e) for s, e, *_ in marks)
    dropped: list[dict[str, Any]] = []
    for d in result.dropped:
        mark = "failed" if d.reason == "clerk_failed" else "dropped"
        detail = len(claims) + len(dropped)
        dropped.append({**dict(d), "mark": mark, "detail": detail})
        if where := locate(text, d.sentence, taken):
            marks.append((*where, mark, detail, f"{MARKS[mark][1]} ({d.reason})"))
    counts = {m: sum(c["mark"] == m for c in claims) for m in VERDICT_MARKS}
    counts["dropped"] = sum(d["mark"] == "dropped" for d in dropped)
    counts["failed"] += sum(d["mark"] == "failed" for d in dropped)
    return {
        "result": result,
        "claims": claims,
        "dropped": dropped,
        "counts": counts,
        "unchecked": [k for k, c in enumerate(claims) if c["mark"] == "not_enough_evidence"],
        "precision": result.scores.get("precision"),
        "correction": result.correction,
        "data": data_json({"marked": {"text": marked_pages(text, marks)}}),
    }


def verify_view(result: VerifyResult, folder: Path | None = None) -> dict[str, Any]:
    """A verified claim's page: its verdict, debate and evidence."""
    return {"claim": claim_view(result), "data": None}
