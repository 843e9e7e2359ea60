"""Stand-in for factcourt.providers.llama_child: answers /v1/models and watches its users like it.

Run as ``python fake_llama_child.py REGISTRY_MODULE --port P --registry DIR --keep-alive S``; the
registry module is loaded by path, which spares each start factcourt's package imports.
"""

import argparse
import importlib.util
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b'{"data": []}')

    def log_message(self, *args):
        pass


def main():
    spec = importlib.util.spec_from_file_location("server_registry", sys.argv[1])
    registry = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(registry)
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int)
    parser.add_argument("--registry")
    parser.add_argument("--keep-alive", type=float)
    args, _ = parser.parse_known_args(sys.argv[2:])

    def watchdog():
        registry.watch_users(registry.Registry(Path(args.registry)), args.keep_alive, poll_s=0.05)
        os._exit(0)

    threading.Thread(target=watchdog, daemon=True).start()
    ThreadingHTTPServer(("127.0.0.1", args.port), Handler).serve_forever()


if __name__ == "__main__":
    main()
