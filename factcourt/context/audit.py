"""Settings of FACT-AUDIT (graph ``audit``): the audit's budgets, the agents' sampling, its seed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from factcourt.context.base import BaseContext, describe
from factcourt.errors import ConfigError

# FACT-AUDIT's paper values are the fields' defaults ('paper'); 'smoke' is a small audit that
# ends within 30 minutes on the embedded 1.5B model (about 10-17 s a call): per object 2
# scenarios of the initial taxonomy, 2 seeds + 1 probe each, at most 1 added scenario, one
# reference vote, one Quality Inspector pass: at most 150 calls for the three objects.
AUDIT_SCALES: dict[str, dict[str, Any]] = {
    # the paper's text where it departs from the authors' code: three [[Stop]]s, and Fig. 15's 10
    # examples, as it prints them, in the Prober's prompt; "code" keeps the authors' code
    "paper": {"audit_stops": 3, "audit_prober_examples": 10, "audit_prompts": "paper"},
    "code": {},
    "smoke": {
        "audit_initial_scenarios": 2,
        "audit_seeds": 2,
        "audit_cases_per_scenario": 3,
        "audit_scenario_cap": 3,
        "audit_reference_votes": 1,
        "audit_inspector_passes": 1,
        "audit_max_tokens": {
            "inquirer": 900,
            "inspector": 900,
            "prober": 500,
            "target": 384,
            "reference": 384,
        },
    },
}
# FACT-AUDIT's agents; 'target' is the model under audit
AUDIT_ROLES = (
    "appraiser",
    "scenario_judge",
    "inquirer",
    "inspector",
    "reference",
    "reference_check",
    "target",
    "grader",
    "prober",
)
AUDIT_TEMPERATURES = {
    "appraiser": 1.0,
    "scenario_judge": 0.0,
    "inquirer": 0.0,
    "inspector": 0.0,
    "reference": 1.0,
    "reference_check": 0.0,
    "target": 0.0,
    "grader": 0.0,
    "prober": 1.0,
}


@dataclass(kw_only=True)
class AuditContext(BaseContext):
    """Settings of one audit."""

    command: ClassVar[str] = "audit"
    model_roles: ClassVar[tuple[str, ...]] = AUDIT_ROLES

    audit_initial_scenarios: int = describe(
        "FACT-AUDIT: scenarios of the initial taxonomy audited per object, from its start; 0 = all "
        "(complex claim 9, fake news 9, social rumor 7).",
        0,
        ge=0,
    )
    audit_seeds: int = describe("FACT-AUDIT: seed test cases the Inquirer writes per scenario (k).", 10, ge=1)
    audit_cases_per_scenario: int = describe(
        "FACT-AUDIT: graded test cases per scenario, seeds included; the Prober writes the rest, "
        "asking at most twice this many (paper: 30).",
        30,
        ge=1,
    )
    audit_scenario_cap: int = describe(
        "FACT-AUDIT: most scenarios audited per object, added ones included (paper code: 16).", 16, ge=1
    )
    audit_rejections: int = describe(
        "FACT-AUDIT: the taxonomy stops growing after this many Appraiser proposals in a row are "
        "rejected by the scenario judge (or do not parse).",
        3,
        ge=1,
    )
    audit_stops: int = describe(
        "FACT-AUDIT: the taxonomy stops growing after the Appraiser says [[Stop]] this many times "
        "(the authors' code: 1; the paper's text: 3).",
        1,
        ge=1,
    )
    audit_reference_votes: int = describe(
        "FACT-AUDIT: auditor answers voted on for each case's reference answer, which the "
        "reference check then confirms or revises.",
        3,
        ge=1,
    )
    audit_inspector_passes: int = describe(
        "FACT-AUDIT: most Quality Inspector calls per batch of cases: one, and more while the "
        "Wikipedia check of [evidence] cases fails (paper code: 1 + 5 repairs).",
        6,
        ge=0,
    )
    audit_wiki_check: bool = describe(
        "FACT-AUDIT: check that [evidence] cases quote the corpus (half of each piece's words "
        "found in its search results) through the search backend; false: the Quality "
        "Inspector's own judgement only.",
        True,
    )
    audit_prober_examples: int = describe(
        "FACT-AUDIT: graded cases of the scenario the Prober is shown (the code's 5).", 5, ge=1
    )
    audit_prompts: Literal["code", "paper"] = describe(
        "FACT-AUDIT, the Prober's prompt: 'code' = the authors' code (each example with the "
        "target's answer and the grader's comment); 'paper' = Fig. 15 as printed (its preamble and "
        "nine guidelines, each example as prompt, key point and score only).",
        "code",
    )
    audit_bad_cases: int = describe(
        "FACT-AUDIT: bad cases (grade 3 or less) per scenario shown to the Appraiser.", 2, ge=0
    )
    audit_temperatures: dict[str, float] = describe(
        "FACT-AUDIT: sampling temperature per agent (the paper's): " + ", ".join(AUDIT_ROLES),
        factory=lambda: dict(AUDIT_TEMPERATURES),
    )
    audit_max_tokens: dict[str, int] = describe(
        "FACT-AUDIT: most tokens per answer of an agent; agents not named use max_tokens. The "
        "target's 1024 is the paper code's max_new_tokens.",
        factory=lambda: {
            "inquirer": 4096,
            "inspector": 4096,
            "prober": 1024,
            "target": 1024,
            "reference": 1024,
        },
    )
    audit_seed: int = describe(
        "FACT-AUDIT: seed of the random choices (the Prober's and the Appraiser's example cases).", 0
    )

    def validate(self) -> None:
        """The shared checks, then the budgets and the agents named in the per-agent settings."""
        super().validate()
        for name in ("audit_temperatures", "audit_max_tokens"):
            unknown = [r for r in getattr(self, name) if r not in AUDIT_ROLES]
            if unknown:
                raise ConfigError(f"{name}: unknown agent(s) {unknown}; choose from {list(AUDIT_ROLES)}")
        if any(not 0.0 <= t <= 2.0 for t in self.audit_temperatures.values()):
            raise ConfigError("audit_temperatures must be in [0, 2]")
        if any(n < 1 for n in self.audit_max_tokens.values()):
            raise ConfigError("audit_max_tokens must be at least 1")
