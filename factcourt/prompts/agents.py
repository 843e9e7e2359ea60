"""The shared agents' prompts (``factcourt.nodes.agents``: Clerk, verifier, gatherer), as a typed table.

Their words live in ``agents_en`` and ``agents_zh``; every system that runs these agents reads them here.
"""

from collections.abc import Mapping
from dataclasses import dataclass, replace

from factcourt.prompts import ByLanguage, Pair
from factcourt.prompts import agents_en as en
from factcourt.prompts import agents_zh as zh


@dataclass(frozen=True)
class AgentPrompts:
    """The shared agents' prompts in one language."""

    CLERK: Pair
    """The Clerk's split of a response into claims."""
    CLERK_AGAIN: Pair
    """The Clerk asked again for the sentences it skipped."""
    CLERK_RESOLVE: Pair
    """Claims rewritten to be self-contained."""
    CLAIM_CONTEXT: str
    """The question of a claim whose reference is unresolved, with the sentence before it."""
    SINGLE: Pair
    """One verifier's verdict with an explanation."""
    LABEL: Pair
    """The label-only reading (supported or refuted)."""
    LABEL3: Pair
    """The label-only reading with a third label (not_enough_evidence)."""
    LABELS: Mapping[str, str]
    """The labels as ``LABEL`` asks them, by the reading's label order (``supported_first``, ...)."""
    LABELS3: Mapping[str, str]
    """The labels as ``LABEL3`` asks them, by label order."""
    DECOMPOSE: Pair
    """The gatherer's sub-questions and search keywords."""
    KNOWLEDGE: Pair
    """The gatherer's knowledge statements from search results."""


EN = AgentPrompts(
    CLERK=Pair(en.CLERK_SYSTEM, en.CLERK_USER),
    CLERK_AGAIN=Pair(en.CLERK_AGAIN_SYSTEM, en.CLERK_AGAIN_USER),
    CLERK_RESOLVE=Pair(en.CLERK_RESOLVE_SYSTEM, en.CLERK_RESOLVE_USER),
    CLAIM_CONTEXT=en.CLAIM_CONTEXT,
    SINGLE=Pair(en.SINGLE_SYSTEM, en.SINGLE_USER),
    LABEL=Pair(en.LABEL_SYSTEM, en.LABEL_USER),
    LABEL3=Pair(en.LABEL3_SYSTEM, en.LABEL3_USER),
    LABELS=en.LABEL_ORDERS,
    LABELS3=en.LABEL3_ORDERS,
    DECOMPOSE=Pair(en.HALU_DECOMPOSE_SYSTEM, en.HALU_DECOMPOSE_USER),
    KNOWLEDGE=Pair(en.HALU_KNOWLEDGE_SYSTEM, en.HALU_KNOWLEDGE_USER),
)

ZH = replace(
    EN,
    CLERK=replace(EN.CLERK, system=zh.CLERK_SYSTEM),
    CLERK_AGAIN=Pair(zh.CLERK_AGAIN_SYSTEM, zh.CLERK_AGAIN_USER),
    CLERK_RESOLVE=Pair(zh.CLERK_RESOLVE_SYSTEM, zh.CLERK_RESOLVE_USER),
    CLAIM_CONTEXT=zh.CLAIM_CONTEXT,
    SINGLE=Pair(zh.SINGLE_SYSTEM, zh.SINGLE_USER),
    LABEL=Pair(zh.LABEL_SYSTEM, zh.LABEL_USER),
    LABEL3=Pair(zh.LABEL3_SYSTEM, zh.LABEL3_USER),
    LABELS=zh.LABEL_ORDERS,
    LABELS3=zh.LABEL3_ORDERS,
    DECOMPOSE=Pair(zh.HALU_DECOMPOSE_SYSTEM, zh.HALU_DECOMPOSE_USER),
    KNOWLEDGE=Pair(zh.HALU_KNOWLEDGE_SYSTEM, zh.HALU_KNOWLEDGE_USER),
)


table = ByLanguage(EN, zh=ZH)
