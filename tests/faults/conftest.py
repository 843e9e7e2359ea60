import pytest

from tests.faults.stub import Stub


@pytest.fixture(scope="module")
def stub():
    """One stub endpoint for the module; each test sets its mode."""
    server = Stub()
    yield server
    server.close()


@pytest.fixture(autouse=True)
def fresh_stub(request):
    """Back to answering every request, with the count reset."""
    if "stub" in request.fixturenames:
        server = request.getfixturevalue("stub")
        server.mode, server.fault_when, server.requests = "ok", "", 0
    yield
