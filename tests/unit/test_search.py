"""Search backends: BM25 over the offline Wikipedia summaries, errors, retries and cache."""

import json
import os

import pytest

from factcourt.context.base import BaseContext
from factcourt.errors import BackendError, ConfigError, InputError
from factcourt.providers import search
from factcourt.providers.search import LocalBM25, load_corpus


@pytest.fixture(scope="module")
def wikipedia():
    return LocalBM25(load_corpus(None))


@pytest.mark.parametrize(
    "claim, title",
    [
        ("The Eiffel Tower is a wrought-iron lattice tower in Paris", "Eiffel Tower"),
        ("Albert Einstein developed the theory of relativity", "Albert Einstein"),
        ("The Great Wall of China was built across northern China", "Great Wall of China"),
        ("Photosynthesis converts light energy into chemical energy in plants", "Photosynthesis"),
    ],
)
def test_bm25_finds_the_right_wikipedia_summary(wikipedia, claim, title):
    titles = [e.title for e in wikipedia.search(claim, 3)]
    assert title in titles
    top = wikipedia.search(claim, 1)[0]
    assert top.url.startswith("https://en.wikipedia.org/wiki/") and top.source == "local"


def test_default_corpus_is_the_10k_wikipedia_summaries(wikipedia):
    assert len(wikipedia.documents) > 10_000


def test_jsonl_and_folder_corpora(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.txt").write_text("Lions live in Africa.", encoding="utf-8")
    assert load_corpus(tmp_path / "docs")[0].url == "a.txt"
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"text": "ok"}) + "\n{oops\n", encoding="utf-8")
    with pytest.raises(InputError, match="bad.jsonl:2"):
        load_corpus(bad)


def test_missing_keys_are_config_errors():
    search._backends.clear()
    with pytest.raises(ConfigError, match="TAVILY_API_KEY"):
        search.backend(BaseContext(search="tavily"))
    with pytest.raises(ConfigError, match="SERPER_API_KEY"):
        search.backend(BaseContext(search="serper"))


def test_tavily_error_replies_become_errors(monkeypatch):
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-test")
    tavily = search.TavilyBackend()

    class Tool:
        def invoke(self, _):
            return {"error": "rate limited"}

    tavily._tool = Tool()
    with pytest.raises(BackendError, match="rate limited"):
        tavily.search("q", 3)


class Flaky:
    name = "flaky"

    def __init__(self, failures):
        self.failures, self.calls = failures, 0

    def search(self, query, k):
        self.calls += 1
        if self.calls <= self.failures:
            raise ConnectionError("backend down")
        return [search.Evidence(text=f"about {query}", url="u", source="flaky")]


def test_backend_errors_are_retried_then_raised_never_empty(monkeypatch):
    ctx = BaseContext(search="tavily", retries=2, cache=False)
    flaky = Flaky(failures=1)
    monkeypatch.setattr(search, "backend", lambda _ctx: flaky)
    found, real = search.search(ctx, "q")
    assert found and real and flaky.calls == 2
    down = Flaky(failures=99)
    monkeypatch.setattr(search, "backend", lambda _ctx: down)
    with pytest.raises(BackendError, match="backend down"):
        search.search(ctx, "q")
    assert down.calls == 3


def test_search_results_are_cached(monkeypatch):
    ctx = BaseContext(search="tavily")
    flaky = Flaky(failures=0)
    monkeypatch.setattr(search, "backend", lambda _ctx: flaky)
    assert search.search(ctx, "same")[1] is True
    found, real = search.search(ctx, "same")
    assert real is False and found[0].text == "about same" and flaky.calls == 1


def test_a_down_backend_fails_the_claim_with_the_reason(scripted, monkeypatch):
    import factcourt

    monkeypatch.setattr(search, "backend", lambda _ctx: Flaky(failures=99))
    result = factcourt.verify(
        "The Moon orbits the Earth.",
        model="scripted",
        rule="mandatory_search",
        cache=False,
        retries=1,
        search="tavily",
    )
    assert result["verdict"] is None and "backend down" in result["error"]


class DownAfter(Flaky):
    """Answers the first ``good`` searches, then is down."""

    def __init__(self, good):
        super().__init__(failures=0)
        self.good = good

    def search(self, query, k):
        if self.calls >= self.good:
            self.calls += 1
            raise ConnectionError("backend down")
        return super().search(query, k)


