"""The HTML report: what each kind of result shows, and that no text in it is read as HTML."""

import json
import re
import time

import pytest

import factcourt
from factcourt.cli import main
from factcourt.errors import InputError
from factcourt.report import kind_of, render
from factcourt.report.html import PAGE_CHARS, marked_pages

EVIL = "<script>alert('x')</script>"


def claim(cid, text, span, verdict, **extra):
    base = {
        "id": cid,
        "text": text,
        "sentence": text,
        "span": list(span) if span else None,
        "verdict": verdict,
        "justification": "",
        "votes": {},
        "confidence": None,
        "p_true": None,
        "p_true_raw": None,
        "route": "first_pass",
        "first_pass": None,
        "first_round_verdict": None,
        "rounds": 0,
        "transcript": [],
        "summaries": [],
        "evidence": [],
        "queries": [],
        "usage": {"calls": 1, "input_tokens": 1, "output_tokens": 1, "search_calls": 0},
        "error": None,
        "language_not_covered": None,
    }
    return base | extra


def check_result():
    """A check with every verdict, a failed claim, a dropped sentence and a correction.

    The emoji first: it is one code point in Python and two UTF-16 units in the browser.
    """
    parts = [
        "😀 Paris is in France.",
        "The Eiffel Tower is in Berlin.",
        f"Mars has {EVIL} two moons.",
        "Pluto is a planet.",
        "Coffee is healthy.",
        "The Moon is cheese.",
        "I think you should visit.",
    ]
    text = " ".join(parts)
    at = lambda s: (text.index(s), text.index(s) + len(s))  # noqa: E731
    claims = [
        claim(
            "c1", "Paris is in France.", at("Paris is in France."), "supported", p_true=0.91, p_true_raw=0.97
        ),
        claim(
            "c2",
            "The Eiffel Tower is in Berlin.",
            at(parts[1]),
            "refuted",
            route="debate",
            votes={"Evaluator 1": "refuted", "Evaluator 2": "refuted"},
            rounds=1,
            transcript=[
                {
                    "speaker": "Evaluator 1",
                    "round": 1,
                    "verdict": "refuted",
                    "confidence": 0.8,
                    "text": "E1 says Paris.",
                    "citations": [1],
                    "failed": None,
                    "rejected_change": None,
                },
            ],
            evidence=[
                {
                    "text": f"The tower is in Paris. {EVIL}",
                    "url": "https://example.org/eiffel",
                    "title": "Eiffel",
                    "source": "local",
                    "query": "Eiffel Tower",
                },
                {
                    "text": "A trap.",
                    "url": "javascript:alert(1)",
                    "title": "trap",
                    "source": "local",
                    "query": "",
                },
            ],
        ),
        claim("c3", f"Mars has {EVIL} two moons.", at(parts[2]), "not_enough_evidence"),
        claim("c4", "Pluto is a planet.", at(parts[3]), "conflicting_evidence"),
        claim("c5", "Coffee is healthy.", at(parts[4]), None, error="the model server went away"),
        claim("c6", "The Moon is cheese.", at(parts[5]), "supported", error="a late failure"),
        claim("c7", "Somewhere else.", None, "supported"),
    ]
    return {
        "question": "",
        "claims": claims,
        "dropped": [{"sentence": parts[6], "reason": "instruction", "error": None}],
        "scores": {"precision": 0.25, "supported": 1, "refuted": 1},
        "usage": {"calls": 9, "input_tokens": 90, "output_tokens": 9, "search_calls": 1},
        "correction": {
            "text": text.replace("Berlin", "Paris"),
            "edits": [
                {"original": "Berlin", "replacement": "Paris", "span": None, "claim_id": "c2", "evidence": []}
            ],
            "failed": [],
        },
        "settings": {"model": "scripted", "protocol": "jury", "rule": "free", "search": "local"},
        "response": text,
    }


def data_of(page):
    found = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', page, re.S)
    return json.loads(found.group(1))


def marked(segments):
    return [(s[0], s[1], s[2]) for s in segments if not isinstance(s, str)]


