"""The real embedded path: llama.cpp server with SmolLM2, a structured call through ChatOpenAI."""

import asyncio
import socket

import pytest
from langchain_core.messages import HumanMessage, SystemMessage

import factcourt
from factcourt.context import Context
from factcourt.errors import BackendError
from factcourt.providers import local_server, models
from factcourt.providers.local_server import LocalModelServer
from factcourt.state import JurorAnswer

pytestmark = pytest.mark.integration


def port_open(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def test_structured_call_through_chatopenai_then_the_server_is_gone(smollm2):
    ctx = Context(local_weights=str(smollm2), cache=False, max_tokens=128)
    answer = asyncio.run(models.ask(
        ctx, "evaluator", JurorAnswer,
        [SystemMessage("Judge the claim."), HumanMessage("<claim>Paris is in France.</claim>")],
        run_name="integration"))
    assert answer.error is None, answer.error
    assert answer.value.verdict in ("supported", "refuted", "not_enough_evidence",
                                    "conflicting_evidence")
    assert 0.0 <= answer.value.confidence <= 1.0
    assert answer.usage.calls >= 1 and answer.usage.input_tokens > 0  # from the server's reply
    [server] = local_server._running.values()
    pid, port = server.process.pid, server.port
    assert port_open(port)
    local_server.stop_all()
    assert server.process.poll() is not None and not port_open(port)
    with pytest.raises(ProcessLookupError):
        import os

        os.kill(pid, 0)


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
        local_weights=str(smollm2), corpus=corpus, cache=False, rule="mandatory_search",
        jurors=2, rounds=1, max_tokens=160)
    local_server.stop_all()
    assert result["claims"], result["dropped"]
    assert result["usage"]["calls"] >= 3 and result["usage"]["input_tokens"] > 0
    assert result["usage"]["search_calls"] >= 1
    judged = [c for c in result["claims"] if c["verdict"]]
    assert judged, [c["error"] for c in result["claims"]]
    assert not local_server._running
