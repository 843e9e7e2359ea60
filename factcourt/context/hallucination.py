"""Settings of the hallucination debate (graph ``hallucination``, IMPD-MACD)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal, get_args

from factcourt.context.base import BASE_STEPS, MAX_ROUNDS, BaseContext, debate_steps, describe
from factcourt.errors import ConfigError

HALLUCINATION_AGENTS = ("logic", "consistency", "factual", "comprehensive")
# the judge's dimension that scores each agent's perspective (IMPD-MACD App. C.3: s1-s4)
JUDGE_DIMENSION = {
    "logic": "logic",
    "factual": "fact",
    "consistency": "coherence",
    "comprehensive": "overall",
}


Layout = Literal["agents", "team"]
LAYOUTS: tuple[str, ...] = get_args(Layout)


@dataclass(kw_only=True)
class HallucinationContext(BaseContext):
    """Settings of one hallucination debate: its teams, judge and stopping."""

    command: ClassVar[str] = "detect"  # the published command of system "hallucination"
    model_roles: ClassVar[tuple[str, ...]] = ("gatherer", "debater", "judge", "refiner")

    rounds: int = describe(
        "Round limit of the hallucination debate; 0 = the default (3).",
        0,
        ge=0,
        le=MAX_ROUNDS,
        flag={"group": "debate"},
    )
    epsilon: float = describe(
        "Hallucination debate: it stops when the judge's weighted dispute (0 = the teams agree, "
        "1 = opposite) falls to this or below, or at consensus, else at 'rounds' (default 3).",
        0.2,
        ge=0,
        le=1,
    )
    hallucination_layout: Layout = describe(
        "Hallucination debate: 'agents' = the paper's layout (Logic, Context-Consistency and "
        "Factual agents per team in parallel, then a Comprehensive agent: 8 calls a round); "
        "'team' = each team answers in one call with the three perspectives as fields (2).",
        "agents",
        flag={"name": "--layout"},
    )
    hallucination_judge: Literal["checked", "paper"] = describe(
        "Hallucination debate, how far the judge's word goes: 'checked' = an early stop needs both "
        "teams to have concluded alike and the judge to name that side, and at the end both teams' "
        "agreed conclusion stands over a contrary last ruling (the 1.5B judge named winners its "
        "teams and reasoning contradicted); 'paper' = the judge's consensus flag or a dispute at "
        "epsilon stops the debate and its last ruling is the label, as in IMPD-MACD.",
        "checked",
        flag={"name": "--judge"},
    )
    hallucination_agents: list[str] = describe(
        "Hallucination debate: the agents each team has (ablations leave one out): "
        + ", ".join(HALLUCINATION_AGENTS),
        factory=lambda: list(HALLUCINATION_AGENTS),
    )

    hallucination_weights: dict[str, float] = describe(
        "Hallucination debate: the agents' weights w_i (IMPD-MACD Eq. 13, Figs. 2-3; normalised to "
        "sum 1). They weigh the judge's score of each agent's dimension in J_t (logic, fact, "
        "coherence, overall) and each conclusion in the fallback vote. Balanced (0.25 each) "
        "measured best in the paper.",
        factory=lambda: dict.fromkeys(HALLUCINATION_AGENTS, 0.25),
    )
    hallucination_jt: Literal["dispute", "confidence", "paper"] = describe(
        "Hallucination debate, J_t: 'dispute' = the weighted mean of the judge's dispute scores; "
        "'confidence' = that mean times the judge's confidence c_t, as the paper's Eq. 15 "
        "(J_t = (sum w_i s_i) c_t): a judge unsure of its scores stops the debate sooner; 'paper' "
        "= 'confidence', and the judge is shown the round's interaction quality Q_t (Eq. 13: "
        "semantic closeness x information x recency of the same-role agents' analyses, weighted "
        "by the agents' weights) as 'cross-reference validity'; the report gives Q_final, their mean.",
        "dispute",
    )
    hallucination_scores: Literal["dispute", "quality"] = describe(
        "Hallucination debate, what the judge's four scores measure: 'dispute' = how far apart the "
        "teams still are (0 = they agree), so that J_t <= epsilon reads as consensus; 'quality' = "
        "IMPD-MACD's s1-s4 (App. C.3: reasoning rigour, information accuracy, contextual "
        "consistency, overall quality), and the debate stops where J_t <= epsilon as Eq. 15 says.",
        "dispute",
    )
    hallucination_retrieval: Literal["shared", "stance"] = describe(
        "Hallucination debate, with a search backend: 'shared' = one gathered knowledge for both "
        "teams; 'stance' = each team also searches once for its own viewpoint (IMPD-MACD §3.1: "
        "each stance group retrieves what is relevant to it) and sees its own results beside the "
        "shared knowledge. No effect with given or no knowledge.",
        "shared",
    )
    hallucination_beta: float = describe(
        "Hallucination debate, hallucination_jt='paper': beta of Q_t's recency term "
        "q_time = e^(-beta (t - 1)) (IMPD-MACD App. C.2, 0.05 as in App. C.4).",
        0.05,
        ge=0,
    )

    def validate(self) -> None:
        """The shared checks, then the round limit, epsilon and the agents of each team."""
        super().validate()
        bad_agents = [a for a in self.hallucination_agents if a not in HALLUCINATION_AGENTS]
        if bad_agents:
            raise ConfigError(
                f"unknown hallucination agent(s) {bad_agents}; choose from {list(HALLUCINATION_AGENTS)}"
            )
        weights = self.hallucination_weights
        if set(weights) != set(HALLUCINATION_AGENTS) or not all(w > 0 for w in weights.values()):
            raise ConfigError(
                f"hallucination_weights needs a weight above 0 for each of {list(HALLUCINATION_AGENTS)}"
            )
        if not set(self.hallucination_agents) & {"logic", "consistency", "factual"}:
            raise ConfigError("hallucination_agents needs at least one of logic, consistency, factual")
        if self.hallucination_layout == "team" and set(self.hallucination_agents) != set(
            HALLUCINATION_AGENTS
        ):
            raise ConfigError("agent ablations need hallucination_layout 'agents' (one call per agent)")

    @property
    def judge_weights(self) -> dict[str, float]:
        """The agents' weights by the judge's dimension that scores them."""
        return {JUDGE_DIMENSION[agent]: w for agent, w in self.hallucination_weights.items()}

    def step_limit(self) -> int:
        """The base and the teams' debate: each agent's two turns each round (see the base's)."""
        debate = debate_steps(self.hallucination_rounds, 2 * len(self.hallucination_agents))
        return max(super().step_limit(), BASE_STEPS + debate)

    @property
    def hallucination_rounds(self) -> int:
        """Round limit of the hallucination debate: 'rounds', else 3 (the paper's middle rounds)."""
        return self.rounds or 3
