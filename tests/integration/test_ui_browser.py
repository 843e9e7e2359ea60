"""The page to check text in (``factcourt ui``), as a person uses it in headless Chromium.

One ``langgraph dev`` for the module, serving the graphs and the page (langgraph.json's ``http.app``),
on the simulated model with a delay per call, so a run takes long enough to be watched and stopped.
Set FACTCOURT_SCREENSHOTS to a folder to keep screenshots of the page mid-run and finished there.
"""

import asyncio
import json
import os
import re
import time
from pathlib import Path

import pytest
from langgraph_sdk import get_client
from markupsafe import escape

# the report's browser tests: the same Chromium (or the same skip), the same watched tab
from tests.integration import langgraph_server, test_html_browser
from tests.integration.test_html_browser import EVIL_EVIDENCE, EVIL_TEXT, Seen, off_loop, playwright

browser = test_html_browser.browser  # the fixture: one Chromium for the module
pytestmark = pytest.mark.integration
expect = playwright.expect

CORPUS = [
    {
        "id": "eiffel",
        "title": "Eiffel <b>Tower</b>",
        "text": f"The Eiffel Tower is in Paris. {EVIL_EVIDENCE}",
    },
    {"id": "moon", "title": "Moon", "text": "The Moon is Earth's only natural satellite."},
    {"id": "everest", "title": "Everest", "text": "Mount Everest is in Asia."},
]
TEXT = "The Eiffel Tower is in Paris. The Moon is Earth's only natural satellite. Mount Everest is in Asia."
WAIT_MS = 120_000  # a loaded machine runs the server slowly: the waits are bounds, not timings


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The page's server; the model and corpus are the deployer's (FACTCOURT_SERVER_SETTINGS)."""
    folder = tmp_path_factory.mktemp("ui-server")
    corpus = folder / "corpus.jsonl"
    corpus.write_text("\n".join(json.dumps(d) for d in CORPUS), encoding="utf-8")
    settings = folder / "settings.json"
    settings.write_text(json.dumps({"model": "sim:1", "corpus": str(corpus), "search": "local"}))
    env = {
        "FACTCOURT_CACHE_DIR": str(folder / "cache"),
        "FACTCOURT_SERVER_SETTINGS": str(settings),
    }
    with langgraph_server(folder, env, ready_timeout_s=300) as url:
        yield url


class Page(Seen):
    """The page opened in a tab from the server, with every script error and dialog recorded."""

    def __init__(self, browser, server: str, width: int = 1200):
        super().__init__(browser, f"{server}/ui", width)
        self.page.set_default_timeout(WAIT_MS)
        self.report = self.page.frame_locator("#report")

    def start(self, text: str, mode: str = "check", **settings: str) -> None:
        self.page.check(f'input[name="mode"][value="{mode}"]')
        self.page.fill("#text", text)
        if settings:
            self.page.click(".settings summary")
            for name, value in settings.items():
                if self.page.get_attribute(f"#set-{name}", "data-number") is not None:
                    self.page.fill(f"#set-{name}", value)
                else:
                    self.page.select_option(f"#set-{name}", value)
        self.page.click("#start")

    def marks(self) -> int:
        return self.report.locator("mark").count()

    def finished(self) -> None:
        # a predicate in the page would be eval, which the page's policy forbids: a locator waits
        self.page.locator("#progress", has_text=re.compile("^Finished")).wait_for()

    def message(self) -> str:
        self.page.wait_for_selector("#message:not([hidden])")
        return self.page.inner_text("#message")

    def clean(self) -> None:
        super().clean()
        frame = self.page.frame(url="about:srcdoc")
        assert frame is None or frame.evaluate("window.xss") is None, "a text ran as script in the report"

    def keep(self, name: str) -> None:
        if folder := os.environ.get("FACTCOURT_SCREENSHOTS"):
            Path(folder).mkdir(parents=True, exist_ok=True)
            self.page.screenshot(path=str(Path(folder) / name))


def run_status(server: str, thread: str) -> tuple[str, list[str]]:
    async def read():
        client = get_client(url=server)
        return (await client.threads.get(thread))["status"], [
            r["status"] for r in await client.runs.list(thread)
        ]

    return off_loop(asyncio.run, read())


def test_marks_come_one_by_one_then_details_downloads_and_reopening(browser, server, tmp_path):
    page = Page(browser, server)
    page.start(TEXT, max_concurrency="1")
    marks = page.report.locator("mark")
    for count in (1, 2):  # each verdict redraws the report with one mark more, while the run goes on
        expect(marks).to_have_count(count, timeout=WAIT_MS)  # polled in the page, frame by frame
        assert not page.page.inner_text("#progress").startswith("Finished")
        if count == 1:
            page.keep("ui-running.png")
    page.finished()
    assert page.marks() == 3
    assert "3 of 3 claims done" in page.page.inner_text("#progress")
    page.keep("ui-finished.png")

    # the keyboard reaches a mark in the report and opens its evidence
    page.report.locator("mark").first.focus()
    page.page.keyboard.press("Enter")
    detail = page.report.locator("#detail")
    detail.wait_for(state="visible")
    assert "The Eiffel Tower is in Paris" in detail.inner_text()
    assert "Evidence" in detail.inner_text()
    assert "<script>alert('evidence')</script>" in detail.inner_text(), "evidence is shown as text"

    with page.page.expect_download() as got:
        page.page.click("#dl-json")
    result = json.loads(Path(got.value.path()).read_text(encoding="utf-8"))
    assert [c["verdict"] for c in result["claims"]] == ["supported"] * 3
    with page.page.expect_download() as got:
        page.page.click("#dl-html")
    html = Path(got.value.path()).read_text(encoding="utf-8")
    assert html.startswith("<!doctype html>") and "Content-Security-Policy" in html
    assert all(escape(c["text"]) in html for c in result["claims"]), "the claims' table, whole"
    page.clean()

    # a new visit lists the run and reopens it whole
    again = Page(browser, server)
    again.page.locator("#recent button", has_text=TEXT[:80]).first.click()
    again.page.locator("#dl-json:enabled").wait_for()
    assert again.marks() == 3
    again.clean()


def test_stop_cancels_the_run_on_the_server_and_keeps_what_finished(browser, server):
    page = Page(browser, server)
    long_text = " ".join(f"Fact number {n} is about the Moon." for n in range(40))
    page.start(long_text, max_concurrency="1")
    page.report.locator("mark").first.wait_for()
    page.page.click("#stop")
    assert "Stopped on the server" in page.message()
    thread = page.page.get_attribute("#run", "data-thread")
    status, runs = run_status(server, thread)
    deadline = time.monotonic() + WAIT_MS / 1000  # the cancel is asked without waiting: the status follows
    while runs == ["running"] and time.monotonic() < deadline:
        time.sleep(0.2)
        status, runs = run_status(server, thread)
    assert runs == ["interrupted"] and status != "busy", (status, runs)
    kept = page.marks()
    assert 1 <= kept < 40
    page.page.wait_for_timeout(1500)
    assert page.marks() == kept, "nothing more came after the stop"
    assert page.page.inner_text("#progress").startswith("Stopped")
    page.clean()


def test_bad_inputs_are_told_on_the_page(browser, server, tmp_path):
    page = Page(browser, server)
    page.page.click("#start")
    assert "nothing to check" in page.message()

    latin1 = tmp_path / "latin1.txt"
    latin1.write_bytes("Caf\xe9 au lait is French.".encode("latin-1"))
    page.page.set_input_files("#file", str(latin1))
    expect(page.page.locator("#message")).to_contain_text("latin1.txt is not UTF-8 text")
    utf8 = tmp_path / "ok.md"
    utf8.write_text("Café au lait is French.", encoding="utf-8")
    page.page.set_input_files("#file", str(utf8))
    expect(page.page.locator("#text")).to_have_value("Café au lait is French.")

    page.start("x" * 100_001)
    said = page.message()
    assert said.startswith("The run failed: ") and "limit is 100,000" in said, said

    page.start(TEXT, jurors="0")  # the server's own validation, as a sentence
    said = page.message()
    assert said == "The run failed: Jurors must be between 1 and 6, not 0.", said

    page.start("Paris is in France.", mode="detect")
    assert "needs the question" in page.message()
    assert page.errors == [] or all("Failed to load resource" in e for e in page.errors), page.errors
    assert page.dialogs == []


def test_a_script_in_the_text_or_the_evidence_never_runs(browser, server):
    page = Page(browser, server, width=390)  # a phone's width
    assert page.page.evaluate("document.scrollingElement.scrollWidth") <= 390
    page.start(f"The Eiffel Tower is in Paris. {EVIL_TEXT}", max_concurrency="1")
    page.finished()
    assert EVIL_TEXT in page.report.locator(".text").inner_text()
    page.page.check('input[name="mode"][value="verify"]')
    page.page.fill("#evidence", f"The Moon orbits the Earth. {EVIL_EVIDENCE}")
    page.start("The Moon orbits the Earth.", mode="verify")
    page.finished()
    assert "<script>alert('evidence')</script>" in page.report.locator("body").inner_text()
    page.clean()
