"""Every limit a command applies holds on a served run too; URLs keep their secrets (issue 65).

Items 2 (a model's latency and time-out), 3 (passwords and query secrets in endpoint URLs, the
deployer's endpoint in a client's errors), 5 (max_claims and the text limit on claims given with
the input), 12 (a claim with no evidence at all) and 15 (failed requests counted; text in a
language the offline corpus does not cover).
"""

import json
import time

import pytest

import factcourt
from factcourt.cli import main
from factcourt.context.claims import ClaimsContext
from factcourt.errors import ConfigError, InputError
from factcourt.redact import redact
from factcourt.serving import served
from tests.faults.test_served import CLAIM, served_run

PASSWORD = "hunter2pass"


# --- item 2: timeout_s bounds every model call, the simulated model's too ---


def test_a_slow_simulated_model_gives_up_at_timeout_s(capsys):
    started = time.monotonic()
    argv = ["verify", "--claim", CLAIM, "--model", "sim:1000", "--search", "none", "--no-cache"]
    code = main([*argv, "--set", "timeout_s=1", "--json"])
    printed = capsys.readouterr()
    assert time.monotonic() - started < 30
    assert code == 1 and "did not answer within timeout_s=1 s" in printed.out


def test_a_served_run_on_a_slow_model_ends_at_its_time_out():
    started = time.monotonic()
    context = {"model": "sim:1e300", "timeout_s": 1, "search": "none", "cache": False}
    values = served_run("verify", {"claim": {"id": "c1", "text": CLAIM}}, context)
    [result] = values["results"]
    assert time.monotonic() - started < 30
    assert "did not answer within timeout_s=1 s" in result.error


def test_a_served_run_may_not_wait_for_hours():
    with pytest.raises(ConfigError, match="timeout_s must be at most 3600"):
        served.served_context(ClaimsContext, {"model": "sim:1e300", "timeout_s": 1e300})


# --- item 3: a URL is shown and stored without its password or query secrets ---


@pytest.mark.parametrize(
    "text, shown",
    [
        ("http://admin:hunter2pass@127.0.0.1:80/v1 failed", "http://admin:[redacted]@127.0.0.1:80/v1 failed"),
        ("see https://u:p%40ss@host/x.", "see https://u:[redacted]@host/x."),
        ("https://host/v1?api_key=hunter2pass&x=1", "https://host/v1?api_key=[redacted]&x=1"),
        ("https://host/v1?sig=abc&token=t0k3n", "https://host/v1?sig=[redacted]&token=[redacted]"),
        ("https://host/v1?page=2", "https://host/v1?page=2"),
        ("mail admin@example.com", "mail admin@example.com"),
    ],
)
def test_a_url_loses_its_password_and_query_secrets(text, shown):
    assert redact(text) == shown


def test_a_password_in_the_users_endpoint_is_in_no_output(stub, tmp_path, capsys):
    stub.mode = "http500"
    url = stub.url.replace("http://", f"http://admin:{PASSWORD}@")
    out, html = tmp_path / "r.json", tmp_path / "r.html"
    argv = ["verify", "--claim", CLAIM, "--base-url", url, "--model", "m", "--no-cache", "--search", "none"]
    code = main([*argv, "--set", "retries=0", "--out", str(out), "--html", str(html)])
    printed = capsys.readouterr()
    written = out.read_text(encoding="utf-8") + html.read_text(encoding="utf-8") + printed.out + printed.err
    assert code == 1 and stub.requests == 1 and "HTTP 500" in written
    assert PASSWORD not in written


def test_a_served_error_names_no_endpoint_of_the_deployer(stub, tmp_path, monkeypatch):
    stub.mode = "http500"
    url = stub.url.replace("http://", f"http://admin:{PASSWORD}@")
    settings = tmp_path / "server.json"
    settings.write_text(json.dumps({"base_url": url}), encoding="utf-8")
    monkeypatch.setenv(served.SETTINGS_VARIABLE, str(settings))
    context = {"model": "m", "search": "none", "cache": False, "retries": 0}
    values = served_run("verify", {"claim": {"id": "c1", "text": CLAIM}}, context)
    [result] = values["results"]
    assert stub.requests == 1 and "HTTP 500" in result.error
    assert "127.0.0.1" not in result.error and PASSWORD not in result.error


