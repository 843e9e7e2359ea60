"""The command line: JSON shape, exit codes and one-sentence errors."""

import json
import multiprocessing
import os
import sqlite3
import time
from contextlib import closing

from factcourt.checkpoints import checkpoints_path
from factcourt.cli import main
from tests.fakes import juror


def test_check_json_has_the_documented_shape(tmp_path, capsys, corpus):
    text = tmp_path / "t.txt"
    text.write_text(
        "The Eiffel Tower is in Paris. The Moon is Earth's only natural satellite.", encoding="utf-8"
    )
    out = tmp_path / "r.json"
    assert main(["check", str(text), "--model", "sim", "--corpus", corpus, "--json", "--out", str(out)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert json.loads(out.read_text(encoding="utf-8")) == result
    assert set(result) >= {"claims", "scores", "usage", "dropped"}
    assert set(result["usage"]) >= {"calls", "input_tokens", "output_tokens", "search_calls"}
    claim = result["claims"][0]
    assert set(claim) >= {"text", "verdict", "evidence", "usage", "transcript", "votes"}
    assert claim["verdict"] == "supported"


def test_second_identical_run_makes_no_model_or_search_call(tmp_path, capsys, corpus):
    text = tmp_path / "t.txt"
    text.write_text("The Eiffel Tower is in Paris. Mount Everest is in Africa.", encoding="utf-8")
    args = ["check", str(text), "--model", "sim", "--corpus", corpus, "--json", "--rule", "mandatory_search"]
    assert main(args) == 0
    first = json.loads(capsys.readouterr().out)
    assert main(args) == 0
    second = json.loads(capsys.readouterr().out)
    assert first["usage"]["calls"] > 0 and first["usage"]["search_calls"] > 0
    assert second["usage"]["calls"] == 0 and second["usage"]["search_calls"] == 0
    assert [c["verdict"] for c in second["claims"]] == [c["verdict"] for c in first["claims"]]
    assert main([*args, "--no-cache"]) == 0
    # at least as many: within one run the cache also answers a prompt asked twice
    assert json.loads(capsys.readouterr().out)["usage"]["calls"] >= first["usage"]["calls"]


def test_readable_report(tmp_path, capsys, corpus):
    text = tmp_path / "t.txt"
    text.write_text("The Eiffel Tower is in Paris.", encoding="utf-8")
    assert main(["check", str(text), "--model", "sim", "--corpus", corpus, "--quiet"]) == 0
    shown = capsys.readouterr().out
    assert "Eiffel Tower" in shown and "supported" in shown and "precision 1.00" in shown


def test_the_readable_report_says_the_moderator_decided_a_debatecv_claim(tmp_path, capsys, corpus):
    text = tmp_path / "t.txt"
    text.write_text("The Eiffel Tower is in Paris.", encoding="utf-8")
    argv = ["check", str(text), "--model", "sim", "--corpus", corpus, "--quiet", "--preset", "debatecv"]
    assert main(argv) == 0
    shown = capsys.readouterr().out
    assert "moderator" in shown and "jury:" not in shown


def test_bad_input_and_configuration_exit_2(tmp_path, capsys):
    empty = tmp_path / "empty.txt"
    empty.write_text("  \n", encoding="utf-8")
    assert main(["check", str(empty), "--model", "sim"]) == 2
    assert "empty" in capsys.readouterr().err
    assert main(["check", str(tmp_path / "missing.txt")]) == 2
    latin = tmp_path / "latin.txt"
    latin.write_bytes("café".encode("latin-1"))
    assert main(["check", str(latin), "--model", "sim"]) == 2
    assert main(["check", str(empty), "--model", "sim", "--search", "tavily"]) == 2
    assert main(["verify", "--claim", "x", "--model", "sim", "--set", "jurors=99"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "jurors" in err


def test_missing_key_names_the_variable(tmp_path, capsys):
    text = tmp_path / "t.txt"
    text.write_text("The Moon orbits the Earth.", encoding="utf-8")
    assert main(["check", str(text), "--model", "sim", "--search", "serper"]) == 2
    err = capsys.readouterr().err
    assert "SERPER_API_KEY" in err and "Traceback" not in err


def test_verify_with_an_evidence_file(tmp_path, capsys):
    evidence = tmp_path / "ev.json"
    evidence.write_text(
        json.dumps([{"text": "The Eiffel Tower is in Paris, France.", "url": "https://example.org/e"}]),
        encoding="utf-8",
    )
    assert (
        main(
            [
                "verify",
                "--claim",
                "The Eiffel Tower is in Paris.",
                "--evidence",
                str(evidence),
                "--model",
                "sim",
                "--protocol",
                "adversarial",
                "--set",
                "first_pass=off",  # by default the first pass decides the claim and nobody debates
                "--json",
            ]
        )
        == 0
    )
    result = json.loads(capsys.readouterr().out)
    assert result["verdict"] == "supported" and result["usage"]["search_calls"] == 0
    assert result["route"] == "debate" and result["first_pass"] is None and result["summaries"]
    assert {t["speaker"] for t in result["transcript"]} == {"Affirmative", "Negative"}
    assert result["evidence"][0]["url"] == "https://example.org/e"


def test_verify_keeps_a_search_named_by_set_over_given_evidence(tmp_path, monkeypatch):
    import factcourt.api.claims
    from factcourt.errors import ConfigError

    evidence = tmp_path / "ev.json"
    evidence.write_text(json.dumps(["The Eiffel Tower is in Paris."]), encoding="utf-8")
    seen = []

    def verify(claim, evidence, question, ctx):
        seen.append(ctx.search)
        raise ConfigError("seen")

    monkeypatch.setattr(factcourt.api.claims, "verify", verify)
    argv = ["verify", "--claim", "x", "--evidence", str(evidence), "--model", "sim"]
    assert main([*argv, "--set", "search=none"]) == 2
    assert main(argv) == 2
    assert seen == ["none", "given"]


def test_models_command_lists_every_role(capsys):
    assert main(["models"]) == 0
    shown = capsys.readouterr().out
    for role in ("clerk", "evaluator", "moderator", "corrector"):
        assert role in shown


def test_a_crashed_check_resumes_without_rechecking_finished_claims(tmp_path, capsys, caplog, scripted):
    text = tmp_path / "t.txt"
    text.write_text("Alpha is one. Beta is two. Gamma is three.", encoding="utf-8")
    state = {"crash": True}

    def finished_claims_saved() -> bool:
        """Whether the checkpoints hold the last step (the vote) of Alpha's and Beta's debates."""
        try:
            with closing(sqlite3.connect(checkpoints_path())) as conn:
                (votes,) = conn.execute(
                    "SELECT COUNT(*) FROM writes WHERE checkpoint_ns LIKE 'check_claim:%' "
                    "AND task_path LIKE '%judge_vote' AND channel = 'results'"
                ).fetchone()
        except sqlite3.OperationalError:  # the run is writing right now
            return False
        return votes == 2

    def answer(prompt):
        if "Gamma" in prompt and state["crash"]:
            # as during a real model call, the finished branches' writes get saved meanwhile
            # (the model runs in a worker thread): crash only once they are, however slow the machine
            deadline = time.monotonic() + 30
            while not finished_claims_saved() and time.monotonic() < deadline:
                time.sleep(0.05)
            saved = finished_claims_saved()
            os._exit(9 if saved else 8)  # the process dies as under kill -9: no handler, no cleanup runs
        return {"explanation": "ok", "verdict": "supported", "confidence": 0.9, "search_query": ""}

    scripted.script["JurorAnswer"] = [answer]
    args = [
        "check",
        str(text),
        "--model",
        "scripted",
        "--search",
        "none",
        "--preset",
        "madfact",
        "--rule",
        "adaptive",
        "--no-cache",
        "--json",
        "--concurrency",
        "1",
    ]
    # A forked child is a real process that really dies; an exception raised in this process
    # would leave the dead run's SQLite connection to the garbage collector, which no crash does.
    crashing = multiprocessing.get_context("fork").Process(target=main, args=(args,))
    crashing.start()
    crashing.join(90)
    assert crashing.exitcode == 9, f"exit {crashing.exitcode} (8: the finished claims were never saved)"
    state["crash"] = False
    assert main(args) == 0
    result = json.loads(capsys.readouterr().out)
    assert [c["verdict"] for c in result["claims"]] == ["supported"] * 3
    rechecked = [p for n, p in scripted.calls if n == "JurorAnswer"]
    assert rechecked and all("Gamma" in p for p in rechecked), "finished claims were not redone"
    assert scripted.count("ClerkOutput") == 0, "the Clerk's finished decomposition was redone"
    assert "unregistered type" not in caplog.text
    assert main(args) == 0  # a finished run is not "resumed": it starts afresh
    assert json.loads(capsys.readouterr().out)["scores"]["claims"] == 3


def test_verify_rejects_empty_and_oversized_claims_and_bad_evidence(tmp_path, capsys):
    assert main(["verify", "--claim", "   ", "--model", "sim"]) == 2
    assert "empty" in capsys.readouterr().err
    assert main(["verify", "--claim", "x" * 5000, "--model", "sim"]) == 2
    assert "limit" in capsys.readouterr().err
    bad = tmp_path / "ev.jsonl"
    bad.write_text('{"text": "fine"}\nnot json\n', encoding="utf-8")
    assert (
        main(["verify", "--claim", "The Moon orbits the Earth.", "--evidence", str(bad), "--model", "sim"])
        == 2
    )
    assert "ev.jsonl:2" in capsys.readouterr().err


def test_correct_prints_the_revised_text_and_a_diff(tmp_path, capsys, scripted, corpus):
    from tests.fakes import juror

    scripted.script["JurorAnswer"] = [lambda p: juror("refuted") if "1789" in p else juror("supported")]
    scripted.script["CorrectorAnswer"] = [{"wrong": "1789", "right": "1889"}]
    text = tmp_path / "t.txt"
    text.write_text("The Eiffel Tower is in Paris. It was completed in 1789.", encoding="utf-8")
    assert (
        main(
            [
                "check",
                str(text),
                "--preset",
                "madfact",
                "--model",
                "scripted",
                "--corpus",
                corpus,
                "--correct",
                "--quiet",
                "--rule",
                "mandatory_search",  # the correction must rest on evidence the jury read
            ]
        )
        == 0
    )
    shown = capsys.readouterr().out
    assert "corrected text" in shown and "-The Eiffel Tower is in Paris. It was completed in 1789." in shown
    assert "+The Eiffel Tower is in Paris. It was completed in 1889." in shown


def test_a_failed_clerk_is_a_failed_run_with_its_reason_never_an_empty_result(tmp_path, capsys, scripted):
    text = tmp_path / "t.txt"
    text.write_text("The Eiffel Tower is in Paris.", encoding="utf-8")
    scripted.script["ClerkOutput"] = [ConnectionError("connection refused")]
    code = main(["check", str(text), "--model", "scripted", "--search", "none", "--no-cache", "--json"])
    captured = capsys.readouterr()
    assert code == 1
    assert "could not split the text" in captured.err and "connection refused" in captured.err
    result = json.loads(captured.out)
    assert (
        result["dropped"][0]["reason"] == "clerk_failed"
        and "connection refused" in result["dropped"][0]["error"]
    )


def test_failed_claims_make_the_run_fail_and_keep_the_checked_ones(tmp_path, capsys, scripted):
    text = tmp_path / "t.txt"
    text.write_text("Alpha is one. Beta is two.", encoding="utf-8")

    def rating(prompt):
        return TimeoutError("slow") if "Beta" in prompt else {"explanation": "ok", "verdict": "supported"}

    scripted.script["Label"] = [rating]
    scripted.script["JurorAnswer"] = [lambda p: TimeoutError("slow") if "Beta" in p else juror("supported")]
    code = main(["check", str(text), "--model", "scripted", "--search", "none", "--no-cache", "--json"])
    captured = capsys.readouterr()
    assert code == 1 and "1 of 2 claims" in captured.err
    verdicts = {c["text"]: c["verdict"] for c in json.loads(captured.out)["claims"]}
    assert verdicts == {"Alpha is one.": "supported", "Beta is two.": None}


def test_an_empty_evidence_file_is_bad_input(tmp_path, capsys):
    for content in ("", "[]", "\n\n"):
        evidence = tmp_path / "e.jsonl"
        evidence.write_text(content, encoding="utf-8")
        assert main(["verify", "--claim", "x", "--evidence", str(evidence), "--model", "sim"]) == 2
        assert "holds no evidence" in capsys.readouterr().err


def test_out_into_a_missing_folder_is_created_before_the_run(tmp_path, capsys, corpus):
    text = tmp_path / "t.txt"
    text.write_text("The Eiffel Tower is in Paris.", encoding="utf-8")
    out = tmp_path / "new" / "deeper" / "r.json"
    assert main(["check", str(text), "--model", "sim", "--corpus", corpus, "--quiet", "--out", str(out)]) == 0
    assert json.loads(out.read_text(encoding="utf-8"))["claims"]


def test_a_chinese_text_against_the_english_corpus_is_warned_once(tmp_path, capsys, corpus):
    chinese = tmp_path / "zh.txt"
    chinese.write_text("埃菲尔铁塔位于巴黎。它于1889年建成。", encoding="utf-8")
    english = tmp_path / "en.txt"
    english.write_text("The Eiffel Tower is in Paris.", encoding="utf-8")
    main(["check", str(chinese), "--model", "sim", "--json"])
    assert capsys.readouterr().err.count("English Wikipedia") == 1
    main(["check", str(english), "--model", "sim", "--json"])
    assert "English Wikipedia" not in capsys.readouterr().err
    main(["check", str(chinese), "--model", "sim", "--json", "--corpus", corpus])  # an English one too
    said = " ".join(capsys.readouterr().err.split())
    assert f"{corpus} holds no 'zh' text" in said and "English Wikipedia" not in said
    chinese_corpus = tmp_path / "zh.jsonl"
    chinese_corpus.write_text(
        json.dumps({"text": "埃菲尔铁塔位于巴黎。"}, ensure_ascii=False), encoding="utf-8"
    )
    main(["check", str(chinese), "--model", "sim", "--json", "--corpus", str(chinese_corpus)])
    assert "holds no" not in capsys.readouterr().err


def test_a_result_is_printed_before_out_is_written_so_a_failed_write_loses_nothing(
    tmp_path, capsys, corpus, monkeypatch
):
    import factcourt.commands.claims

    text = tmp_path / "t.txt"
    text.write_text("The Eiffel Tower is in Paris.", encoding="utf-8")
    monkeypatch.setattr(
        factcourt.commands.claims, "prepare_out", lambda out: None
    )  # as if the folder went away meanwhile
    out = tmp_path / "gone" / "r.json"
    assert main(["check", str(text), "--model", "sim", "--corpus", corpus, "--json", "--out", str(out)]) == 1
    captured = capsys.readouterr()
    assert json.loads(captured.out)["claims"][0]["verdict"] == "supported"
    said = " ".join(captured.err.split())
    assert f"could not write --out {out}" in said and "the result is printed above" in said
    assert said.count("error:") == 1 and "Traceback" not in said


def unchecked_check(search):
    """A check with a refuted claim and one the evidence decided nothing about, with its reason."""
    from factcourt.state.claims import CheckResult, CheckSettings, ClaimReport

    return CheckResult(
        claims=[
            ClaimReport(id="c1", text="Paris is in France.", verdict="supported", confidence=0.9),
            ClaimReport(id="c2", text="Berlin is in Spain.", verdict="refuted", confidence=0.8),
            ClaimReport(
                id="c3",
                text="Obama was born in Honolulu.",
                verdict="not_enough_evidence",
                confidence=0.5,
                unchecked_reason="the passages found do not mention Honolulu",
            ),
        ],
        scores={"precision": 0.5, "supported": 1, "refuted": 1, "not_enough_evidence": 1},
        settings=CheckSettings(search=search),
    )


def test_the_table_says_which_claims_could_not_be_checked_and_why(capsys, monkeypatch):
    from factcourt.commands.claims import print_report

    monkeypatch.setenv("COLUMNS", "300")  # one line a row (out.width set would outlive the test)
    print_report(unchecked_check("local"))
    shown = capsys.readouterr().out
    assert "not checked (not enough evidence)" in shown
    assert "the passages found do not mention Honolulu" in shown and "(0.50)" not in shown
    assert "refuted (0.80)" in shown
    assert (
        "precision 0.50  checked 2 of 3 claims: supported 1, refuted 1; 1 not checked (not enough evidence)"
        in shown
    )
    assert (
        "to check the rest: set TAVILY_API_KEY or SERPER_API_KEY to search the web, or give your own "
        "documents with --corpus" in shown
    )
    assert "--evidence" not in shown  # check takes no evidence file: only verify's hint names it


def test_no_hint_where_the_web_was_searched_or_every_claim_was_checked(capsys, monkeypatch):
    from factcourt.commands.claims import print_report

    monkeypatch.setenv("COLUMNS", "200")
    print_report(unchecked_check("tavily"))
    local = unchecked_check("local")
    local.claims.pop()
    print_report(local)
    shown = capsys.readouterr().out
    assert "to check the rest" not in shown
    assert "checked 2 of 2 claims: supported 1, refuted 1\n" in shown


def test_verify_says_why_a_claim_was_not_checked_and_what_would_check_it(capsys, monkeypatch):
    import factcourt.api.claims
    from factcourt.state.claims import VerifyResult

    def verify(claim, evidence, question, ctx):
        return VerifyResult(
            text=claim,
            verdict="not_enough_evidence",
            unchecked_reason="the reading was uncertain (P(true) 0.55)",
        )

    monkeypatch.setattr(factcourt.api.claims, "verify", verify)
    argv = ["verify", "--claim", "Obama was born in Honolulu.", "--model", "sim", "--search", "local"]
    assert main(argv) == 0
    shown = capsys.readouterr().out
    assert "verdict: not checked (not enough evidence)" in shown
    assert "why not: the reading was uncertain (P(true) 0.55)" in shown
    assert "your evidence with --evidence" in shown