def test_a_search_failing_mid_debate_fails_the_claim_and_drops_the_verdicts_given(scripted, monkeypatch):
    # documents the current behaviour: the claim gets no verdict, its turns stay in the transcript
    import factcourt
    from factcourt.context.claims import PRESETS
    from tests.fakes import juror

    down = DownAfter(good=1)
    monkeypatch.setattr(search, "backend", lambda _ctx: down)
    scripted.script["JurorAnswer"] = [juror("supported"), juror("refuted"), juror("supported")]
    scripted.script["SearchQuery"] = [{"query": "Moon orbit"}]
    settings = {**PRESETS["madfact"], "rule": "adaptive", "search": "tavily", "retries": 1}
    result = factcourt.verify("The Moon orbits the Earth.", model="scripted", cache=False, **settings)
    # round 1 split, so round 2 searches first: the first juror's search answers, the second's fails
    assert down.calls == 3 and result["usage"]["search_calls"] == 1
    assert result["verdict"] is None and "backend down" in result["error"]
    assert [(t["round"], t["speaker"]) for t in result["transcript"]] == [
        (1, "General Public"),
        (1, "Critic"),
        (1, "News Author"),
        (2, "General Public"),
    ]
    assert result["first_round_verdict"] == "supported"


def test_serper_reads_the_answer_box_then_organic_results_and_raises_on_http_errors(monkeypatch):
    import httpx

    monkeypatch.setenv("SERPER_API_KEY", "key")
    sent = []

    def post(url, headers, json, timeout):
        sent.append((url, headers, json))
        body = {
            "answerBox": {"answer": "Paris", "link": "https://a", "title": "Capital"},
            "organic": [{"snippet": "Paris is the capital of France.", "link": "https://b", "title": "F"}],
        }
        status = 200 if json["q"] != "down" else 503
        return httpx.Response(status, json=body, request=httpx.Request("POST", url))

    monkeypatch.setattr(httpx, "post", post)
    backend = search.SerperBackend()
    found = backend.search("capital of France", k=5)
    assert [e.text for e in found] == ["Paris", "Paris is the capital of France."]
    assert sent[0][1] == {"X-API-KEY": "key"} and sent[0][2]["q"] == "capital of France"
    with pytest.raises(httpx.HTTPStatusError):
        backend.search("down", k=5)


OTHERS = ["Lions live in Africa.", "The Moon orbits the Earth.", "Rust is a programming language."]


def _jsonl(path, text):
    """A corpus of ``text`` and three documents about other things (BM25 needs a few to rank)."""
    path.write_text("\n".join(json.dumps({"text": t}) for t in [text, *OTHERS]), encoding="utf-8")


def _local(corpus, query="Where is Paris?"):
    """A local search as a new run makes it: the corpus is read again."""
    search._backends.clear()
    found, real = search.search(BaseContext(search="local", corpus=str(corpus), top_k=1), query)
    return [e.text for e in found], real


def test_an_edited_corpus_file_is_searched_again_not_served_from_the_cache(tmp_path):
    import os

    corpus = tmp_path / "c.jsonl"
    _jsonl(corpus, "Paris is in France.")
    assert _local(corpus) == (["Paris is in France."], True)
    assert _local(corpus) == (["Paris is in France."], False)
    _jsonl(corpus, "Paris is in Texas too.")
    os.utime(corpus, ns=(1, 1))
    assert _local(corpus) == (["Paris is in Texas too."], True)


def test_one_relative_corpus_path_from_two_folders_is_two_corpora(tmp_path, monkeypatch):
    for folder, text in (("one", "Paris is in France."), ("two", "Paris is in Texas too.")):
        (tmp_path / folder).mkdir()
        _jsonl(tmp_path / folder / "c.jsonl", text)
    monkeypatch.chdir(tmp_path / "one")
    assert _local("c.jsonl") == (["Paris is in France."], True)
    monkeypatch.chdir(tmp_path / "two")
    assert _local("c.jsonl") == (["Paris is in Texas too."], True)
    # without a new run too: the process keeps one index per corpus, not per string typed
    found, _ = search.search(BaseContext(search="local", corpus="c.jsonl", top_k=1), "Where is Paris?")
    assert [e.text for e in found] == ["Paris is in Texas too."]


