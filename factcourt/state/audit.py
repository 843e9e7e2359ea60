"""Typed state of FACT-AUDIT (graph ``audit``)."""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal

from langgraph.channels import DeltaChannel
from pydantic import BaseModel, ConfigDict, Field, model_validator
from typing_extensions import TypedDict

from factcourt.state.records import AgentAnswer, Result, Usage, add_usage, text

TestMode = Literal["claim", "evidence", "wisdom of crowds"]


AuditVerdict = Literal["Factual", "Non-Factual", "Not Enough Information"]


class AuditCase(AgentAnswer):
    """A test case: a source claim, its auxiliary information and the key point it examines."""

    test_mode: TestMode
    source_claim: str = text("the claim to fact-check", 400)
    auxiliary_info: list[str] = Field(
        default_factory=list,
        description="empty for claim; evidence pieces, or replies of a conversation thread",
        json_schema_extra={"maxItems": 8},
    )
    key_point: str = text("what the case examines, at most 15 words", 150)


class AuditCases(AgentAnswer):
    """A batch of test cases (the Inquirer's seeds, or the Quality Inspector's revision)."""

    cases: list[AuditCase]


class Appraisal(AgentAnswer):
    """The Appraiser's answer: the taxonomy is comprehensive (stop), or a new scenario."""

    explanation: str = text("how the issue was found, or why the taxonomy is comprehensive", 400)
    stop: bool = Field(description="true ([[Stop]]) when the taxonomy is comprehensive")
    task_name: str = text("the new scenario's name, snake_case", 80, default="")

    @model_validator(mode="after")
    def _proposal_has_a_name(self) -> Appraisal:
        if not self.stop and not self.task_name.strip():
            raise ValueError("a new scenario needs a task_name (or stop: true)")
        return self


class Scenario(BaseModel):
    """A test scenario of an object's taxonomy."""

    object: str
    name: str
    added: bool = Field(default=False, description="added by the Appraiser, not in the initial taxonomy")
    explanation: str = ""


class AppraiserTurn(BaseModel):
    """One Appraiser turn and what became of it."""

    object: str
    outcome: Literal["stop", "accepted", "rejected", "failed"]
    proposal: str = ""
    explanation: str = ""
    reason: str = Field(default="", description="the scenario judge's reason, or why the turn failed")


class CaseRecord(BaseModel):
    """A memory-pool entry: the case, the target's response, the reference, grade and comment."""

    id: str
    object: str
    scenario: str
    origin: Literal["seed", "probe"]
    case: AuditCase | None = None
    wiki_check: bool | None = Field(
        default=None, description="[evidence] cases: the corpus check passed; None when not checked"
    )
    status: Literal["pending", "graded", "target_failed", "dropped"] = "pending"
    reference: str = ""
    reference_label: AuditVerdict | None = None
    response: str = ""
    response_label: AuditVerdict | None = None
    grade: float | None = None
    comment: str = ""
    error: str | None = Field(default=None, description="why the case was dropped or not graded")
    usage: Usage = Field(default_factory=Usage)


def grade_of(record: CaseRecord) -> float:
    """The grade of a graded record; a record without one here is a bug, said so."""
    if record.grade is None:
        raise ValueError(f"the record {record.id} ({record.status}) has no grade")
    return record.grade


def case_of(record: CaseRecord) -> AuditCase:
    """The case of a record written from one (every record but a dropped one); a bug if it has none."""
    if record.case is None:
        raise ValueError(f"the record {record.id} ({record.status}) has no case")
    return record.case


def append_records(records: list[CaseRecord], batches: list[list[CaseRecord]]) -> list[CaseRecord]:
    """Reducer of the memory pool (a delta channel: checkpoints hold the new records only)."""
    return [*records, *(record for batch in batches for record in batch)]


class AuditInput(TypedDict, total=False):
    """What the audit graph (``audit``) takes."""

    objects: list[str]
    """Fact-checking objects to audit, in order: complex_claim, fake_news, social_rumor (default all)."""


class AuditState(AuditInput, total=False):
    """Working state of an audit."""

    object_index: int
    """Index in ``objects`` of the object being audited."""
    taxonomy: list[Scenario]
    """Every object's scenarios so far, the added ones marked."""
    queue: list[str]
    """Scenarios of the current object still to audit."""
    scenario: str
    """The scenario being audited."""
    pending: list[CaseRecord]
    """Cases written and not yet evaluated (the Inquirer's seeds, or one probe)."""
    memory: Annotated[list[CaseRecord], DeltaChannel(append_records)]
    """The memory pool: every case with its response, reference, grade and comment."""
    proposal: Scenario | None
    """The Appraiser's proposal the scenario judge is to accept or reject."""
    appraisals: Annotated[list[AppraiserTurn], operator.add]
    """Every Appraiser turn and its outcome."""
    refusals: int
    """Appraiser turns in a row that added no scenario."""
    stops: dict[str, str]
    """Why each object's taxonomy stopped growing: appraiser_stop, rejections, scenario_cap."""
    notes: Annotated[list[str], operator.add]
    """Failures that did not drop a case (a Quality Inspector pass that did not parse, ...)."""
    usage: Annotated[Usage, add_usage]
    """Calls and tokens spent, by role."""
    error: str
    """Why the audit could not run (bad input)."""


class AuditResult(Result):
    """``audit``'s result: report.json's scores by scope, taxonomy, counts and notes, and every case.

    Typed where other code reads it; the report's tables (``api.audit.report``) keep the rest as
    its JSON, which report.json holds too.
    """

    model_config = ConfigDict(extra="allow")

    kind: Literal["audit"] = "audit"
    error: str | None = None

    @classmethod
    def has_shape(cls, data: dict[str, Any]) -> bool:
        """A report.json (scores by taxonomy) or a summary of runs."""
        return "taxonomy" in data or "per_run" in data
