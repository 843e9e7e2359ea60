"""Fixtures of the pyramid and leaderboard tests: scripted experts and a fake embedder."""

import pytest

from factcourt.providers import embeddings, models
from tests.fakes import ANSWERS, BagOfWords, ScriptedModel, same_fact_by_key


@pytest.fixture
def bag_of_words(monkeypatch):
    monkeypatch.setattr(embeddings, "embedder", lambda settings=None: BagOfWords())


@pytest.fixture
def experts(scripted, bag_of_words):
    """Three scripted experts answering ANSWERS; 'scripted' is the Clerk and the matcher."""
    made = {}
    for name, text in ANSWERS.items():
        made[name] = ScriptedModel(script={"LongAnswer": [{"answer": text}]})
        models.register_model(name, made[name])
    scripted.script["SameFact"] = [same_fact_by_key]
    yield made
    for name in ANSWERS:
        models.register_model(name, None)
