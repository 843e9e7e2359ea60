"""A deployed server is a trust boundary; a key an endpoint echoes is never written (issue 54, items 1-3, 8).

Served graphs (``factcourt.serving.served``, what ``langgraph.json`` loads) take endpoints and files from
the deployer only, check a run's context and input as the command line does, and their refusals
reach the client as sentences. The real ``langgraph dev`` is in tests/integration/test_served_attacks.py.
"""

import asyncio
import json
from types import SimpleNamespace

import pytest

from factcourt.cli import main
from factcourt.errors import BackendError, ConfigError, InputError
from factcourt.serving import served

KEY = "sk-test-SERVERKEY-0123456789abcdef"
CLAIM = "The Eiffel Tower is in Paris."


def run_request(graph_id: str, context):
    """What LangGraph's server does on a run: call the graph's factory with the run's whole context."""
    factory = getattr(served, graph_id)
    return factory(SimpleNamespace(access_context="threads.create_run", context=context))


def served_run(graph_id: str, payload, context) -> dict:
    """A run as the server makes it: the factory, then ``astream`` with the (filtered) context."""
    graph = run_request(graph_id, context)

    async def go():
        values = {}
        async for values in graph.astream(payload, context=context, stream_mode="values"):
            pass
        return values

    return asyncio.run(go())


@pytest.mark.parametrize(
    "graph_id, context, words",
    [
        ("factcheck", {"model": "anything", "base_url": "URL"}, "base_url is set by the server's deployer"),
        (
            "verify",
            {"model": "m", "model_settings": {"m": {"base_url": "URL"}}},
            "model_settings['m']: base_url",
        ),
        ("audit", {"role_models": {"target": "t"}, "model_settings": {"t": {"base_url": "URL"}}}, "base_url"),
        ("pyramid", {"experts": ["e"], "embedding_base_url": "URL"}, "embedding_base_url is set by"),
        ("factcheck", {"model": "sim", "corpus": "FOLDER"}, "corpus is set by the server's deployer"),
        ("factcheck", {"model": "sim", "local_weights": "FOLDER/a.gguf"}, "local_weights is set by"),
        ("factcheck", {"model": "FOLDER"}, "a model on this server is named, not given by a path"),
        ("factcheck", {"role_models": {"moderator": "~/moderator"}}, "not given by a path"),
        # a model's own settings name its model in every role: the same names, checked the same way
        ("factcheck", {"model": "m", "model_settings": {"m": {"model": "FOLDER"}}}, "not given by a path"),
        (
            "audit",
            {"role_models": {"target": "t"}, "model_settings": {"t": {"role_models": {"judge": "~/m"}}}},
            "not given by a path",
        ),
        # a trained moderator's name is looked up as a folder under the trained models: no way out
        ("factcheck", {"role_models": {"moderator": "mine/../../../FOLDER"}}, "not given by a path"),
    ],
)
def test_a_run_may_not_name_an_endpoint_or_a_file_of_the_server(
    graph_id, context, words, stub, tmp_path, monkeypatch
):
    """Item 1: the server's key went to any base_url a run named; item 2: a run read any folder."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    (tmp_path / "secret.txt").write_text("The database password is hunter2.", encoding="utf-8")
    filled = json.loads(json.dumps(context).replace("URL", stub.url).replace("FOLDER", str(tmp_path)))
    with pytest.raises(ConfigError, match=words.replace("[", r"\[").replace("]", r"\]")):
        run_request(graph_id, filled)
    assert stub.requests == 0 and KEY not in " ".join(stub.authorizations)


def test_the_served_run_itself_refuses_them_too(stub, tmp_path, monkeypatch):
    """Whatever reaches ``astream`` (a server that skipped the factory) is checked there again."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    graph = run_request("verify", None)

    async def go():
        async for _ in graph.astream(
            {"claim": {"id": "c1", "text": CLAIM}}, context={"model": "m", "base_url": stub.url}
        ):
            pass

    with pytest.raises(ConfigError, match="base_url is set by the server's deployer"):
        asyncio.run(go())
    assert stub.requests == 0


