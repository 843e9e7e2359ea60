"""Each kind of HTML report, made from a scripted-model run, as a person sees it in headless Chromium.

Set FACTCOURT_SCREENSHOTS to a folder to keep the screenshots there too (docs/screenshots).
"""

import json
import os
import re
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import factcourt
from factcourt.cli import main
from factcourt.report import render
from factcourt.report.html import PAGE_CHARS

pytestmark = pytest.mark.integration

CHROMIUM = next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None)
playwright = pytest.importorskip(
    "playwright.sync_api", reason="playwright is not installed (pip install -e '.[dev]')"
)
if CHROMIUM is None:
    pytest.skip(
        "no Chromium installed (apt-get install chromium): browser tests skipped", allow_module_level=True
    )

EVIL_TEXT = "<script>window.xss = 'text'; alert('text')</script>"
EVIL_EVIDENCE = "<img src=x onerror=\"window.xss = 'evidence'\"><script>alert('evidence')</script>"
# The script stands after the sentences: inside one, the Clerk's defence against injected tags
# rewrites its '<' and the sentence is no longer found in the text to mark.
TEXT = (
    "The Eiffel Tower is in Paris. The Eiffel Tower is in Berlin. I think you should visit it. "
    f"The Moon is made of cheese. {EVIL_TEXT}"
)
# what the stylesheet paints each verdict's mark with
BACKGROUNDS = {
    "supported": "rgb(214, 245, 221)",
    "refuted": "rgb(253, 224, 220)",
    "hallucination": "rgb(253, 224, 220)",
}


