"""The page to check text in, its routes alone (the browser tests run it on a real server)."""

import json
import re
from pathlib import Path

from starlette.testclient import TestClient

from factcourt.serving.page import CSP, app, settings_form

ROOT = Path(__file__).resolve().parents[2]
client = TestClient(app, base_url="http://127.0.0.1")  # the server answers loopback names only


def test_langgraph_json_mounts_the_page_beside_the_graphs():
    config = json.loads((ROOT / "langgraph.json").read_text(encoding="utf-8"))
    module, name = config["http"]["app"].split(":")
    assert (ROOT / module).resolve() == ROOT / "factcourt/serving/page.py" and name == "app"


def test_the_page_loads_nothing_from_the_network_and_names_its_policy():
    got = client.get("/ui")
    assert got.status_code == 200 and got.headers["content-security-policy"] == CSP
    assert "default-src 'none'" in CSP and "connect-src 'self'" in CSP
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", got.text), "nothing from elsewhere"
    assert "mark.v-supported" in got.text, "the report's own stylesheet"
    assert "innerHTML" not in got.text and "insertAdjacentHTML" not in got.text
    assert "document.getElementById(id)" in got.text and "&#34;" not in got.text, "the script as written"


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
    result = {"response": text, "claims": [claim], "dropped": [], "scores": {}}  # as ui.js's soFar()
    got = client.post("/ui/report", json={"result": result, "kind": "check"})
    assert got.status_code == 200 and got.headers["content-security-policy"] == CSP
    assert "<script>alert(1)" not in got.text and "\\u003cscript\\u003ealert(1)" in got.text
    assert 'id="report-data"' in got.text and "factcourt check: 1 claims" in got.text
    assert "Checked by" not in got.text, "a run's settings arrive with its result: none yet, none shown"


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


def test_factcourt_ui_serves_the_page_with_the_model_as_the_deployer_sets_it(monkeypatch, tmp_path, capsys):
    import contextlib

    from factcourt.cli import main
    from factcourt.providers.local_server import free_port
    from factcourt.serving import server

    deployer = tmp_path / "settings.json"
    deployer.write_text(json.dumps({"search": "local", "model": "gpt-4o-mini"}), encoding="utf-8")
    monkeypatch.setenv("FACTCOURT_SERVER_SETTINGS", str(deployer))
    started, opened = [], []

    @contextlib.contextmanager
    def fake_server(port, *, env, log, ready_timeout_s):
        started.append((port, json.loads(Path(env["FACTCOURT_SERVER_SETTINGS"]).read_text())))
        yield f"http://127.0.0.1:{port}"

    def stop(seconds):
        raise KeyboardInterrupt  # the person's Ctrl-C

    monkeypatch.setattr(server, "running_langgraph_dev", fake_server)
    monkeypatch.setattr(server.webbrowser, "open", opened.append)
    monkeypatch.setattr(server.time, "sleep", stop)
    port = free_port()
    assert main(["ui", "--model", "sim", "--port", str(port)]) == 130
    assert started == [(port, {"search": "local", "model": "sim"})]
    assert opened == [f"http://127.0.0.1:{port}/ui"]
    assert f"The page: http://127.0.0.1:{port}/ui" in capsys.readouterr().out


def test_factcourt_ui_killed_stops_its_server_too(monkeypatch):
    """The server runs in a session of its own: a kill of the command alone would leave it running."""
    import contextlib
    import os
    import signal

    import pytest

    from factcourt.cli import main
    from factcourt.serving import server

    stopped = []

    @contextlib.contextmanager
    def fake_server(port, *, env, log, ready_timeout_s):
        try:
            yield f"http://127.0.0.1:{port}"
        finally:
            stopped.append(port)

    monkeypatch.setattr(server, "running_langgraph_dev", fake_server)
    monkeypatch.setattr(server.time, "sleep", lambda seconds: os.kill(os.getpid(), signal.SIGTERM))
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(SystemExit) as exited:
        main(["ui", "--no-browser"])
    assert exited.value.code == 128 + signal.SIGTERM and len(stopped) == 1
    assert signal.getsignal(signal.SIGTERM) is before, "the handler is the command's only while it serves"
