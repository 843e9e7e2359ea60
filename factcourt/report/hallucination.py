"""IMPD-MACD's page: the question and answer with the hallucinations marked, the debate's rounds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from factcourt.report.html import data_json, locate, marked_pages, safe_url
from factcourt.state.hallucination import AgentView, DetectResult, TeamRound


def detect_view(result: DetectResult, folder: Path | None = None) -> dict[str, Any]:
    """A detection's page: the question and answer with the hallucinations marked, the debate's rounds."""
    texts = {"question": result.question, "answer": result.answer}
    findings = [{**dict(f), "detail": k, "placed": None} for k, f in enumerate(result.findings)]
    marks: dict[str, list[tuple[int, int, str, int, str]]] = {"question": [], "answer": []}
    taken: dict[str, list[tuple[int, int]]] = {"question": [], "answer": []}
    for f in findings:
        words = f"{f['type'].replace('_', ' ')} hallucination (p {f['probability']:.2f})"
        for part in ("answer", "question"):  # a false premise is in the question
            if where := locate(texts[part], f["span"], taken[part]):
                marks[part].append((*where, "hallucination", f["detail"], words))
                f["placed"] = part
                break
    judgements = {j.round: j for j in result.judgements}
    teams: dict[int, dict[str, TeamRound]] = {}
    for t in result.teams:
        teams.setdefault(t.round, {})[t.team] = t
    views: dict[int, list[AgentView]] = {}
    for v in result.transcript:
        views.setdefault(v.round, []).append(v)
    rounds = [
        {"round": r, "teams": teams.get(r, {}), "judgement": judgements.get(r), "views": views.get(r, [])}
        for r in sorted({*judgements, *teams, *views})
    ]
    label = result.label
    mark = "failed" if label is None else "supported" if label == 1 else "hallucination"
    return {
        "result": result,
        "findings": findings,
        "rounds": rounds,
        "mark": mark,
        "knowledge": [{**dict(e), "link": safe_url(e.url or "")} for e in result.knowledge],
        "data": data_json({"marked": {p: marked_pages(texts[p], marks[p]) for p in ("question", "answer")}}),
    }
