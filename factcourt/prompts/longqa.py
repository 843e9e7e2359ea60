"""The LongHalluQA-style question builder's prompts (graph ``longqa``), as a typed table.

Its knowledge gathering is the shared gatherer's (``factcourt.prompts.agents``).
"""

from dataclasses import dataclass, replace

from factcourt.prompts import ByLanguage, Pair
from factcourt.prompts import longqa_en as en
from factcourt.prompts import longqa_zh as zh


@dataclass(frozen=True)
class LongQAPrompts:
    """The builder's prompts in one language."""

    SUBQ: Pair
    """One sub-question per fact, and the seed's topic."""
    FUSE: Pair
    """The chosen sub-questions fused into one long-form question."""


EN = LongQAPrompts(
    SUBQ=Pair(en.LONGQA_SUBQ_SYSTEM, en.LONGQA_SUBQ_USER),
    FUSE=Pair(en.LONGQA_FUSE_SYSTEM, en.LONGQA_FUSE_USER),
)

ZH = replace(
    EN,
    SUBQ=Pair(zh.LONGQA_SUBQ_SYSTEM, zh.LONGQA_SUBQ_USER),
    FUSE=Pair(zh.LONGQA_FUSE_SYSTEM, zh.LONGQA_FUSE_USER),
)


table = ByLanguage(EN, zh=ZH)
