"""A PostgreSQL server of Debian's packages for tests: initdb in a temporary folder, a free port.

It can be stopped and started again on the same data (a store that goes away mid-run and comes
back). Skipped, saying why, where PostgreSQL or psycopg is missing.
"""

from __future__ import annotations

import glob
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest


class Postgres:
    """One server: :meth:`start`, :meth:`stop`, :meth:`remove`; its :attr:`url`."""

    def __init__(self) -> None:
        """Make the data folder (initdb) on a free port; not started yet."""
        bins = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
        if not bins:
            pytest.skip("PostgreSQL is not installed (apt-get install postgresql)")
        pytest.importorskip("psycopg", reason="psycopg is not installed (pip install '.[postgres]')")
        pytest.importorskip("langgraph.checkpoint.postgres", reason="pip install '.[postgres]'")
        self.bin = Path(bins[-1]).parent
        self.folder = Path(tempfile.mkdtemp(prefix="factcourt-pg-"))
        # the server refuses to run as root: as root, it runs as Debian's postgres user
        self.user = "postgres" if os.geteuid() == 0 else None
        if self.user:
            shutil.chown(self.folder, self.user, self.user)
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        self.data = self.folder / "data"
        self.url = f"postgresql://factcourt@127.0.0.1:{self.port}/postgres"
        self.process: subprocess.Popen | None = None
        subprocess.run(
            [
                self.bin / "initdb",
                "-D",
                self.data,
                "-U",
                "factcourt",
                "--auth=trust",
                "-E",
                "UTF8",
                "--no-sync",
            ],
            check=True,
            capture_output=True,
            user=self.user,
        )

    def start(self) -> None:
        """Start the server and wait until it takes connections."""
        import psycopg

        with (self.folder / "server.log").open("ab") as log:
            self.process = subprocess.Popen(
                [self.bin / "postgres", "-D", self.data, "-p", str(self.port), "-k", self.folder]
                + ["-h", "127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off"]
                + ["-c", "max_connections=200"],
                stdout=log,
                stderr=subprocess.STDOUT,
                user=self.user,
            )
        deadline = time.monotonic() + 60
        while True:
            try:
                psycopg.connect(self.url, connect_timeout=2).close()
                return
            except psycopg.OperationalError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    said = (self.folder / "server.log").read_text()
                    raise RuntimeError(f"PostgreSQL did not start: {said}") from None
                time.sleep(0.2)

    def stop(self, *, immediate: bool = False) -> None:
        """Stop the server: fast (clients cut off), or as ``pg_ctl stop -m immediate`` does (no shutdown)."""
        if self.process is None:
            return
        self.process.send_signal(signal.SIGQUIT if immediate else signal.SIGINT)
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process = None

    def remove(self) -> None:
        """Stop the server and delete its folder."""
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)
