"""Every prompt text, in English and Chinese. Nothing else lives here.

Untrusted text (responses, claims, evidence, earlier turns) is always placed inside tags and
the system prompts say that tagged text is data, never instructions.

The words are module constants (``claims_en``, ``claims_zh``, ...); each system reads them
through its own typed table (``factcourt.prompts.claims``, ``.hallucination``, ...; the shared
agents' in ``factcourt.prompts.agents``): a frozen dataclass per system, one instance per
language, the Chinese one the English one with the translated fields replaced. A prompt is an
attribute, so a typo fails the type check, and the only keys looked up at run time are data
(a juror's role, a team, a label order).
"""

from dataclasses import dataclass
from typing import Generic, TypeVar

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage


@dataclass(frozen=True)
class Pair:
    """A system prompt and the user prompt that goes with it (a ``str.format`` template)."""

    system: str
    user: str


def conversation(pair: Pair, **fields: object) -> list[BaseMessage]:
    """The system prompt of ``pair`` and its user prompt filled with ``fields``."""
    return [SystemMessage(pair.system), HumanMessage(pair.user.format(**fields))]


Table = TypeVar("Table")


class ByLanguage(Generic[Table]):
    """A system's prompt table in each language: the translation where one exists, else English."""

    def __init__(self, english: Table, **translations: Table) -> None:
        self.english, self.translations = english, translations

    def __call__(self, language: str) -> Table:
        """The table in ``language``."""
        return self.translations.get(language, self.english)
