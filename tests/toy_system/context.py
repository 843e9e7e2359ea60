"""The toy system's settings: the base's, and one of its own."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from factcourt.context.base import BaseContext, describe


@dataclass(kw_only=True)
class EchoContext(BaseContext):
    """Settings of one echo run."""

    command: ClassVar[str] = "echo"
    model_roles: ClassVar[tuple[str, ...]] = ("shouter",)

    echo_marks: int = describe("echo: how many '!' make a text loud", 1)
