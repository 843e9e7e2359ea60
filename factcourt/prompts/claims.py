"""The claim court's prompts (graphs ``factcheck``, ``verify``), as a typed table.

Ours are in ``claims_en`` and ``claims_zh``, DebateCV's own (``debate_prompts='paper'``) in
``debatecv_en``; the shared agents' (Clerk, verifier) are in ``factcourt.prompts.agents``.
"""

from collections.abc import Mapping
from dataclasses import dataclass, replace

from factcourt.prompts import ByLanguage, Pair
from factcourt.prompts import claims_en as en
from factcourt.prompts import claims_zh as zh
from factcourt.prompts import debatecv_en as dcv


@dataclass(frozen=True)
class ClaimsPrompts:
    """The claim court's prompts in one language."""

    JUROR: Pair
    """A juror's turn (the persona ends the user prompt)."""
    JUROR_PAPER: Pair
    """A juror's turn under MAD-Fact's role texts (``role_texts='paper'``)."""
    ROLES: Mapping[str, str]
    """Our personas, by jury role."""
    ROLES_PAPER: Mapping[str, str]
    """MAD-Fact's Table 1, by jury role."""
    NEUTRAL_ROLE: str
    """Every juror's persona without role-playing."""
    NEUTRAL_ROLE_PAPER: str
    """The same under the paper's role texts."""
    JURY_JUDGE: Pair
    """The Judge agent's ruling on the jury's last round."""
    DEBATER: Pair
    """A debater's turn (ours)."""
    AFFIRMATIVE_STANCE: str
    """The Affirmative's side."""
    NEGATIVE_STANCE: str
    """The Negative's side."""
    MODERATOR: Pair
    """The moderator: its system prompt and the user turn of round 1."""
    MODERATOR_ROUND: str
    """The moderator's user turn of each later round."""
    LAST_ROUND_NOTE: str
    """Added to the moderator's turn of the last round."""
    NO_ARGUMENT: str
    """Where DebateCV's prompts quote an argument whose turn failed."""
    QUERY: Pair
    """The query writer's next search."""
    CORRECTOR: Pair
    """The corrector's edit of a refuted sentence."""
    CORRECTOR_RETRY: str
    """The corrector asked again after a refused edit."""
    DCV_PAPER_DEBATER_SYSTEM: str
    """DebateCV's debater meta-prompt (App. B.1)."""
    DCV_PAPER_MODERATOR_SYSTEM: str
    """DebateCV's moderator meta-prompt (App. B.1)."""
    DCV_PAPER_OPENING: str
    """The Affirmative's opening (App. B.2)."""
    DCV_PAPER_REBUTTAL: str
    """The Negative's rebuttal (App. B.2)."""
    DCV_PAPER_CONTINUE: str
    """The Affirmative's answer in later rounds (App. B.2)."""
    DCV_PAPER_ROUND: str
    """The moderator at the end of a round (App. B.2)."""
    DCV_PAPER_FINAL: str
    """The moderator's final prompt (App. B.2)."""


EN = ClaimsPrompts(
    JUROR=Pair(en.JUROR_SYSTEM, en.JUROR_USER),
    JUROR_PAPER=Pair(en.JUROR_PAPER_SYSTEM, en.JUROR_PAPER_USER),
    ROLES=en.ROLES,
    ROLES_PAPER=en.ROLES_PAPER,
    NEUTRAL_ROLE=en.NEUTRAL_ROLE,
    NEUTRAL_ROLE_PAPER=en.NEUTRAL_ROLE_PAPER,
    JURY_JUDGE=Pair(en.JURY_JUDGE_SYSTEM, en.JURY_JUDGE_USER),
    DEBATER=Pair(en.DEBATER_SYSTEM, en.DEBATER_USER),
    AFFIRMATIVE_STANCE=en.AFFIRMATIVE_STANCE,
    NEGATIVE_STANCE=en.NEGATIVE_STANCE,
    MODERATOR=Pair(en.MODERATOR_SYSTEM, en.MODERATOR_USER),
    MODERATOR_ROUND=en.MODERATOR_ROUND,
    LAST_ROUND_NOTE=en.LAST_ROUND_NOTE,
    NO_ARGUMENT=en.NO_ARGUMENT,
    QUERY=Pair(en.QUERY_SYSTEM, en.QUERY_USER),
    CORRECTOR=Pair(en.CORRECTOR_SYSTEM, en.CORRECTOR_USER),
    CORRECTOR_RETRY=en.CORRECTOR_RETRY,
    DCV_PAPER_DEBATER_SYSTEM=dcv.DCV_PAPER_DEBATER_SYSTEM,
    DCV_PAPER_MODERATOR_SYSTEM=dcv.DCV_PAPER_MODERATOR_SYSTEM,
    DCV_PAPER_OPENING=dcv.DCV_PAPER_OPENING,
    DCV_PAPER_REBUTTAL=dcv.DCV_PAPER_REBUTTAL,
    DCV_PAPER_CONTINUE=dcv.DCV_PAPER_CONTINUE,
    DCV_PAPER_ROUND=dcv.DCV_PAPER_ROUND,
    DCV_PAPER_FINAL=dcv.DCV_PAPER_FINAL,
)

ZH = replace(
    EN,
    JUROR=replace(EN.JUROR, system=zh.JUROR_SYSTEM),
    DEBATER=replace(EN.DEBATER, system=zh.DEBATER_SYSTEM),
    AFFIRMATIVE_STANCE=zh.AFFIRMATIVE_STANCE,
    NEGATIVE_STANCE=zh.NEGATIVE_STANCE,
    MODERATOR=replace(EN.MODERATOR, system=zh.MODERATOR_SYSTEM),
)


table = ByLanguage(EN, zh=ZH)
