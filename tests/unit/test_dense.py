"""Hybrid retrieval: the corpus's embeddings built once and kept, and BM25 and dense ranks fused."""

import json

import numpy as np
import pytest

from factcourt.bench.context import BenchContext
from factcourt.bench.retrieval import run as bench_retrieval
from factcourt.context.base import BaseContext
from factcourt.providers import dense, search
from factcourt.providers.dense import corpus_vectors, fuse, nearest
from factcourt.providers.embeddings import LocalE5
from factcourt.providers.search import LocalHybrid
from factcourt.state.records import Evidence
from tests.fakes import PassageBagOfWords


def docs(n):
    return [
        Evidence(text=f"document number {i} about topic{i}", title=f"Doc {i}", url=str(i)) for i in range(n)
    ]


def test_fusion_sums_reciprocal_ranks():
    # k=1: item 1 scores 1/2 + 1/3, item 3 1/4 + 1/2, item 2 1/3, item 4 1/4
    assert fuse([[1, 2, 3], [3, 1, 4]], k=1) == [1, 3, 2, 4]
    # k=60: 1/61 + 1/62 (item 1) beats 1/63 + 1/61 (item 3)
    assert fuse([[1, 2, 3], [3, 1, 4]]) == [1, 3, 2, 4]
    # a tie keeps the order of first appearance; one ranking empty (BM25 found nothing): the other
    assert fuse([[5, 6], [6, 5]]) == [5, 6]
    assert fuse([[], [7, 8]]) == [7, 8]


def test_nearest_orders_rows_by_similarity():
    vectors = np.array([[1.0, 0.0], [0.6, 0.8], [0.0, 1.0], [0.8, 0.6]], dtype=np.float32)
    assert nearest(vectors, np.array([1.0, 0.0], dtype=np.float32), 2) == [0, 3]
    assert nearest(vectors, np.array([0.0, 1.0], dtype=np.float32), 10) == [2, 1, 3, 0]


def test_the_index_is_built_once_then_read_from_the_user_cache(tmp_path):
    embedder = PassageBagOfWords()
    progress = []
    first = corpus_vectors(docs(5), "corpus-a", embedder, lambda done, total: progress.append((done, total)))
    assert embedder.embedded == 5 and progress[-1] == (5, 5)
    assert list((tmp_path / "cache" / "dense").glob("*.npy"))  # FACTCOURT_CACHE_DIR (conftest)
    again = corpus_vectors(docs(5), "corpus-a", embedder)
    assert embedder.embedded == 5
    np.testing.assert_array_equal(first, again)
    corpus_vectors(docs(5), "corpus-b", embedder)  # another corpus: its own index
    assert embedder.embedded == 10


def test_an_interrupted_build_resumes_where_it_stopped(monkeypatch):
    monkeypatch.setattr(dense, "CHUNK", 2)

    class Interrupted(PassageBagOfWords):
        def passages(self, texts):
            if self.embedded >= 2:
                raise KeyboardInterrupt
            return super().passages(texts)

    with pytest.raises(KeyboardInterrupt):
        corpus_vectors(docs(5), "c", Interrupted())
    embedder = PassageBagOfWords()
    resumed = corpus_vectors(docs(5), "c", embedder)
    assert embedder.embedded == 3  # the first chunk was kept
    np.testing.assert_array_equal(resumed, corpus_vectors(docs(5), "whole", PassageBagOfWords()))


@pytest.fixture
def fake_e5(monkeypatch):
    embedder = PassageBagOfWords()
    monkeypatch.setattr(search, "LocalE5", lambda: embedder)
    return embedder


def test_the_local_backend_embeds_an_edited_corpus_again(tmp_path, fake_e5):
    path = tmp_path / "corpus.jsonl"
    path.write_text(json.dumps({"text": "Paris is in France.", "title": "Paris"}), encoding="utf-8")
    ctx = BaseContext.make(search="local", corpus=str(path), retrieval="hybrid")
    assert isinstance(search.backend(ctx), LocalHybrid) and fake_e5.embedded == 1
    search._backends.clear()  # a new process: the index is read, not built
    search.backend(ctx)
    assert fake_e5.embedded == 1
    rows = [{"text": "Paris is in France.", "title": "Paris"}, {"text": "Rome is in Italy.", "title": "Rome"}]
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    assert len(search.backend(ctx).documents) == 2
    assert fake_e5.embedded == 3


def test_hybrid_search_fuses_and_is_cached_apart_from_bm25(corpus, fake_e5):
    hybrid = BaseContext.make(search="local", corpus=corpus, retrieval="hybrid")
    found, real = search.search(hybrid, "Where is the Eiffel Tower?")
    assert real and found[0].title == "Eiffel Tower" and len(found) == hybrid.top_k
    # BM25 finds only documents sharing a word; the fusion adds the embeddings' nearest
    bm25 = BaseContext.make(search="local", corpus=corpus)
    only_words, real = search.search(bm25, "Where is the Eiffel Tower?")
    assert real and [e.title for e in only_words] == ["Eiffel Tower"]
    assert search.search(hybrid, "Where is the Eiffel Tower?") == (found, False)


def test_hybrid_with_the_shipped_e5_model_on_three_documents():
    documents = [
        Evidence(text="Paris is the capital and largest city of France.", title="Paris", url="p"),
        Evidence(
            text="Mount Everest, in the Himalayas, is Earth's highest mountain.", title="Everest", url="e"
        ),
        Evidence(text="The Moon is Earth's only natural satellite.", title="Moon", url="m"),
    ]
    index = LocalHybrid(documents, "three", LocalE5())
    assert index.vectors.shape == (3, 384)
    assert index.nearest("the tallest peak in the world", 3)[0] == 1
    assert index.search("Which city is the French capital?", 1)[0].title == "Paris"


def test_bench_retrieval_measures_hybrid_beside_bm25(tmp_path, fake_e5):
    pages = ["Paris", "Eiffel_Tower", "Moon"]
    corpus = tmp_path / "wiki.jsonl"
    corpus.write_text(
        "\n".join(
            json.dumps(
                {
                    "title": p,
                    "text": f"{p.replace('_', ' ')} text.",
                    "url": f"https://en.wikipedia.org/wiki/{p}",
                }
            )
            for p in pages
        ),
        encoding="utf-8",
    )
    claims = tmp_path / "claims.jsonl"
    row = {
        "id": "a1-0",
        "claim": "The Eiffel Tower is tall.",
        "evidence": ["https://en.wikipedia.org/wiki/Eiffel_Tower"],
    }
    claims.write_text(json.dumps(row), encoding="utf-8")
    progress = []
    found = bench_retrieval(
        claims,
        BenchContext.make(corpus=str(corpus)),
        k=1,
        part="all",
        dense=True,
        progress=lambda done, total: progress.append(done),
    )
    assert found["segments"] == 1 and progress == [3]
    assert set(found["recall"]) == {
        f"{q} / {r}" for q in ("claim", "question+claim") for r in ("bm25", "dense", "hybrid")
    }
    assert found["recall"]["claim / hybrid"] == found["recall"]["claim / bm25"] == 1.0
    assert set(found["ms_per_query"]) == set(found["recall"])