def off_loop(run, *args, **kwargs):
    """Run a factcourt call in a thread: playwright's sync API holds an event loop in this one."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(run, *args, **kwargs).result()


@pytest.fixture(scope="module")
def browser():
    with playwright.sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield launched
        launched.close()


class Seen:
    """A page loaded the way a person opens the file, with every script error and dialog recorded."""

    def __init__(self, browser, path: Path | str, width: int = 1200):
        self.page = browser.new_page(viewport={"width": width, "height": 900})
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        self.page.goto(path.as_uri() if isinstance(path, Path) else path)  # a file, or a server's URL

    def clean(self) -> None:
        assert self.errors == [] and self.dialogs == []
        assert self.page.evaluate("window.xss") is None, "a text in the report ran as script"

    def shot(self, path: Path) -> None:
        self.page.screenshot(path=str(path))
        if folder := os.environ.get("FACTCOURT_SCREENSHOTS"):
            Path(folder).mkdir(parents=True, exist_ok=True)
            shutil.copy(path, Path(folder) / path.name)
        self.page.close()


def fits_a_phone(browser, path: Path) -> None:
    """At 390 px wide nothing runs off the side: long words wrap, wide tables scroll in their box."""
    phone = Seen(browser, path, width=390)
    assert phone.page.evaluate("document.scrollingElement.scrollWidth") <= 390
    phone.clean()
    phone.page.close()


def marks(page) -> list[dict]:
    return page.eval_on_selector_all(
        "mark",
        """ms => ms.map(m => ({cls: m.className.replace(' current', ''), text: m.lastChild.textContent,
                            icon: m.firstChild.textContent, bg: getComputedStyle(m).backgroundColor}))""",
    )


@pytest.fixture
def corpus_with_script(tmp_path):
    path = tmp_path / "corpus.jsonl"
    docs = [
        {
            "id": "eiffel",
            "title": "Eiffel <b>Tower</b>",
            "text": f"The Eiffel Tower is in Paris. {EVIL_EVIDENCE}",
        },
        {"id": "moon", "title": "Moon", "text": "The Moon is Earth's only natural satellite."},
    ]
    path.write_text("\n".join(json.dumps(d) for d in docs), encoding="utf-8")
    return str(path)


def label(prompt: str):
    if "cheese" in prompt:
        return RuntimeError("the model server went away")
    return {"verdict": "refuted" if "Berlin" in prompt else "supported"}


def test_check_marks_each_claim_at_its_place_and_opens_its_details(
    browser, tmp_path, scripted, corpus_with_script
):
    scripted.script["Label"] = [label]
    result = off_loop(
        factcourt.check, TEXT, model="scripted", search="local", corpus=corpus_with_script, cache=False
    )
    path = tmp_path / "check.html"
    path.write_text(factcourt.report_html(result), encoding="utf-8")
    seen = Seen(browser, path)
    shown = marks(seen.page)
    for c in (c for c in result["claims"] if c["span"]):
        start, end = c["span"]
        mark = next(m for m in shown if m["text"] == result["response"][start:end])
        verdict = c["verdict"] if c["error"] is None else "failed"
        assert mark["cls"] == f"v-{verdict}"
        if verdict in BACKGROUNDS:
            assert mark["bg"] == BACKGROUNDS[verdict]
    assert {m["cls"] for m in shown} >= {"v-supported", "v-refuted", "v-failed", "v-dropped"}
    assert [m["icon"] for m in shown if m["cls"] == "v-failed"] == ["⚠"], "a failed claim never looks checked"
    # the verdict icons stand between marks: a sentence with '<' is marked where it is written
    shown_text = re.sub("[✓✗⚠⇄–]", "", seen.page.inner_text(".text"))
    assert EVIL_TEXT in shown_text, "the script in the text is shown as text"
    assert "alert('text')" in seen.page.inner_text("table.claims"), "and in a claim"

    seen.page.click("mark.v-refuted")
    detail = seen.page.locator("#detail")
    assert detail.is_visible()
    assert "The Eiffel Tower is in Berlin" in detail.inner_text()
    assert "alert('evidence')" in detail.inner_text(), "the evidence, script and all, is shown as text"
    seen.page.keyboard.press("Escape")
    assert not detail.is_visible()
    seen.page.focus("mark.v-supported")  # the keyboard reaches every mark
    seen.page.keyboard.press("Enter")
    assert detail.is_visible() and "Paris" in detail.inner_text()
    seen.page.keyboard.press("Escape")
    assert seen.page.evaluate("document.activeElement.className").startswith("v-supported"), "focus returns"
    seen.page.keyboard.press("Tab")
    seen.page.keyboard.press(" ")
    assert detail.is_visible() and "Berlin" in detail.inner_text(), "Tab: the next mark; Space opens it"
    seen.clean()
    seen.shot(tmp_path / "check.png")

    phone = Seen(browser, path, width=390)
    phone.page.click("mark.v-refuted")
    assert phone.page.evaluate("document.scrollingElement.scrollWidth") <= 390, "nothing overflows a phone"
    assert phone.page.locator("#detail").is_visible()
    phone.clean()
    phone.shot(tmp_path / "check-phone.png")


def test_a_20_mb_text_opens_on_its_first_page_and_pages_on(browser, tmp_path):
    sentence = "The Eiffel Tower is in Paris and it was completed in 1889 for the fair. "
    text = sentence * (20_000_000 // len(sentence))
    far = 3_000 * len(sentence)  # some pages on
    claims = [
        {"id": "c1", "text": sentence.strip(), "span": [0, len(sentence) - 1], "verdict": "refuted"},
        {
            "id": "c2",
            "text": sentence.strip(),
            "span": [far, far + len(sentence) - 1],
            "verdict": "supported",
        },
    ]
    path = tmp_path / "big.html"
    path.write_text(
        render({"claims": claims, "dropped": [], "scores": {}, "response": text}), encoding="utf-8"
    )
    seen = Seen(browser, path)
    assert seen.page.inner_text(".page-no").startswith("page 1 of ")
    assert len(seen.page.inner_text(".text")) < 25_000, "only one page is drawn"
    seen.page.click("[data-page='1']")
    assert seen.page.inner_text(".page-no").startswith("page 2 of ")
    seen.page.click("[data-page='-1']")
    seen.page.click("mark.v-refuted")
    assert seen.page.locator("#detail").is_visible()
    seen.page.click("table.claims button:text('c2')")  # from the table: the text turns to its page
    assert seen.page.inner_text(".page-no").startswith(f"page {far // PAGE_CHARS + 1} of ")
    assert seen.page.locator("mark.current.v-supported").count() == 1
    seen.clean()
    seen.page.close()


def test_verify_shows_the_claim_its_evidence_and_the_debate(browser, tmp_path, scripted, corpus_with_script):
    result = off_loop(
        factcourt.verify,
        "The Eiffel Tower is in Paris.",
        model="scripted",
        search="local",
        corpus=corpus_with_script,
        cache=False,
    )
    path = tmp_path / "verify.html"
    path.write_text(factcourt.report_html(result), encoding="utf-8")
    seen = Seen(browser, path)
    body = seen.page.inner_text("main")
    assert "The Eiffel Tower is in Paris." in body and "Who decided" in body
    seen.clean()
    seen.shot(tmp_path / "verify.png")
    fits_a_phone(browser, path)


def test_detect_marks_the_hallucinated_span(browser, tmp_path):
    question = f"Who wrote Hamlet? {EVIL_TEXT}"
    answer = "Christopher Marlowe wrote Hamlet."
    result = off_loop(factcourt.detect, question, answer, model="sim", search="none", cache=False)
    path = tmp_path / "detect.html"
    path.write_text(factcourt.report_html(result), encoding="utf-8")
    seen = Seen(browser, path)
    (mark,) = marks(seen.page)
    assert mark["cls"] == "v-hallucination" and mark["bg"] == BACKGROUNDS["hallucination"]
    assert mark["text"] == result["findings"][0]["span"]
    seen.page.click("mark")
    assert result["findings"][0]["type"] in seen.page.inner_text("#detail")
    seen.clean()
    seen.shot(tmp_path / "detect.png")
    fits_a_phone(browser, path)


def sorts(seen) -> None:
    """Clicking a header sorts its table (the first table with a numeric column)."""
    header = seen.page.locator("table.sortable th button").first
    header.click()
    assert seen.page.locator("table.sortable th").first.get_attribute("aria-sort") == "ascending"


@pytest.mark.parametrize("kind", ["leaderboard", "audit", "bench"])
def test_folder_reports_show_their_tables_and_plots(browser, tmp_path, kind):
    out, page = tmp_path / kind, tmp_path / f"{kind}.html"
    common = ["--model", "sim", "--search", "none", "--out", str(out), "--html", str(page)]
    argv = {
        "leaderboard": ["leaderboard", "--prompts", str(Path(__file__).parent.parent / "fixtures" /
                        "longform_prompts.jsonl"), "--targets", "sim", "--experts", "sim", "--limit", "1"],
        "audit": ["audit", "--target-model", "sim", "--scale", "smoke", "--objects", "fake_news"],
        "bench": ["bench", "run", "--dataset", str(tmp_path / "claims.jsonl"), "--methods", "single,plain"],
    }[kind]  # fmt: skip
    rows = [{"id": f"c{i}", "claim": f"Claim {i} about Paris.", "label": i % 2 == 0} for i in range(4)]
    (tmp_path / "claims.jsonl").write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    off_loop(main, [*argv, *common])
    seen = Seen(browser, page)
    assert seen.page.locator("table.sortable").count() >= 1
    assert seen.page.locator("img[src^='data:image/png;base64,']").count() >= 1, "the plot is inline"
    sorts(seen)
    seen.clean()
    seen.shot(tmp_path / f"{kind}.png")
    fits_a_phone(browser, page)
