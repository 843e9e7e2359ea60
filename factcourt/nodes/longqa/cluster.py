"""Topic clusters of the sub-questions: the candidates the fusion step chooses from.

Offline and without a model: TF-IDF vectors of character bigrams (Chinese) and words, then
average-linkage clustering (scipy) cut at a cosine distance.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

import numpy as np
from langgraph.runtime import Runtime
from scipy.cluster.hierarchy import fcluster, linkage

from factcourt.context.longqa import LongQAContext
from factcourt.providers.search import tokenize
from factcourt.state.longqa import LongQAState


def features(text: str) -> Counter[str]:
    """Chinese characters and their bigrams, and whole words of other scripts."""
    tokens = tokenize(text)
    chinese = [t for t in tokens if len(t) == 1 and "\u4e00" <= t <= "\u9fff"]
    words = [t for t in tokens if not (len(t) == 1 and "\u4e00" <= t <= "\u9fff")]
    return Counter(words + chinese + [a + b for a, b in zip(chinese, chinese[1:], strict=False)])


def topic_clusters(texts: list[str], max_distance: float) -> list[list[int]]:
    """Indices of ``texts`` grouped by topic, each group and the groups in first-seen order.

    Terms every text shares (question words) weigh least (TF-IDF); a text with no terms is a
    cluster of its own.
    """
    counts = [features(t) for t in texts]
    terms = sorted({term for c in counts for term in c})
    usable = [i for i, c in enumerate(counts) if c]
    if len(usable) < 2 or max_distance <= 0:
        return [[i] for i in range(len(texts))]
    frequency = Counter(term for i in usable for term in counts[i])
    idf = {t: math.log((1 + len(usable)) / (1 + frequency[t])) + 1 for t in terms}
    vectors = np.array([[counts[i][t] * idf[t] for t in terms] for i in usable])
    labels = fcluster(linkage(vectors, method="average", metric="cosine"), max_distance, "distance")
    groups: dict[int, list[int]] = {}
    for i, label in zip(usable, labels, strict=True):
        groups.setdefault(int(label), []).append(i)
    clusters = list(groups.values()) + [[i] for i, c in enumerate(counts) if not c]
    return sorted(clusters, key=lambda group: group[0])


async def cluster(state: LongQAState, runtime: Runtime[LongQAContext]) -> dict[str, Any]:
    """Group the seed's sub-questions into candidate clusters."""
    ids = list(state.get("sub_questions", {}))
    questions = [state["sub_questions"][i] for i in ids]
    groups = topic_clusters(questions, runtime.context.longqa_cluster_distance)
    return {"clusters": [[ids[i] for i in group] for group in groups]}