# --- item 5: max_claims and the text limit hold for claims given with the input ---


def _claims(n: int, text: str = "Paris is in France.") -> list[dict]:
    return [{"id": f"c{i + 1}", "text": text} for i in range(n)]


def test_max_claims_holds_for_claims_given_to_a_served_run():
    context = {"model": "sim", "search": "none", "max_claims": 3}
    values = served_run("factcheck", {"response": CLAIM, "claims": _claims(8)}, context)
    assert len(values["results"]) == 3
    assert [d.reason for d in values["dropped"]] == ["over_limit"] * 5


def test_claims_given_to_a_served_run_count_toward_the_text_limit():
    with pytest.raises(InputError, match="the limit is 100,000"):
        served.check_input("factcheck", {"response": CLAIM, "claims": _claims(60, "x" * 1999)})


# --- item 12: a claim with no evidence at all is not judged ---


def _unjudged(verdict, reason, calls):
    assert (verdict, reason, calls) == ("not_enough_evidence", "no evidence was given for it", 0)


def test_a_claim_with_no_evidence_is_not_judged_on_the_command_line(capsys):
    argv = ["verify", "--claim", "The Moon orbits the Earth.", "--search", "given", "--model", "sim"]
    assert main([*argv, "--no-cache", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    _unjudged(result["verdict"], result["unchecked_reason"], result["usage"]["calls"])


def test_a_claim_with_no_evidence_is_not_judged_by_the_api():
    result = factcourt.verify("The Moon orbits the Earth.", evidence=[], model="sim", cache=False)
    _unjudged(result.verdict, result.unchecked_reason, result.usage.calls)


def test_a_claim_with_no_evidence_is_not_judged_on_a_server():
    payload = {"claim": {"id": "c1", "text": "The Moon orbits the Earth."}, "given_evidence": []}
    values = served_run("verify", payload, {"model": "sim", "search": "given", "cache": False})
    [result] = values["results"]
    _unjudged(result.verdict, result.unchecked_reason, result.usage.calls)


# --- item 15: failed requests count; a language the corpus lacks is not judged over it ---


def test_a_request_that_failed_is_counted(stub, capsys):
    stub.mode = "http500"
    argv = ["verify", "--claim", CLAIM, "--base-url", stub.url, "--model", "m", "--no-cache"]
    assert main([*argv, "--search", "none", "--set", "retries=2", "--json"]) == 1
    usage = json.loads(capsys.readouterr().out)["usage"]
    assert stub.requests == 3 and usage["calls"] == 3 and usage["failed"] == 3


ARABIC = "القمر يدور حول الأرض."  # The Moon orbits the Earth.


def test_arabic_text_is_not_judged_over_the_english_corpus(capsys):
    argv = ["verify", "--claim", ARABIC, "--search", "local", "--model", "sim"]
    assert main([*argv, "--no-cache", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["verdict"] == "not_enough_evidence" and result["usage"]["calls"] == 0
    assert result["language_not_covered"] == "arabic"
    assert "language not covered by the corpus" in result["unchecked_reason"]


def test_a_check_of_arabic_text_says_so_before_it_starts(tmp_path, capsys):
    (text := tmp_path / "ar.txt").write_text(ARABIC, encoding="utf-8")
    assert main(["check", str(text), "--search", "local", "--model", "sim", "--no-cache", "--json"]) == 0
    printed = capsys.readouterr()
    assert "holds no 'arabic' text" in printed.err
    [claim] = json.loads(printed.out)["claims"]
    assert claim["verdict"] == "not_enough_evidence" and claim["usage"]["calls"] == 0


@pytest.mark.parametrize(
    "text, language",
    [
        (ARABIC, "arabic"),
        ("Луна вращается вокруг Земли.", "cyrillic"),
        ("月は地球の周りを回っている。", "ja"),
        ("月球绕着地球转。", "zh"),
        ("La Lune tourne autour de la Terre, écrit Beyoncé.", "en"),
    ],
)
def test_a_script_the_english_corpus_lacks_is_told_apart(text, language):
    from factcourt.inputs import written_language

    assert written_language(text) == language
