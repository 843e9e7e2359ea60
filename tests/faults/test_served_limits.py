"""Every limit a command applies holds on a served run too; URLs keep their secrets (issue 65).

Items 2 (a model's latency and time-out), 3 (passwords and query secrets in endpoint URLs, the
deployer's endpoint in a client's errors), 5 (max_claims and the text limit on claims given with
the input), 12 (a claim with no evidence at all) and 15 (failed requests counted; text in a
language the offline corpus does not cover).
"""

import json
import time

from factcourt.cli import main
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


# --- item 15: failed requests count; a language the corpus lacks is not judged over it ---


def test_a_request_that_failed_is_counted(stub, capsys):
    stub.mode = "http500"
    argv = ["verify", "--claim", CLAIM, "--base-url", stub.url, "--model", "m", "--no-cache"]
    assert main([*argv, "--search", "none", "--set", "retries=2", "--json"]) == 1
    usage = json.loads(capsys.readouterr().out)["usage"]
    assert stub.requests == 3 and usage["calls"] == 3 and usage["failed"] == 3