def test_each_claim_marks_its_span_with_its_verdict_and_failed_claims_never_pass():
    result = check_result()
    page = render(result)
    (segments,) = data_of(page)["marked"]["text"]
    assert "".join(s if isinstance(s, str) else s[0] for s in segments) == result["response"]
    by_text = {text: (mark, ids) for text, mark, ids in marked(segments)}
    assert by_text["Paris is in France."] == ("supported", [0])
    assert by_text["The Eiffel Tower is in Berlin."] == ("refuted", [1])
    assert by_text[f"Mars has {EVIL} two moons."] == ("not_enough_evidence", [2])
    assert by_text["Pluto is a planet."] == ("conflicting_evidence", [3])
    assert by_text["Coffee is healthy."] == ("failed", [4])
    assert by_text["The Moon is cheese."][0] == "failed", "an error wins over a verdict"
    assert by_text["I think you should visit."] == ("dropped", [7])
    assert 'data-count="failed">2<' in page and 'data-count="supported">2<' in page
    assert "(not found in the text)" in page  # c7 has no span: listed, not marked
    assert ">0.25<" in page  # the precision on top


def test_every_text_is_escaped_and_no_link_runs_script():
    page = render(check_result())
    assert "<script>alert" not in page
    assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in page  # the evidence and claims, escaped
    assert "\\u003cscript\\u003e" in page  # the text, in the JSON block
    assert 'href="https://example.org/eiffel"' in page
    assert 'href="javascript:' not in page and ">javascript:alert(1)</span>" in page  # text, not a link
    assert len(re.findall(r"<script\b", page)) == 2  # the data block and the page's own script


def test_a_closing_tag_in_the_data_cannot_end_its_block():
    result = check_result() | {"response": "a </script><script>alert(1)</script> <!-- b"}
    page = render(result)
    block = page.split('id="report-data">', 1)[1].split("</script>", 1)[0]
    (segments,) = json.loads(block)["marked"]["text"]
    assert (
        "<" not in block
        and "".join(s if isinstance(s, str) else s[0] for s in segments) == result["response"]
    )


def test_overlapping_claims_show_every_detail_and_the_worst_verdict():
    text = "Paris is in France and Berlin."
    pages = marked_pages(text, [(0, 30, "supported", 0, "c1"), (0, 30, "refuted", 1, "c2")])
    assert pages == [[[text, "refuted", [0, 1], "c1; c2"]]]
    pages = marked_pages(text, [(0, 30, "supported", 0, "c1"), (12, 30, "refuted", 1, "c2")])
    assert marked(pages[0]) == [("Paris is in ", "supported", [0]), ("France and Berlin.", "refuted", [0, 1])]
    assert marked_pages(text, [(5, 99, "refuted", 0, "bad span")]) == [[text]]


def test_detail_shows_votes_evidence_correction_and_probabilities():
    page = render(check_result())
    detail = page.split('<template id="d1">', 1)[1].split("</template>", 1)[0]
    assert "Evaluator 1" in detail and "refuted" in detail and "E1 says Paris." in detail
    assert "Berlin</del>" in detail and "Paris</ins>" in detail
    first = page.split('<template id="d0">', 1)[1].split("</template>", 1)[0]
    assert "0.91" in first and "0.97" in first
    dropped = page.split('<template id="d7">', 1)[1].split("</template>", 1)[0]
    assert "instruction" in dropped