def test_the_deployer_sets_the_endpoint_and_the_corpus(stub, tmp_path, monkeypatch):
    """What a run may not set, the deployer's FACTCOURT_SERVER_SETTINGS gives every run."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "eiffel.txt").write_text("The Eiffel Tower is a tower in Paris, France.", encoding="utf-8")
    settings = tmp_path / "server.json"
    settings.write_text(json.dumps({"base_url": stub.url, "corpus": str(corpus)}), encoding="utf-8")
    monkeypatch.setenv(served.SETTINGS_VARIABLE, str(settings))
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    context = {"model": "m", "search": "local", "cache": False, "first_pass": "off", "jurors": 1}
    values = served_run("verify", {"claim": {"id": "c1", "text": CLAIM}}, context)
    [result] = values["results"]
    assert result.verdict is not None and stub.requests >= 1
    assert {e.url for e in result.evidence} == {"eiffel.txt"}
    # the deployer chose this endpoint: its key may go there
    assert set(stub.authorizations) == {f"Bearer {KEY}"}


@pytest.mark.parametrize(
    "context, words",
    [
        ({"temperature": "banana"}, "temperature='banana': input should be a valid number"),
        ({"retries": -1}, "retries must be at least 0"),
        ({"timeout_s": "NaN"}, "timeout_s=nan: not a number"),
        ({"no_such_key": 1}, "unknown setting(s) ['no_such_key']"),
        ({"epsilon": 0.2}, "epsilon is a setting of `factcourt detect`"),
        # JSON's "\\udcff" is a lone surrogate: #65 item 17 for a hostile client
        ({"role_models": {"clerk": "sim\udcff"}}, "role_models: the byte 0xff at character 4 is not UTF-8"),
    ],
)
def test_a_served_context_is_checked_as_the_command_line_checks_it(context, words):
    """Item 8: an unknown key or another graph's setting was dropped in silence, a bad value hidden."""
    with pytest.raises(ConfigError) as raised:
        run_request("factcheck", {"model": "sim", **context})
    assert words in str(raised.value)


@pytest.mark.parametrize(
    "graph_id, payload, words",
    [
        ("factcheck", {"response": 12345}, "response=12345: input should be a valid string"),
        ("factcheck", {"response": ""}, "empty"),
        ("factcheck", {"response": "Paris is in France.", "question": "q" * 5000}, "the limit is 4,000"),
        ("factcheck", {"response": "Paris is in France.", "text": "x"}, "unknown input field(s) ['text']"),
        ("verify", {"claim": {"id": "c1", "text": "  "}}, "the claim is empty"),
        ("hallucination", {"question": "Who?", "answer": ""}, "the answer is empty"),
        ("audit", {"objects": ["everything"]}, "unknown object(s) ['everything']"),
        ("factcheck", [1, 2], "the input must be a JSON object"),
        ("factcheck", {"response": "Paris is in France.\udcff"}, "input response: the byte 0xff at"),
        ("verify", {"claim": {"id": "c1", "text": "Paris.\ud800"}}, "input claim: U+D800 at character 7"),
    ],
)
def test_a_served_input_is_checked_as_the_api_checks_it(graph_id, payload, words):
    """Item 8: ``"response": 12345`` gave AttributeError; a 5,000-character question was taken."""
    with pytest.raises(InputError) as raised:
        served_run(graph_id, payload, {"model": "sim"})
    assert words in str(raised.value)


def test_the_server_shows_a_refusals_sentence_not_an_internal_error():
    """LangGraph's server shows the message of built-in exception types only (ValueError and kin)."""
    from langgraph_api.serde import default

    for error in (ConfigError("temperature must be in [0, 2], not 5.0"), InputError("the claim is empty")):
        assert default(error) == {"error": type(error).__name__, "message": str(error)}


def test_a_served_graph_form_leaves_out_what_the_deployer_sets():
    form = set(run_request("factcheck", None).get_context_jsonschema()["properties"])
    assert not form & set(served.SERVER_ONLY) and {"model", "rule", "search"} <= form


def test_a_served_graph_form_shows_the_bounds_that_set_and_the_server_check():
    """Issue 66: a field's bounds live on the field, so Studio's form reads the ones --set checks."""
    form = run_request("factcheck", None).get_context_jsonschema()["properties"]
    assert (form["temperature"]["minimum"], form["temperature"]["maximum"]) == (0, 2)
    assert (form["timeout_s"]["exclusiveMinimum"], form["timeout_s"]["maximum"]) == (0, 3600)
    assert (form["rounds"]["minimum"], form["rounds"]["maximum"]) == (0, 20)
    assert form["top_k"]["minimum"] == 1 and "maximum" not in form["top_k"]
    assert (form["theta"]["minimum"], form["theta"]["maximum"]) == (0, 1)
    with pytest.raises(ConfigError, match=r"temperature must be in \[0, 2\], not 2.5"):
        run_request("factcheck", {"model": "sim", "temperature": 2.5})


# --- item 3: a key an endpoint echoes is never written ---


def test_an_error_made_with_a_key_in_it_holds_no_key(monkeypatch):
    from factcourt.redact import redact, register_secret

    monkeypatch.setenv("TAVILY_API_KEY", "tvly-0123456789")
    assert "tvly-0123456789" not in str(BackendError("tavily: bad key tvly-0123456789"))
    register_secret("given-key-abcdefgh")
    assert redact("Bearer given-key-abcdefgh") == "Bearer [redacted]"
    assert redact("none of it") == "none of it"


