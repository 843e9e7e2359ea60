"""The shared agents' prompts (``factcourt.nodes.agents``: Clerk, verifier, gatherer), as a typed table.

Their words live with the system that first asked them (``claims_en``, ``hallucination_en``; the
gatherer's Chinese in ``longqa_zh``); every system that runs these agents reads them here.
"""

from collections.abc import Mapping
from dataclasses import dataclass, replace

from factcourt.prompts import Pair, longqa_zh
from factcourt.prompts import claims_en as en
from factcourt.prompts import claims_zh as zh
from factcourt.prompts import hallucination_en as halu_en


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
    DECOMPOSE=Pair(halu_en.HALU_DECOMPOSE_SYSTEM, halu_en.HALU_DECOMPOSE_USER),
    KNOWLEDGE=Pair(halu_en.HALU_KNOWLEDGE_SYSTEM, halu_en.HALU_KNOWLEDGE_USER),
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
    DECOMPOSE=Pair(longqa_zh.HALU_DECOMPOSE_SYSTEM, longqa_zh.HALU_DECOMPOSE_USER),
    KNOWLEDGE=Pair(longqa_zh.HALU_KNOWLEDGE_SYSTEM, longqa_zh.HALU_KNOWLEDGE_USER),
)


def table(language: str) -> AgentPrompts:
    """The shared agents' prompts in ``language`` (English where there is no translation)."""
    return ZH if language == "zh" else EN
