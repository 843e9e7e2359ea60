"""The page to check text in, its routes alone (the browser tests run it on a real server)."""

import json
import re
from pathlib import Path

from starlette.testclient import TestClient

from factcourt.report.page import CSP, app, settings_form

ROOT = Path(__file__).resolve().parents[2]
client = TestClient(app)


def test_langgraph_json_mounts_the_page_beside_the_graphs():
    config = json.loads((ROOT / "langgraph.json").read_text(encoding="utf-8"))
    module, name = config["http"]["app"].split(":")
    assert (ROOT / module).resolve() == ROOT / "factcourt/report/page.py" and name == "app"


def test_the_page_loads_nothing_from_the_network_and_names_its_policy():
    got = client.get("/ui")
    assert got.status_code == 200 and got.headers["content-security-policy"] == CSP
    assert "default-src 'none'" in CSP and "connect-src 'self'" in CSP
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", got.text), "nothing from elsewhere"
    assert "mark.v-supported" in got.text, "the report's own stylesheet"
    assert "innerHTML" not in got.text and "insertAdjacentHTML" not in got.text


def test_the_drawer_offers_the_person_settings_read_from_the_contexts():
    form = {s["name"]: s for s in settings_form()}
    assert set(form) == {"protocol", "rule", "jurors", "rounds", "search", "language", "max_concurrency"}
    assert form["protocol"]["choices"] == ["jury", "adversarial"] and form["protocol"]["modes"] == [
        "check",
        "verify",
    ]
    assert form["search"]["modes"] == ["check", "verify", "detect"] and "given" in form["search"]["choices"]
    assert form["jurors"]["kind"] == "number" and form["jurors"]["default"] == 2
    assert not {"model", "base_url", "corpus", "local_weights"} & set(form), "the deployer's, not the page's"


def test_a_partial_check_is_drawn_as_the_report_draws_it():
    text = "The Eiffel Tower is in Paris. <script>alert(1)</script>"
    claim = {"id": "c1", "text": "The Eiffel Tower is in Paris.", "span": [0, 29], "verdict": "supported"}
    result = {"response": text, "claims": [claim], "dropped": [], "scores": {}, "usage": None}
    got = client.post("/ui/report", json={"result": result, "kind": "check"})
    assert got.status_code == 200 and got.headers["content-security-policy"] == CSP
    assert "<script>alert(1)" not in got.text and "\\u003cscript\\u003ealert(1)" in got.text
    assert 'id="report-data"' in got.text and "factcourt check: 1 claims" in got.text


def test_a_bad_post_is_one_sentence():
    said = {
        "not json": client.post("/ui/report", content=b"{"),
        "no result": client.post("/ui/report", json={"kind": "check"}),
        "bad kind": client.post("/ui/report", json={"result": {}, "kind": "audit"}),
        "too big": client.post("/ui/report", content=b" " * 20_000_001),
    }
    assert {k: r.status_code for k, r in said.items()} == {
        "not json": 400,
        "no result": 400,
        "bad kind": 400,
        "too big": 413,
    }
    assert said["bad kind"].json() == {"detail": "kind must be one of check, verify, detect"}
