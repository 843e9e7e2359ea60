"""Claims in a language the local corpus does not hold are marked, not silently 'not enough evidence'."""

import json
from pathlib import Path

import factcourt
from factcourt.cli import main
from factcourt.context.base import BaseContext
from factcourt.inputs import detect_language
from factcourt.providers import search
from factcourt.providers.search import corpus_languages, uncovered_language
from factcourt.state.records import Evidence
from tests.fakes import rating

CHINESE = "埃菲尔铁塔位于巴黎。"
# a ChineseFactEval-style response (true, false and opinion sentences) for end-to-end runs
RESPONSE = Path(__file__).parent.parent / "fixtures" / "zh_response.txt"


def docs(*texts):
    return [Evidence(text=t, title="") for t in texts]


def test_language_detection():
    assert detect_language(CHINESE) == "zh"
    assert detect_language("The Eiffel Tower (埃菲尔铁塔) is in Paris.") == "en"
    assert detect_language("巴黎 Paris 埃菲尔铁塔") == "zh"


def test_corpus_languages_from_a_sample_of_its_documents():
    assert corpus_languages(docs("Paris is in France.", "The Moon orbits Earth.")) == {"en"}
    assert corpus_languages(docs(CHINESE, "长城位于中国北方。")) == {"zh"}
    assert corpus_languages(docs(CHINESE, "Paris is in France.")) == {"en", "zh"}
    # one Chinese page among a hundred English ones does not cover Chinese
    assert corpus_languages(docs(CHINESE, *["Paris is in France."] * 100)) == {"en"}


def chinese_corpus(tmp_path):
    path = tmp_path / "zh.jsonl"
    path.write_text(json.dumps({"id": "t", "text": CHINESE}, ensure_ascii=False), encoding="utf-8")
    search._backends.clear()
    return str(path)


def test_uncovered_language_only_for_local_search_without_that_language(corpus, tmp_path):
    assert uncovered_language(BaseContext(search="local", corpus=corpus), CHINESE) == "zh"
    assert uncovered_language(BaseContext(search="local", corpus=corpus), "Paris is in France.") is None
    assert uncovered_language(BaseContext(search="local", corpus=chinese_corpus(tmp_path)), CHINESE) is None
    assert uncovered_language(BaseContext(search="serper"), CHINESE) is None


def script_chinese_check(scripted):
    scripted.script["ClerkOutput"] = [{"claims": [{"sentence": 1, "claim": CHINESE}], "dropped": []}]
    scripted.script["Label"] = [rating("refuted", "没有证据。")]


def test_a_chinese_claim_against_an_english_corpus_is_marked_in_the_result(scripted, corpus, tmp_path):
    script_chinese_check(scripted)
    result = factcourt.check(CHINESE, model="scripted", corpus=corpus, cache=False)
    assert result["claims"][0]["language_not_covered"] == "zh"
    assert result["language_not_covered"] == 1
    script_chinese_check(scripted)
    covered = factcourt.check(CHINESE, model="scripted", corpus=chinese_corpus(tmp_path), cache=False)
    assert covered["claims"][0]["language_not_covered"] is None and covered["language_not_covered"] == 0


def test_the_report_marks_the_claim_and_the_run_warns_once(scripted, corpus, capsys):
    scripted.script["Label"] = [rating("refuted", "没有证据。")]  # the Clerk splits by rule
    main(["check", str(RESPONSE), "--model", "scripted", "--corpus", corpus, "--no-cache", "--quiet"])
    captured = capsys.readouterr()
    shown = " ".join(captured.out.split())
    assert shown.index("not covered") < shown.index("precision")  # in the claim's verdict cell
    assert "5 claim(s): language not covered by the corpus" in shown
    assert " ".join(captured.err.split()).count("holds no 'zh' text") == 1
