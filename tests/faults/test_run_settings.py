"""A check's page names what decided its claims (issue 65, item 13).

Where the first pass decided every claim it said "Checked by auto (jury, rule free, ...)": no
jury sat. The settings a served run's page names are in tests/integration/test_served_runs.py.
"""

from factcourt.report.html import render
from factcourt.state.claims import CheckResult, CheckSettings, ClaimReport
from factcourt.state.records import Claim

SETTINGS = CheckSettings(protocol="jury", rule="free", search="local", model="sim", jurors=2, rounds=1)


def page(route: str) -> str:
    claim = ClaimReport(claim=Claim(id="c1", text="Paris is in France."), verdict="supported", route=route)
    return render(CheckResult(settings=SETTINGS, claims=[claim], response="Paris is in France."))


def test_a_check_the_first_pass_decided_names_no_jury():
    assert "Checked by sim (one reading a claim, search local)." in page("first_pass")


def test_a_debated_check_names_its_protocol_and_rule():
    assert "Checked by sim (jury, rule free, search local)." in page("debate")