def test_a_20_mb_text_is_paged_and_made_quickly():
    sentence = "The Eiffel Tower is in Paris and it was completed in 1889 for the fair. "
    text = sentence * (20_000_000 // len(sentence))
    claims = [
        claim(f"c{k}", sentence.strip(), (k * len(sentence), (k + 1) * len(sentence) - 1), "supported")
        for k in range(0, 270_000, 300)
    ]
    started = time.monotonic()
    page = render({"claims": claims, "dropped": [], "scores": {}, "response": text})
    assert time.monotonic() - started < 30
    pages = data_of(page)["marked"]["text"]
    assert len(pages) == pytest.approx(len(text) / PAGE_CHARS, rel=0.05)
    assert max(sum(len(s if isinstance(s, str) else s[0]) for s in p) for p in pages) <= PAGE_CHARS
    assert (
        "".join(s if isinstance(s, str) else s[0] for s in pages[0] + pages[1])
        == text[: len("".join(s if isinstance(s, str) else s[0] for s in pages[0] + pages[1]))]
    )


def verify_result():
    return claim(
        "c1",
        f"Hamlet was written by Marlowe {EVIL}.",
        None,
        "refuted",
        route="debate",
        rounds=1,
        transcript=[
            {
                "speaker": "Affirmative",
                "round": 1,
                "verdict": None,
                "confidence": 0.5,
                "text": "Maybe.",
                "citations": [],
                "failed": None,
                "rejected_change": None,
            }
        ],
        summaries=[
            {
                "round": 1,
                "summary": "Both spoke.",
                "new_insights": False,
                "gaps": "",
                "stop": True,
                "verdict": "refuted",
                "justification": "Shakespeare wrote it.",
            }
        ],
    )


def test_verify_shows_the_debate_and_the_moderators_verdict():
    page = render(verify_result())
    assert kind_of(verify_result()) == "verify"
    assert "The moderator decided after round 1." in page and "Shakespeare wrote it." in page
    assert "Affirmative" in page and "<script>alert" not in page


def detect_result():
    return {
        "question": "Who wrote Hamlet?",
        "answer": f"Christopher Marlowe wrote Hamlet {EVIL} in 1600.",
        "label": 0,
        "verdict": "hallucination",
        "decided_by": "judge",
        "winner": "con",
        "rounds": 1,
        "stop_reason": "consensus",
        "dispute": 0.1,
        "p_no_hallucination": 0.1,
        "findings": [
            {
                "type": "factual",
                "probability": 0.8,
                "span": "Christopher Marlowe",
                "verbatim": True,
                "evidence": "No.",
            },
            {"type": "logical", "probability": 0.3, "span": "not in it", "verbatim": False, "evidence": EVIL},
        ],
        "explanation": "Shakespeare did.",
        "notes": [],
        "error": None,
        "knowledge": [
            {"text": "Hamlet is by Shakespeare.", "url": "https://example.org/h", "title": "Hamlet"}
        ],
        "sub_questions": [],
        "queries": [],
        "transcript": [
            {
                "team": "pro",
                "role": "logic",
                "round": 1,
                "analysis": "Fine.",
                "conclusion": "hallucination",
                "failed": None,
            }
        ],
        "teams": [
            {
                "team": "pro",
                "round": 1,
                "conclusion": "hallucination",
                "analysis": "A",
                "summary": "",
                "false_premise": False,
                "by": "comprehensive",
                "failed": None,
            }
        ],
        "judgements": [
            {
                "round": 1,
                "logic": 0.1,
                "fact": 0.1,
                "coherence": 0.1,
                "overall": 0.1,
                "dispute": 0.1,
                "consensus": True,
                "winner": "con",
                "confidence": 0.9,
                "feedback": "",
                "reasoning": "R",
            }
        ],
        "usage": {"calls": 10, "input_tokens": 1, "output_tokens": 1, "search_calls": 0},
    }


def test_detect_marks_the_hallucinated_span_and_lists_the_rest():
    page = render(detect_result())
    marks = data_of(page)["marked"]
    assert marked(marks["answer"][0]) == [("Christopher Marlowe", "hallucination", [0])]
    assert marks["question"] == [["Who wrote Hamlet?"]]
    assert "(not found word for word)" in page and "<script>alert" not in page
    assert 'href="https://example.org/h"' in page
    failed = render(detect_result() | {"label": None, "error": "search is down", "findings": []})
    assert "failed: not checked" in failed and "search is down" in failed


def test_a_result_names_its_kind_and_its_page_is_its_jsons():
    from factcourt.state.claims import VerifyResult
    from factcourt.state.hallucination import DetectResult

    typed = VerifyResult.model_validate(verify_result())
    assert kind_of(typed) == "verify" == kind_of(typed.model_dump(mode="json"))
    assert render(typed) == render(verify_result())
    # the kind named wins over the shape: a detection whose JSON lacks its answer is still one
    detected = DetectResult.model_validate(detect_result()).model_dump(mode="json")
    del detected["answer"]
    assert kind_of(detected) == "detect"


def test_the_kind_of_json_written_before_kinds_is_found_from_the_shape_or_refused():
    assert kind_of(check_result()) == "check"
    assert kind_of(detect_result()) == "detect"
    with pytest.raises(InputError, match="kind="):
        render({"something": 1})
    with pytest.raises(InputError, match="kind must be"):
        render(check_result(), kind="pie")


def test_factcourt_report_html_is_the_renderer():
    assert factcourt.report_html(check_result()) == render(check_result(), "check")


def test_bench_report_tables_sort_and_plots_inline(tmp_path):
    (tmp_path / "f1_false_vs_cost.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"0" * 20)
    binary = {
        "n": 2,
        "failed": 0,
        "accuracy": 0.5,
        "macro_f1": 0.4,
        "true": {"precision": 1, "recall": 1, "f1": 1},
        "false": {"precision": 0, "recall": 0, "f1": 0},
    }
    method = {
        "binary": binary,
        "cost": {
            "calls_per_claim": 1,
            "input_tokens_per_claim": 9,
            "output_tokens_per_claim": 1,
            "searches_per_claim": 0,
            "dollars_per_1000_claims": 0.1,
            "seconds_per_claim": 0.2,
        },
        "calibration": {
            "ece": 0.1,
            "missing": 0,
            "rows": [{"low": 0.8, "high": 1.0, "n": 2, "mean_p": 0.9, "frac_true": 0.5}],
        },
        "flips": {"debated": 0},
        "debated_share": None,
        "vs_plain": None,
    }
    result = {"dataset": f"d{EVIL}.jsonl", "methods": ["plain"], "report": {"plain": method}}
    page = render(result, folder=tmp_path)
    assert kind_of(result) == "bench"
    assert '<table class="sortable">' in page and "data:image/png;base64," in page
    assert "<circle" in page and "<script>alert" not in page


def test_audit_writes_its_page_with_its_chart_inline(tmp_path):
    html = tmp_path / "audit.html"
    argv = ["audit", "--model", "sim", "--target-model", "sim", "--scale", "smoke", "--search", "none"]
    main([*argv, "--objects", "fake_news", "--out", str(tmp_path / "a"), "--html", str(html)])
    page = html.read_text(encoding="utf-8")
    assert "FACT-AUDIT report" in page and "data:image/png;base64," in page
    assert kind_of(json.loads((tmp_path / "a" / "report.json").read_text())) == "audit"
    main([*argv, "--objects", "fake_news", "--runs", "2", "--out", str(tmp_path / "r"), "--html", str(html)])
    assert "FACT-AUDIT over 2 runs" in html.read_text(encoding="utf-8")


@pytest.mark.parametrize("command", ["check", "verify", "detect", "leaderboard", "audit", "bench run"])
def test_a_bad_html_path_is_exit_2_before_any_model_call(tmp_path, command, scripted, capsys):
    text = tmp_path / "t.txt"
    text.write_text("Paris is in France.", encoding="utf-8")
    out = ["--out", str(tmp_path / "out")]
    argv = {
        "check": ["check", str(text)],
        "verify": ["verify", "--claim", "Paris is in France."],
        "detect": ["detect", "-q", "Q?", "-a", "A."],
        "leaderboard": ["leaderboard", "--prompts", str(text), "--targets", "scripted", *out],
        "audit": ["audit", "--target-model", "scripted", *out],
        "bench run": ["bench", "run", "--dataset", str(text), *out],
    }[command]
    assert main([*argv, "--model", "scripted", "--html", str(tmp_path)]) == 2
    assert "--html" in capsys.readouterr().err and not scripted.calls


def test_check_writes_the_page_beside_the_json(tmp_path, scripted):
    text = tmp_path / "t.txt"
    text.write_text("The Eiffel Tower is in Paris. The Moon is cheese.", encoding="utf-8")
    html = tmp_path / "out" / "report.html"
    main(["check", str(text), "--model", "scripted", "--search", "none", "--json", "--html", str(html)])
    page = html.read_text(encoding="utf-8")
    assert len(data_of(page)["marked"]["text"][0]) >= 2 and "Checked text" in page


class StoredThread:
    """A LangGraph server's client that holds one thread: its state as the server stores it, JSON.

    The server names the graph that ran in the thread's metadata, as ``graph_id``.
    """

    def __init__(self, state, graph_id):
        self.values = json.loads(json.dumps(state, default=lambda x: x.model_dump(mode="json")))
        self.graph_id = graph_id
        self.threads = self

    async def get_state(self, thread):
        return {"values": self.values}

    async def get(self, thread):
        return {"thread_id": thread, "status": "idle", "metadata": {"graph_id": self.graph_id}}


@pytest.mark.parametrize("graph_name", ["factcheck", "verify", "hallucination"])
def test_report_html_renders_a_finished_run_from_a_servers_thread(tmp_path, monkeypatch, graph_name):
    import asyncio
    import importlib

    import langgraph_sdk

    from factcourt.context.claims import ClaimsContext
    from factcourt.context.hallucination import HallucinationContext
    from factcourt.state.records import Claim

    payload = {
        "factcheck": {"response": "The Eiffel Tower is in Paris. I think so.", "question": ""},
        "verify": {"claim": Claim(id="c1", text="The Eiffel Tower is in Paris."), "question": ""},
        "hallucination": {"question": "Who wrote Hamlet?", "answer": "Marlowe."},
    }[graph_name]
    graph = importlib.import_module(f"factcourt.graphs.{graph_name}").graph
    kind = HallucinationContext if graph_name == "hallucination" else ClaimsContext
    state = asyncio.run(graph.ainvoke(payload, context=kind(model="sim", search="none", cache=False)))
    monkeypatch.setattr(langgraph_sdk, "get_client", lambda url: StoredThread(state, graph_name))
    out = tmp_path / "r.html"
    assert main(["report-html", "--thread", "t1", "--out", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    heading = {"factcheck": "Checked text", "verify": "One claim, checked", "hallucination": "hallucinate?"}
    assert heading[graph_name] in page


def test_report_html_of_an_unreachable_server_is_one_sentence(tmp_path, capsys):
    argv = ["report-html", "--url", "http://127.0.0.1:9", "--thread", "t1", "--out", str(tmp_path / "r.html")]
    assert main(argv) == 1
    assert "could not read thread t1" in capsys.readouterr().err


def test_a_span_the_agents_quoted_fenced_is_marked_where_the_text_has_tags():
    answer = "Marlowe wrote <i>Hamlet</i> in 1600."
    fenced = {"type": "factual", "probability": 0.8, "span": "Marlowe wrote ‹i›Hamlet‹/i›", "verbatim": True}
    page = render(detect_result() | {"answer": answer, "findings": [fenced | {"evidence": "No."}]})
    assert marked(data_of(page)["marked"]["answer"][0])[0][0] == "Marlowe wrote <i>Hamlet</i>"


def test_a_claim_checked_with_an_unresolved_reference_says_so_beside_its_context():
    result = check_result()
    result["claims"][0] |= {"unresolved": "He", "context": "Justice Douglas <b>served</b> until 1975."}
    page = render(result)
    assert '("He" unresolved)' in page.replace("&#34;", '"').replace("&quot;", '"')
    assert "could not be resolved" in page and "&lt;b&gt;served&lt;/b&gt;" in page


def test_claims_the_evidence_decides_nothing_about_stand_apart_from_refuted_ones_with_their_reason():
    result = check_result()
    reason = f"the passages found do not mention {EVIL}"
    result["claims"][2]["unchecked_reason"] = reason
    page = render(result)
    escaped = "the passages found do not mention &lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"
    # its own mark and legend entry, never refuted's
    assert 'data-count="not_enough_evidence">1<' in page and 'data-count="refuted">1<' in page
    assert "m-not_enough_evidence" in page and "m-refuted" in page
    unchecked = page.split('id="unchecked-h"', 1)[1].split("</section>", 1)[0]
    assert escaped in unchecked and "Mars has" in unchecked and "Eiffel" not in unchecked
    table = page.split('id="claims-h"', 1)[1].split("</section>", 1)[0]
    assert escaped in table  # beside its verdict in the table of claims
    detail = page.split('<template id="d2">', 1)[1].split("</template>", 1)[0]
    assert escaped in detail
    # c5 and c6 failed: not checked for want of an answer, not of evidence
    assert "checked 3 of 7 claims: supported 2, refuted 1; 1 not checked (not enough evidence), " in page
    assert "1 with conflicting evidence, 2 failed" in page
