"""The Refiner: the report, with the label, the hallucination types, their spans and evidence."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from factcourt.context.hallucination import HallucinationContext
from factcourt.nodes.hallucination.protocol import (
    clip,
    final_label,
    first_round_label,
    p_no_hallucination,
    team_said,
    teams_of_round,
)
from factcourt.nodes.hallucination.team_turn import item_fields
from factcourt.nodes.helpers import emit, fence
from factcourt.prompts import conversation
from factcourt.prompts.hallucination import table
from factcourt.providers.models import ask
from factcourt.state.hallucination import (
    HallucinationFinding,
    HallucinationReport,
    HallucinationState,
    HaluConclusion,
    RefinerAnswer,
)

ROUND_CHARS = 300


def failures(state: HallucinationState) -> list[str]:
    """One note per failed call (gathering, agent, team, judge) or knowledge set aside, in order."""
    teams = state.get("teams", [])
    team_calls = {(t.round, t.team) for t in teams if t.by == "team_call"}
    notes = list(state.get("gather_notes", []))
    notes += [
        f"round {v.round}: the {v.team} {v.role} agent failed: {v.failed}"
        for v in state.get("views", [])
        if v.failed and (v.round, v.team) not in team_calls  # a team call's views share its failure
    ]
    notes += [
        f"round {t.round}: the {t.team} team call failed: {t.failed}"
        for t in teams
        if t.failed and t.by == "team_call"
    ]
    notes += [
        f"round {t.round}: the {t.team} Comprehensive agent failed (its agents' vote stands): {t.failed}"
        for t in teams
        if t.failed and t.by == "vote"
    ]
    if state.get("judge_error"):
        notes.append(f"{state['judge_error']}; the debate ended there, with the last good state")
    return notes


def transcript(state: HallucinationState) -> str:
    """Every round: both teams' conclusions and the judge's ruling (its J_t, and Q_t where measured)."""
    lines = []
    rulings = {j.round: j for j in state.get("judgements", [])}
    for round_ in sorted({t.round for t in state.get("teams", [])}):
        for team, result in teams_of_round(state.get("teams", []), round_).items():
            if result is not None:
                lines.append(
                    f"Round {round_} {team}: {result.conclusion}: "
                    f"{fence(team_said(result, state.get('views', []), ROUND_CHARS))}"
                )
        if ruling := rulings.get(round_):
            # Eq. 18: the Refiner reads J_t and, where it was measured, Q_t
            quality = f", Q_t {ruling.quality:.2f}" if ruling.quality is not None else ""
            lines.append(
                f"Round {round_} judge: winner {ruling.winner}, {ruling.scored} {ruling.dispute:.2f}"
                f"{quality}: {fence(clip(ruling.reasoning, ROUND_CHARS))}"
            )
    return "\n".join(lines) or "(no round was completed)"


def _verbatim(span: str, *texts: str) -> bool:
    needle = " ".join(span.lower().split())
    return bool(needle) and any(needle in " ".join(t.lower().split()) for t in texts)


async def refiner(state: HallucinationState, runtime: Runtime[HallucinationContext]) -> dict[str, Any]:
    """Write the report; the label comes from the judge, both teams or the agents' vote, never a guess."""
    ctx = runtime.context
    rounds = max((t.round for t in state.get("teams", [])), default=0)
    if error := state.get("error"):
        report = HallucinationReport(error=error, stop_reason="failed")
        emit("verdict", claim_id="answer", verdict=None)
        return {"report": report}
    judgements = state.get("judgements", [])
    views, teams = state.get("views", []), state.get("teams", [])
    label, decided_by = final_label(
        judgements, views, teams, ctx.hallucination_judge, ctx.hallucination_weights
    )
    notes = failures(state)
    last = judgements[-1] if judgements else None
    measured = [j.quality for j in judgements if j.quality is not None]
    if decided_by == "teams":
        assert last is not None  # the teams overrule a ruling of the judge
        notes.append(
            f"both teams concluded the opposite of the judge's last ruling ({last.winner}); theirs stands"
        )
    base: dict[str, Any] = {
        "decided_by": decided_by,
        "winner": last.winner if last else None,
        "first_round_label": first_round_label(
            judgements, views, teams, ctx.hallucination_judge, ctx.hallucination_weights
        ),
        "rounds": rounds,
        "stop_reason": "judge_failed" if state.get("judge_error") else state.get("stop_reason", ""),
        "dispute": last.dispute if last else None,
        "quality": round(sum(measured) / len(measured), 4) if measured else None,  # Q_final (Eq. 3)
        "p_no_hallucination": p_no_hallucination(last, decided_by),
        "notes": notes,
    }
    if label is None:
        # one sentence: the first failure; every one is in the notes (nine agents failing alike
        # repeated one endpoint's reason nine times)
        first = notes[0] if notes else "no reason given"
        more = f" (and {len(notes) - 1} more failures, in the notes)" if len(notes) > 1 else ""
        report = HallucinationReport(**base, error=f"no agent and no judge gave a conclusion: {first}{more}")
        emit("verdict", claim_id="answer", verdict=None)
        return {"report": report}
    verdict: HaluConclusion = "no_hallucination" if label == 1 else "hallucination"
    answer = await ask(
        ctx,
        "refiner",
        RefinerAnswer,
        conversation(
            table(state["language"]).REFINER,
            **item_fields(state["question"], state["answer"], state.get("knowledge", [])),
            rounds=transcript(state),
            verdict=verdict,
        ),
        run_name="refiner",
        tags=["system:hallucination", "role:refiner"],
    )
    # the judge's reasoning argues the other label when the teams overruled it
    decisive = teams_of_round(teams, last.round)["pro"] if last and decided_by == "teams" else None
    findings, explanation = [], decisive.analysis if decisive else (last.reasoning if last else "")
    if answer.value is None:
        notes.append(f"the refiner failed, so the report lists no types: {answer.error}")
    else:
        explanation = answer.value.explanation
        findings = [
            HallucinationFinding(
                **f.model_dump(), verbatim=_verbatim(f.span, state["answer"], state["question"])
            )
            for f in answer.value.findings
        ]
        if label == 1 and findings:
            # a type found in an answer the debate cleared would contradict the label the
            # report leads with (the 1.5B refiner listed "logical" at 1.0 on such reports)
            notes.append(
                f"the refiner listed {len(findings)} hallucination type(s) although the debate found "
                "none; they are left out"
            )
            findings = []
    report = HallucinationReport(
        **base, label=label, verdict=verdict, findings=findings, explanation=explanation
    )
    emit("verdict", claim_id="answer", verdict=verdict)
    return {"report": report, "usage": answer.usage}
