"""The hallucination debate's prompts (graph ``hallucination``, IMPD-MACD), as a typed table.

The words are in ``hallucination_en``; the gatherer's are the shared agents'
(``factcourt.prompts.agents``). There is no translation yet: every language reads English.
"""

from collections.abc import Mapping
from dataclasses import dataclass

from factcourt.prompts import ByLanguage, Pair
from factcourt.prompts import hallucination_en as en
from factcourt.state.hallucination import HaluRole, HaluTeam


@dataclass(frozen=True)
class HallucinationPrompts:
    """The hallucination debate's prompts in one language."""

    AGENT: Pair
    """One agent's analysis from its perspective."""
    COMPREHENSIVE: Pair
    """The Comprehensive agent's conclusion for its team."""
    TEAM: Pair
    """A whole team's analyses in one call."""
    STANCES: Mapping[HaluTeam, str]
    """Each team's position."""
    STANCE_QUERIES: Mapping[HaluTeam, str]
    """Each team's own search for its viewpoint (``hallucination_retrieval='stance'``)."""
    ROLE_NAMES: Mapping[HaluRole, str]
    """Each agent's name, by role."""
    FOCUS: Mapping[tuple[HaluTeam, HaluRole], str]
    """What each agent looks at, by team and role."""
    JUDGES: Mapping[str, Pair]
    """The judge, by what it scores (``hallucination_scores``): how far apart the teams are
    (``dispute``) or the debate's quality (``quality``)."""
    CROSS_REFERENCE: str
    """The round's cross-reference validity among the judge's inputs (``hallucination_jt='paper'``)."""
    REFINER: Pair
    """The Refiner's final report."""


EN = HallucinationPrompts(
    AGENT=Pair(en.HALU_AGENT_SYSTEM, en.HALU_AGENT_USER),
    COMPREHENSIVE=Pair(en.HALU_COMPREHENSIVE_SYSTEM, en.HALU_COMPREHENSIVE_USER),
    TEAM=Pair(en.HALU_TEAM_SYSTEM, en.HALU_TEAM_USER),
    STANCES={"pro": en.HALU_STANCE_PRO, "con": en.HALU_STANCE_CON},
    STANCE_QUERIES={"pro": en.HALU_STANCE_QUERY_PRO, "con": en.HALU_STANCE_QUERY_CON},
    ROLE_NAMES=en.HALU_ROLE_NAMES,
    FOCUS=en.HALU_FOCUS,
    JUDGES={
        "dispute": Pair(en.HALU_JUDGE_SYSTEM, en.HALU_JUDGE_USER),
        "quality": Pair(en.HALU_JUDGE_QUALITY_SYSTEM, en.HALU_JUDGE_QUALITY_USER),
    },
    CROSS_REFERENCE=en.HALU_CROSS_REFERENCE,
    REFINER=Pair(en.HALU_REFINER_SYSTEM, en.HALU_REFINER_USER),
)


table = ByLanguage(EN)  # no translation yet: English for every language
