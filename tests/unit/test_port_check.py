"""`factcourt serve` checks its port before starting: a port in use is an error, one that only
has connections in TIME_WAIT (a server that just stopped) is free."""

import socket
import sys

import pytest

from factcourt.errors import ConfigError
from factcourt.serving.server import check_port_free


def test_a_port_with_time_wait_connections_is_free_and_a_listener_is_not():
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]
    with pytest.raises(ConfigError, match=f"port {port} is not free"):
        check_port_free(port)
    client = socket.create_connection(("127.0.0.1", port))
    accepted, _ = listener.accept()
    accepted.close()  # the server side closes first: its end of the connection is in TIME_WAIT
    client.close()
    listener.close()
    if sys.platform == "linux":  # elsewhere SO_REUSEADDR rules differ
        check_port_free(port)
