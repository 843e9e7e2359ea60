"""``factcourt bench server``: the LangGraph server's cold start and per-run cost vs in process."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from typing import Any

TEXT = "The Eiffel Tower is in Paris. The Moon is Earth's only natural satellite. Mount Everest is in Asia."
SETTINGS: dict[str, Any] = {"model": "sim", "search": "none", "cache": False}


def run_server_bench(
    running_server: Callable[[int], contextlib.AbstractContextManager[str]], runs: int = 5
) -> dict[str, Any]:
    """Start the server, time ``/ok``, then stream ``runs`` factcheck runs both ways.

    ``running_server(port)`` is handed by the command, which sits above the registry that the
    server serves: the benchmarks stay below it.
    """
    from factcourt.providers.local_server import free_port

    start = time.perf_counter()
    with running_server(free_port()) as url:
        cold = time.perf_counter() - start
        via_server = asyncio.run(_stream_via_server(url, runs))
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
    from factcourt.context.claims import ClaimsContext
    from factcourt.graphs.factcheck import graph

    ctx, times = ClaimsContext(**SETTINGS), []
    for _ in range(runs):
        start = time.perf_counter()
        async for _part in graph.astream(
            {"response": TEXT}, context=ctx, stream_mode=["updates", "custom"], subgraphs=True
        ):
            pass
        times.append(round(time.perf_counter() - start, 3))
    return times
