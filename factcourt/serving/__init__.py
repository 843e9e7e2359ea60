"""The LangGraph server's side: the served graphs, the server's start and auth, the page.

``served`` (the graphs), ``server`` (starting it, who may call it) and ``page`` (checking text in
the browser) are the entry points ``langgraph.json`` names: they sit above the registry
(``factcourt.systems``) and read the systems from it, as the command line (``factcourt.cli``) does.
"""