def test_a_folder_corpus_with_an_edited_file_is_searched_again(tmp_path):
    import os

    folder = tmp_path / "docs"
    folder.mkdir()
    for number, text in enumerate(["Paris is in France.", *OTHERS]):
        (folder / f"{number}.txt").write_text(text, encoding="utf-8")
    assert _local(folder) == (["Paris is in France."], True)
    assert _local(folder) == (["Paris is in France."], False)
    (folder / "0.txt").write_text("Paris is in Texas too.", encoding="utf-8")
    os.utime(folder / "0.txt", ns=(1, 1))
    assert _local(folder) == (["Paris is in Texas too."], True)


def test_a_long_running_process_searches_a_corpus_edited_while_it_runs(tmp_path):
    """The LangGraph server keeps its process: an edit must reach the next run without a restart."""
    import os

    corpus = tmp_path / "c.jsonl"
    _jsonl(corpus, "Paris is in France.")
    ctx = BaseContext(search="local", corpus=str(corpus), top_k=1)
    search._backends.clear()
    assert [e.text for e in search.search(ctx, "Where is Paris?")[0]] == ["Paris is in France."]
    _jsonl(corpus, "Paris is in Texas too.")
    os.utime(corpus, ns=(1, 1))
    found, real = search.search(ctx, "Where is Paris?")
    assert ([e.text for e in found], real) == (["Paris is in Texas too."], True)
    assert len(search._backends) == 1  # the old index is dropped, not kept beside the new one


def test_a_folder_corpus_is_walked_again_only_after_a_pause(tmp_path, monkeypatch):
    """Walking a folder stats every file: each query would pay it; an edit shows after a pause."""
    import os

    folder = tmp_path / "docs"
    folder.mkdir()
    for number, text in enumerate(["Paris is in France.", *OTHERS]):
        (folder / f"{number}.txt").write_text(text, encoding="utf-8")
    walks = []
    real_identity = search.corpus_identity
    monkeypatch.setattr(search, "corpus_identity", lambda path: walks.append(path) or real_identity(path))
    ctx = BaseContext(search="local", corpus=str(folder), top_k=1)
    search._backends.clear()
    for query in ("Where is Paris?", "Where do lions live?", "What orbits the Earth?"):
        search.search(ctx, query)
    assert len(walks) == 1
    (folder / "0.txt").write_text("Paris is in Texas too.", encoding="utf-8")
    os.utime(folder / "0.txt", ns=(1, 1))
    monkeypatch.setattr(search, "FOLDER_RECHECK_S", 0.0)
    assert [e.text for e in search.search(ctx, "Where is Paris?")[0]] == ["Paris is in Texas too."]


def test_a_folder_corpus_that_fails_to_load_fails_again_at_once(tmp_path, monkeypatch):
    folder = tmp_path / "docs"
    folder.mkdir()
    for number, text in enumerate(["Paris is in France.", *OTHERS]):
        (folder / f"{number}.txt").write_text(text, encoding="utf-8")
    ctx = BaseContext(search="local", corpus=str(folder), top_k=1)
    search._backends.clear()
    search.search(ctx, "Where is Paris?")
    monkeypatch.setattr(search, "FOLDER_RECHECK_S", 0.0)
    (folder / "0.txt").write_text("Paris is in Texas too.", encoding="utf-8")
    os.utime(folder / "0.txt", ns=(1, 1))
    monkeypatch.setattr(search, "load_corpus", lambda path: (_ for _ in ()).throw(InputError("unreadable")))
    with pytest.raises(InputError):
        search.search(ctx, "Where is Paris?")
    monkeypatch.setattr(search, "FOLDER_RECHECK_S", 60.0)
    with pytest.raises(InputError):  # the next call within the pause fails too: never the old index
        search.search(ctx, "Where is Paris?")


def test_the_shipped_corpus_is_served_from_the_cache_by_the_next_run():
    search._backends.clear()
    ctx = BaseContext(search="local")
    assert search.search(ctx, "Eiffel Tower Paris")[1] is True
    search._backends.clear()
    assert search.search(ctx, "Eiffel Tower Paris")[1] is False
