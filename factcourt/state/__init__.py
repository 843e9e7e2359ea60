"""Typed state of the graphs and the structured outputs the agents answer with: one module per system.

Graph states are ``TypedDict``s whose list fields that parallel or repeated nodes append to
carry an ``operator.add`` reducer. Records that cross node boundaries are Pydantic models so
they validate, serialise to JSON and render in LangGraph Studio. ``factcourt.state.records``
holds what several systems share; each system's own models live in its module
(``factcourt.state.claims``, ``.hallucination``, ...), which its nodes import directly, so no
module here names every system (the registry, ``factcourt.systems``, does).
"""

from types import ModuleType

from pydantic import BaseModel

from factcourt.state import records


def checkpointed_types(modules: list[ModuleType]) -> list[tuple[str, str]]:
    """The models of ``records`` and ``modules`` a checkpoint may hold, for the checkpointer's allow-list.

    Registered, they deserialize without langgraph's "unregistered type" warning, and a
    checkpoint naming any other class is refused.
    """
    return [
        (module.__name__, name)
        for module in dict.fromkeys([records, *modules])
        for name, value in vars(module).items()
        if isinstance(value, type) and issubclass(value, BaseModel) and value.__module__ == module.__name__
    ]


__all__ = ["checkpointed_types"]
