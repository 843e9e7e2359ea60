"""FACT-AUDIT's prompts (graph ``audit``), as a typed table: English only, as the paper's.

The words are in ``audit_en``.
"""

from dataclasses import dataclass

from factcourt.prompts import Pair
from factcourt.prompts import audit_en as en


@dataclass(frozen=True)
class AuditPrompts:
    """The auditor's prompts."""

    APPRAISER: Pair
    """The Appraiser's next test scenario (Fig 8)."""
    SCENARIO_JUDGE: Pair
    """Whether a proposed scenario fits the taxonomy (Fig 9)."""
    INQUIRER: Pair
    """The Inquirer's test cases (Fig 10)."""
    INSPECTOR: Pair
    """The Quality Inspector's check of the cases (Fig 11)."""
    WIKI_FAILURES: str
    """The evidence a Wikipedia search could not find, for the Inspector."""
    QUESTION: str
    """The one user turn the target and the reference answers get (Fig 12)."""
    REFERENCE_CHECK: Pair
    """The check of a reference answer (Fig 13)."""
    GRADER: Pair
    """The grader's comment and rating (Fig 14)."""
    PROBER: Pair
    """The Prober's new case, as the authors' code asks it (Fig 15)."""
    PROBER_PAPER: Pair
    """The Prober's new case as the paper prints it (``audit_prompts='paper'``)."""


EN = AuditPrompts(
    APPRAISER=Pair(en.AUDIT_APPRAISER_SYSTEM, en.AUDIT_APPRAISER_USER),
    SCENARIO_JUDGE=Pair(en.AUDIT_SCENARIO_JUDGE_SYSTEM, en.AUDIT_SCENARIO_JUDGE_USER),
    INQUIRER=Pair(en.AUDIT_INQUIRER_SYSTEM, en.AUDIT_INQUIRER_USER),
    INSPECTOR=Pair(en.AUDIT_INSPECTOR_SYSTEM, en.AUDIT_INSPECTOR_USER),
    WIKI_FAILURES=en.AUDIT_WIKI_FAILURES,
    QUESTION=en.AUDIT_QUESTION,
    REFERENCE_CHECK=Pair(en.AUDIT_REFERENCE_CHECK_SYSTEM, en.AUDIT_REFERENCE_CHECK_USER),
    GRADER=Pair(en.AUDIT_GRADER_SYSTEM, en.AUDIT_GRADER_USER),
    PROBER=Pair(en.AUDIT_PROBER_SYSTEM, en.AUDIT_PROBER_USER),
    PROBER_PAPER=Pair(en.AUDIT_PROBER_PAPER_SYSTEM, en.AUDIT_PROBER_PAPER_USER),
)
