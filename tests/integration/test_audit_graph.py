"""A tiny ``audit`` (FACT-AUDIT) on the embedded llama.cpp path with SmolLM2, auditor = target."""

import pytest

import factcourt
from factcourt.providers import local_server

pytestmark = pytest.mark.integration


def test_tiny_audit_on_the_embedded_model(smollm2):
    """SmolLM2-135M proves the plumbing, not the audit: seeds, inspection, reference, target and
    grader run on the real server, and every case is graded or says why it is not."""
    result = factcourt.audit(
        ["social_rumor"],
        local_weights=str(smollm2),
        cache=False,
        search="none",
        audit_initial_scenarios=1,
        audit_seeds=1,
        audit_cases_per_scenario=1,
        audit_scenario_cap=1,
        audit_reference_votes=1,
        audit_inspector_passes=1,
        audit_stops=1,  # the authors' code's values: the paper's three stops and ten examples cost minutes
        audit_prober_examples=5,
        max_tokens=256,
        audit_max_tokens={"inquirer": 400, "inspector": 400, "target": 256, "reference": 256},
        retries=0,
    )
    local_server.stop_all()
    assert result["models"]["self_audit"] is True
    assert result["usage"]["calls"] >= 1 and result["usage"]["input_tokens"] > 0
    assert result["stops"] == {"social_rumor": "scenario_cap"}
    # the seed (or the Inquirer's failure as one dropped entry), and a probe if it was not graded:
    # the budget is of graded cases, at most twice it asked
    cases = result["cases"]
    assert len(cases) == (1 if cases[0]["status"] == "graded" else 2)
    for case in cases:
        if case["status"] == "graded":
            assert 1 <= case["grade"] <= 10 and case["comment"] and case["response"]
        else:
            assert case["error"], "a case neither graded nor explained"
    assert result["overall"]["n"] == result["counts"]["graded"]
    assert local_server._current is None
