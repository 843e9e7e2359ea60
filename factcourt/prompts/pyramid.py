"""The importance pyramid's and the leaderboard's prompts (graph ``pyramid``), as a typed table."""

from dataclasses import dataclass, replace

from factcourt.prompts import ByLanguage, Pair
from factcourt.prompts import pyramid_en as en
from factcourt.prompts import pyramid_zh as zh


@dataclass(frozen=True)
class PyramidPrompts:
    """The pyramid's prompts in one language."""

    ANSWER: Pair
    """An expert's or a target's long answer to a question."""
    SAME_FACT: Pair
    """Which candidate states the same fact as a claim."""


EN = PyramidPrompts(
    ANSWER=Pair(en.PYRAMID_ANSWER_SYSTEM, en.PYRAMID_ANSWER_USER),
    SAME_FACT=Pair(en.PYRAMID_SAME_FACT_SYSTEM, en.PYRAMID_SAME_FACT_USER),
)

ZH = replace(
    EN,
    ANSWER=Pair(zh.PYRAMID_ANSWER_SYSTEM, zh.PYRAMID_ANSWER_USER),
    SAME_FACT=Pair(zh.PYRAMID_SAME_FACT_SYSTEM, zh.PYRAMID_SAME_FACT_USER),
)


table = ByLanguage(EN, zh=ZH)
