"""The toy's served graph: the one line its ``langgraph.json`` line names (``served.py:echo``)."""

from factcourt.serving.served import graph_factory

echo = graph_factory("echo")
