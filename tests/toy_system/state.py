"""The toy system's state, its model's answer and its result."""

from __future__ import annotations

from typing import Literal

from pydantic import Field
from typing_extensions import TypedDict

from factcourt.state.records import AgentAnswer, Result, Usage


class EchoInput(TypedDict, total=False):
    """The graph's input."""

    text: str
    """The text to judge."""


class EchoState(EchoInput, total=False):
    """The graph's state."""

    loud: bool
    """The model's judgement."""
    usage: Usage
    """What the call cost."""
    error: str
    """Why the text could not be judged."""


class Shout(AgentAnswer):
    """The model's answer: does the text shout?"""

    loud: bool = Field(description="true when the text shouts")


class EchoResult(Result):
    """The toy's result: the text and whether it shouts."""

    kind: Literal["echo"] = "echo"
    text: str = ""
    loud: bool | None = None
    usage: Usage = Field(default_factory=Usage)
    error: str | None = None

    def failure(self) -> str | None:
        """Why the text was not judged."""
        return f"the text could not be judged: {self.error}" if self.error else None

    def tally(self) -> tuple[int, list[str]]:
        """Its judgement, as a verdict."""
        return 0, ["loud" if self.loud else "quiet"]
