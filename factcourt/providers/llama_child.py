"""Entry point of the embedded model server's own process: llama.cpp's C++ server (xllamacpp).

Run as ``python -m factcourt.providers.llama_child --model F --port P ...`` by
``local_server``: the server lives in a child process so that a crash of llama.cpp never
takes the CLI with it, and the CLI can always stop it. With ``--registry`` it serves every
factcourt process of the machine that asks for the same weights and settings, and stops by
itself once none has used it for ``--keep-alive`` seconds, even if the last one was SIGKILLed.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
import time
from pathlib import Path

from factcourt.context.base import KEEP_ALIVE_S
from factcourt.providers.server_registry import Registry, watch_users


def main(argv: list[str] | None = None) -> int:
    """Serve one GGUF file on 127.0.0.1 until SIGTERM or SIGINT."""
    parser = argparse.ArgumentParser(prog="factcourt-llama-server")
    parser.add_argument("--model", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--ctx", type=int, default=4096, help="context window of each slot")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--slots", type=int, default=1, help="requests decoded in parallel")
    parser.add_argument("--alias", default="")
    parser.add_argument("--lora", help="a LoRA adapter GGUF applied to every request (a trained moderator)")
    parser.add_argument("--registry", help="directory of the machine's server registry")
    parser.add_argument(
        "--keep-alive", type=float, default=KEEP_ALIVE_S, help="seconds to stay up without users"
    )
    args = parser.parse_args(argv)
    stop = threading.Event()
    ready = threading.Event()
    if args.registry:
        threading.Thread(target=_watchdog, args=(args, stop, ready), daemon=True).start()

    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = args.model
    params.model_alias = args.alias or "local"
    params.hostnames = ["127.0.0.1"]
    params.port = args.port
    params.n_parallel = args.slots
    # llama.cpp splits n_ctx across the slots: each slot keeps the full window
    params.n_ctx = args.ctx * args.slots
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads
    params.warmup = False
    if args.lora:
        params.lora_adapters = [xllamacpp.CommonAdapterLoraInfo(args.lora, 1.0)]
    server = xllamacpp.Server(params)  # loads the model and starts listening, or raises
    print(f"factcourt: llama.cpp server ready on {server.listening_address}", flush=True)
    ready.set()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    stop.wait()
    del server  # its destructor stops the HTTP and decoding loops
    return 0


def _watchdog(args: argparse.Namespace, stop: threading.Event, ready: threading.Event) -> None:
    watch_users(Registry(Path(args.registry)), args.keep_alive)  # keeps the lock until exit
    print("factcourt: no user left, stopping", flush=True)
    if not ready.is_set():
        os._exit(0)  # the model is still loading: nothing to shut down cleanly
    stop.set()
    time.sleep(10)  # the destructor normally ends the process well before this
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main())
