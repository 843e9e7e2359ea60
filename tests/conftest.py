import os

import pytest

os.environ.setdefault("LANGSMITH_TRACING", "false")
os.environ.setdefault("LANGSMITH_TEST_TRACKING", "false")
os.environ.setdefault("LANGGRAPH_CLI_NO_ANALYTICS", "1")
os.environ.setdefault("LANGGRAPH_NO_VERSION_CHECK", "true")
for secret in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "TAVILY_API_KEY", "SERPER_API_KEY"):
    os.environ.pop(secret, None)

from factcourt.providers import models, search  # noqa: E402
from factcourt.state.records import Evidence  # noqa: E402
from tests.fakes import ScriptedModel  # noqa: E402


@pytest.fixture(autouse=True)
def isolated_cache(tmp_path, monkeypatch):
    """Every test gets its own cache directory."""
    monkeypatch.setenv("FACTCOURT_CACHE_DIR", str(tmp_path / "cache"))
    yield


@pytest.fixture
def corpus(tmp_path):
    """A tiny local corpus, so search runs for real without the Wikipedia file."""
    path = tmp_path / "corpus.jsonl"
    docs = [
        {"id": "paris", "title": "Paris", "text": "Paris is the capital and largest city of France."},
        {
            "id": "eiffel",
            "title": "Eiffel Tower",
            "text": "The Eiffel Tower is a wrought-iron tower in Paris, completed in 1889.",
        },
        {
            "id": "everest",
            "title": "Mount Everest",
            "text": "Mount Everest, in the Himalayas of Asia, is Earth's highest mountain.",
        },
        {"id": "moon", "title": "Moon", "text": "The Moon is Earth's only natural satellite."},
    ]
    import json

    path.write_text("\n".join(json.dumps(d) for d in docs), encoding="utf-8")
    search._backends.clear()
    return str(path)


@pytest.fixture
def scripted():
    """Register a ScriptedModel as model 'scripted'; tests fill its script."""
    model = ScriptedModel()
    models.register_model("scripted", model)
    yield model
    models.register_model("scripted", None)


@pytest.fixture
def evidence():
    return [Evidence(text="Paris is the capital of France.", url="https://example.org/paris", title="Paris")]


@pytest.fixture
def fourway_dataset(tmp_path):
    """Claims with AVeriTeC's four labels, all in the train ('dev') part: what synth-sft takes."""
    import json

    from factcourt.bench.runner import in_part

    ids = [f"c{i}" for i in range(20) if in_part(f"c{i}", "dev")][:2]
    rows = [
        {
            "id": ids[0],
            "claim": "Mount Everest is in Africa.",
            "label": False,
            "meta": {"label_4way": "Refuted"},
        },
        {
            "id": ids[1],
            "claim": "Mount Everest is in Asia.",
            "label": True,
            "meta": {"label_4way": "Supported"},
        },
    ]
    knowledge = "Mount Everest, in the Himalayas of Asia, is Earth's highest mountain."
    path = tmp_path / "claims.jsonl"
    path.write_text("\n".join(json.dumps({**r, "evidence": [knowledge]}) for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def qa_dataset(tmp_path):
    """A HaluEval-style QA file: a hallucinated answer (label false) and a right one (true)."""
    import json

    knowledge = "Mount Everest, in the Himalayas of Asia, is Earth's highest mountain."
    rows = [
        {"id": "q1", "question": "Where is Mount Everest?", "answer": "Mount Everest is in Africa."},
        {"id": "q2", "question": "Where is Mount Everest?", "answer": "In Asia."},
    ]
    path = tmp_path / "qa.jsonl"
    lines = [json.dumps({**r, "knowledge": knowledge, "label": r["id"] == "q2"}) for r in rows]
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


@pytest.fixture
def stoppable_store(monkeypatch):
    """A PostgreSQL server of the test's own (tests/postgres.py), started: the test may stop and start it."""
    from factcourt.providers import cache
    from tests.postgres import Postgres

    monkeypatch.setenv("FACTCOURT_STORE", "")  # --store sets it for the process: put back after
    server = Postgres()
    try:
        server.start()
        yield server
    finally:
        for key in [k for k in cache._stores if k.startswith(server.url)]:
            cache._stores.pop(key)
        server.remove()
