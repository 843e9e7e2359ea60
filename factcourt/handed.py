"""What the registry (``factcourt.systems``) hands a layer below it at startup.

A layer that must not name the systems (the checkpoints, the simulated model, the HTML report,
batch rows) holds a :class:`Handed`; the registry gives it a function that reads its list of
systems, asked each time, so a system registered later is found too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class Handed(Generic[T]):
    """A value the registry hands over at startup; ``empty`` until it does."""

    def __init__(self, empty: T) -> None:
        self._get: Callable[[], T] = lambda: empty

    def hand(self, get: Callable[[], T]) -> None:
        """From now on, the value is ``get()``, asked each time."""
        self._get = get

    def __call__(self) -> T:
        """The value now."""
        return self._get()