def test_a_key_an_endpoint_echoes_is_in_no_result_or_report(stub, tmp_path, monkeypatch, capsys):
    """A 401 "Incorrect API key provided: Bearer <key>" put the key in --out (twice) and --html."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    stub.mode = "unauthorized"
    out, html = tmp_path / "r.json", tmp_path / "r.html"
    argv = ["verify", "--claim", CLAIM, "--base-url", stub.url, "--model", "m", "--no-cache"]
    code = main([*argv, "--search", "none", "--set", "retries=0", "--out", str(out), "--html", str(html)])
    printed = capsys.readouterr()
    assert code == 1 and f"Bearer {KEY}" in stub.authorizations  # the user's own --base-url: sent
    written = out.read_text(encoding="utf-8") + html.read_text(encoding="utf-8") + printed.out + printed.err
    assert "HTTP 401" in written and "[redacted]" in written
    assert KEY not in written


def test_a_key_an_endpoint_echoes_is_in_no_batch_summary(stub, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    stub.mode = "unauthorized"
    rows = tmp_path / "b.jsonl"
    rows.write_text("\n".join(json.dumps({"id": f"r{i}", "text": CLAIM}) for i in range(3)), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    argv = ["check", "--batch", str(rows), "--base-url", stub.url, "--model", "m", "--no-cache"]
    code = main([*argv, "--search", "none", "--set", "retries=0", "--json", "--out", str(out)])
    printed = capsys.readouterr()
    assert code == 1 and stub.requests >= 3
    written = printed.out + printed.err + (out.read_text(encoding="utf-8") if out.exists() else "")
    assert "401" in written and KEY not in written


def test_a_key_an_endpoint_echoes_is_in_no_audit_case(stub, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    stub.mode = "unauthorized"
    folder = tmp_path / "a"
    argv = ["audit", "--target-model", "m", "--target-base-url", stub.url, "--model", "sim"]
    options = ["--scale", "smoke", "--out", str(folder), "--search", "none", "--quiet"]
    assert main([*argv, *options, "--set", "retries=0", "--objects", "social_rumor"]) == 1
    printed = capsys.readouterr()
    written = printed.out + printed.err
    written += "".join(p.read_bytes().decode("utf-8", "replace") for p in folder.rglob("*") if p.is_file())
    assert "cases.jsonl" in {p.name for p in folder.rglob("*")} and "401" in written
    assert KEY not in written


def test_a_served_input_loses_its_escape_sequences_before_the_clerk_sees_it():
    """Item 4 on the server: a bare ESC[2J became a claim of its own."""
    from factcourt.serving.served import without_controls

    payload = {"response": "Paris is in France.\x1b]0;PWNED\x07 \x1b[2J", "question": "Where\x1b[31m?"}
    clean = without_controls(payload)
    assert clean == {"response": "Paris is in France. ", "question": "Where?"}
    claim = without_controls({"claim": {"id": "c1", "text": "Paris\x1b[2J is in France."}})
    assert claim["claim"]["text"] == "Paris is in France."


def test_a_served_run_checks_as_many_claims_at_a_time_as_its_context_says():
    """The server passes no concurrency bound: every claim ran at once, whatever max_concurrency said."""
    graph = run_request("factcheck", {"model": "sim", "search": "none", "max_concurrency": 1})
    text = "The Moon is round. Paris is in France. Mount Everest is in Asia."

    async def events():
        return [
            (e["event"], e["claim_id"])
            async for _, e in graph.astream(
                {"response": text},
                context={"model": "sim", "search": "none", "max_concurrency": 1},
                stream_mode="custom",
                subgraphs=True,
            )
            if e["event"] in ("claim_started", "verdict")
        ]

    seen = asyncio.run(events())
    assert [kind for kind, _ in seen] == ["claim_started", "verdict"] * 3, seen


@pytest.mark.parametrize(
    "context",
    [
        {"model": "gpt-4o-expensive"},
        {"model": "local"},
        {"role_models": {"judge": "gpt-4o-expensive"}},
        {"juror_models": ["sim", "gpt-4o-expensive"]},
        {"model_settings": {"sim": {"role_models": {"judge": "local"}}}},
    ],
)
def test_the_deployers_model_is_the_model_of_every_run(context, stub, tmp_path, monkeypatch):
    """Issue 65.4: with `factcourt ui --model X` a run naming another model reached the server's
    endpoint with the server's key ("local" started the 1.1 GB model on the server)."""
    settings = tmp_path / "server.json"
    settings.write_text(json.dumps({"model": "sim", "base_url": stub.url}), encoding="utf-8")
    monkeypatch.setenv(served.SETTINGS_VARIABLE, str(settings))
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    setting = next(iter(context))
    with pytest.raises(
        ConfigError, match=rf"^{setting}.*: this server's deployer chose the model every run uses$"
    ):
        run_request("verify", context)
    assert stub.requests == 0
    # its own model named again, or none, runs
    for same in ({"model": "sim"}, {"role_models": {"judge": "sim"}}, {}):
        run_request("verify", same)


def test_whether_a_file_exists_on_the_server_does_not_change_a_model_names_answer(tmp_path, monkeypatch):
    """Issue 65.9: "langgraph.json" was refused as a path while "langgraph2.json" ran: a file test."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "langgraph.json").write_text("{}", encoding="utf-8")
    (tmp_path / "src").mkdir()
    for present, absent in (("langgraph.json", "langgraph2.json"), ("src", "src2")):
        assert served.client_problem({"model": present}) == served.client_problem({"model": absent}) is None
