"""The real embedded path: llama.cpp server with SmolLM2, a structured call through ChatOpenAI."""

import asyncio
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time

import pytest
from langchain_core.messages import HumanMessage, SystemMessage

import factcourt
from factcourt.context.base import BaseContext
from factcourt.errors import BackendError
from factcourt.providers import local_server, models
from factcourt.providers.local_server import LocalModelServer
from factcourt.state.claims import JurorAnswer
from tests.signals import ctrl_c_not_ignored

pytestmark = pytest.mark.integration


def port_open(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def test_structured_call_through_chatopenai_then_the_server_is_gone(smollm2):
    ctx = BaseContext(local_weights=str(smollm2), cache=False, max_tokens=256)
    answer = asyncio.run(
        models.ask(
            ctx,
            "evaluator",
            JurorAnswer,
            [SystemMessage("Judge the claim."), HumanMessage("<claim>Paris is in France.</claim>")],
            run_name="integration",
        )
    )
    assert answer.error is None, answer.error
    assert answer.value.verdict in ("supported", "refuted", "not_enough_evidence", "conflicting_evidence")
    assert 0.0 <= answer.value.confidence <= 1.0
    assert answer.usage.calls >= 1 and answer.usage.input_tokens > 0  # from the server's reply
    server = local_server._current
    pid, port = server.process.pid, server.port
    assert port_open(port)
    local_server.stop_all()
    assert server.process.poll() is not None and not port_open(port)
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_a_prompt_over_the_context_window_is_one_sentence_naming_both_sizes(smollm2):
    ctx = BaseContext(local_weights=str(smollm2), cache=False, retries=2)
    too_long = "The Eiffel Tower is in Paris. " * 1200  # about 8,400 tokens, over the 4,096 window
    answer = asyncio.run(
        models.ask(ctx, "evaluator", JurorAnswer, [HumanMessage(too_long)], run_name="integration")
    )
    # one request, refused and not retried: it counts as a call that got no answer
    assert answer.value is None and (answer.usage.calls, answer.usage.failed) == (1, 1)
    assert re.search(r"refused a prompt of \d+ tokens: its context window holds 4096", answer.error)


def test_the_schemas_bounds_hold_on_the_embedded_server(smollm2):
    # through response_format this server let SmolLM2 write 8,252 characters into a
    # 2,400-character field until max_tokens; long-form answers go under the grammar, which
    # ends the string at its bound
    from pydantic import BaseModel

    from factcourt.state.records import text

    class Short(BaseModel):
        answer: str = text("the answer", 80)

    ctx = BaseContext(local_weights=str(smollm2), cache=False, max_tokens=512, retries=0)
    prompt = "Write a long, detailed essay of at least 2,000 words about the history of Paris."
    answer = asyncio.run(models.ask(ctx, "answer", Short, [HumanMessage(prompt)], run_name="bounds"))
    assert answer.error is None, answer.error
    assert 0 < len(answer.value.answer) <= 80 and answer.usage.unparsable == 0
    assert answer.usage.output_tokens < 100
    local_server.stop_all()


def test_a_server_that_cannot_start_names_its_log(tmp_path):
    bad = tmp_path / "not-a-model.gguf"
    bad.write_bytes(b"garbage")
    with pytest.raises(BackendError, match="see its log") as info:
        LocalModelServer(bad).start(timeout_s=60)
    log = str(info.value).split("see its log: ")[1]
    assert open(log, encoding="utf-8", errors="replace").read()


def test_whole_factcheck_graph_on_the_embedded_model(smollm2, corpus):
    """SmolLM2 always says 'supported': this proves the plumbing, not the judgement."""
    result = factcourt.check(
        "The Eiffel Tower is in Paris. The Moon orbits the Earth.",
        local_weights=str(smollm2),
        corpus=corpus,
        cache=False,
        first_pass="off",  # at first_pass_theta 0 the first pass decides every claim: no juror would run
        rule="mandatory_search",
        jurors=2,
        rounds=1,
        max_tokens=400,  # room for the verifier's 700-character reasoning, or every answer is cut
    )
    local_server.stop_all()
    assert result["claims"], result["dropped"]
    assert all(c["route"] == "debate" and c["transcript"] for c in result["claims"])
    assert result["usage"]["calls"] >= 3 and result["usage"]["input_tokens"] > 0
    assert result["usage"]["search_calls"] >= 1
    judged = [c for c in result["claims"] if c["verdict"]]
    assert judged, [c["error"] for c in result["claims"]]
    assert local_server._current is None


def children_of(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="utf-8") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry))
    return found


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_an_interrupted_cli_run_leaves_no_server_behind(smollm2, tmp_path, signum):
    text = tmp_path / "t.txt"
    text.write_text("The Eiffel Tower is in Paris. " * 20, encoding="utf-8")
    env = {**os.environ, "FACTCOURT_CACHE_DIR": str(tmp_path / "cache")}
    cli = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "factcourt.cli",
            "check",
            str(text),
            "--quiet",
            "--search",
            "none",
            "--set",
            f"local_weights={json.dumps(str(smollm2))}",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        preexec_fn=ctrl_c_not_ignored,
    )
    deadline = time.monotonic() + 600  # bounds, not timings: a loaded machine starts slowly
    servers = []
    while time.monotonic() < deadline and not servers:
        servers = [
            p
            for p in children_of(cli.pid)
            if "llama_child" in open(f"/proc/{p}/cmdline", "rb").read().decode()
        ]
        time.sleep(0.2)
    assert servers, "the CLI never started its model server"
    time.sleep(1.0)
    cli.send_signal(signum)
    cli.wait(timeout=600)
    time.sleep(0.5)  # no more: the server's own keep-alive (5 s) would end it anyway
    for pid in servers:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_a_server_that_dies_mid_run_is_reported_with_its_log(smollm2):
    # the default time-out: a dead server refuses at once, while a live one on busy cores may
    # take well over 10 s for the first answer (#65 item 16)
    ctx = BaseContext(local_weights=str(smollm2), cache=False, max_tokens=64, retries=1)
    messages = [HumanMessage("<claim>Paris is in France.</claim>")]
    first = asyncio.run(models.ask(ctx, "evaluator", JurorAnswer, messages, run_name="alive"))
    assert first.usage.calls >= 1, first.error
    server = local_server._current
    server.process.kill()
    server.process.wait()
    try:  # within one event loop the call fails; a new loop's client fails at the start
        second = asyncio.run(models.ask(ctx, "evaluator", JurorAnswer, messages, run_name="dead"))
        assert second.value is None
        message = second.error
    except BackendError as exc:
        message = str(exc)
    assert "see its log" in message and str(server.log_path) in message


def test_two_api_calls_in_one_script_each_get_a_working_client(smollm2):
    """ChatOpenAI's async client is bound to its event loop; each asyncio.run needs its own."""
    settings = {
        "local_weights": str(smollm2),
        "cache": False,
        "search": "none",
        "jurors": 1,
        "use_debate": False,
        "max_tokens": 96,
    }
    first = factcourt.verify("Paris is in France.", **settings)
    second = factcourt.verify("The Moon orbits the Earth.", **settings)
    assert first["usage"]["calls"] >= 1 and second["usage"]["calls"] >= 1
    assert not (second["error"] or "").startswith(("RuntimeError", "APIConnectionError"))
