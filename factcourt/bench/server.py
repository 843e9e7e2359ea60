"""``factcourt bench server``: the LangGraph server's cold start and per-run cost vs in process."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import time
import urllib.request
from typing import Any

TEXT = "The Eiffel Tower is in Paris. The Moon is Earth's only natural satellite. Mount Everest is in Asia."
SETTINGS = {"model": "sim", "search": "none", "cache": False}


def run_server_bench(runs: int = 5) -> dict[str, Any]:
    """Start ``langgraph dev``, time ``/ok``, then stream ``runs`` factcheck runs both ways."""
    from factcourt.providers.local_server import free_port
    from factcourt.server import PROJECT_ROOT, langgraph_dev

    port = free_port()
    command, env = langgraph_dev(port)
    start = time.perf_counter()
    server = subprocess.Popen(
        command,
        cwd=PROJECT_ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/ok", timeout=1)
                break
            except OSError:
                if server.poll() is not None:
                    raise RuntimeError("langgraph dev exited before answering /ok") from None
                time.sleep(0.05)
        cold = time.perf_counter() - start
        via_server = asyncio.run(_stream_via_server(f"http://127.0.0.1:{port}", runs))
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
    return {
        "cold_start_to_ok_s": round(cold, 2),
        "server_stream_s": via_server,
        "in_process_stream_s": asyncio.run(_stream_in_process(runs)),
    }


async def _stream_via_server(url: str, runs: int) -> list[float]:
    from langgraph_sdk import get_client

    client, times = get_client(url=url), []
    for _ in range(runs):
        thread = await client.threads.create()
        start = time.perf_counter()
        async for _part in client.runs.stream(
            thread["thread_id"],
            "factcheck",
            input={"response": TEXT},
            context=SETTINGS,
            stream_mode=["updates", "custom"],
            stream_subgraphs=True,
        ):
            pass
        times.append(round(time.perf_counter() - start, 3))
    return times


async def _stream_in_process(runs: int) -> list[float]:
    from factcourt.context import Context
    from factcourt.graphs.factcheck import graph

    ctx, times = Context(**SETTINGS), []
    for _ in range(runs):
        start = time.perf_counter()
        async for _part in graph.astream(
            {"response": TEXT}, context=ctx, stream_mode=["updates", "custom"], subgraphs=True
        ):
            pass
        times.append(round(time.perf_counter() - start, 3))
    return times
