"""Settings of the claim court (graphs ``factcheck``, ``verify``): MAD-Fact's jury, DebateCV's debate."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, ClassVar, Literal, get_args

from factcourt.context.base import BASE_STEPS, MAX_ROUNDS, BaseContext, debate_steps, describe
from factcourt.errors import ConfigError

# The published systems as their papers run them, with no first pass. MAD-Fact (§4.2, §6.2.3): no
# search before the debate, N = 3, 2 rounds, Table 1's roles with their retrieval incentive, the
# agent's own confidence estimate, no guard on changed verdicts. DebateCV (§5.1, App. B): decoding
# at 0.7, the moderator may end the debate after any round, at most 3 rounds, Appendix B's
# prompts, and a fixed evidence set: the given one, else one search for the claim before the
# debate (the paper's retrieved conditions, Ret(H) and Ret(I)); no debater searches (theta 0).
PRESETS: dict[str, dict[str, Any]] = {
    "madfact": {
        "protocol": "jury",
        "evidence_first": False,
        "first_pass": "off",
        "jurors": 3,
        "rounds": 2,
        "role_texts": "paper",
        "change_guard": False,
        "confidence_source": "reported",
        "settled_stop": False,
    },
    "debatecv": {
        "protocol": "adversarial",
        "evidence_first": True,
        "theta": 0.0,
        "first_pass": "off",
        "rounds": 3,
        "temperature": 0.7,
        "rule": "adaptive",
        "debate_prompts": "paper",
    },
}
# Our departures from a preset, by name: what measured better here on the embedded model
OURS: dict[str, dict[str, Any]] = {
    "madfact": {
        "role_texts": "neutral",
        "change_guard": True,
        "confidence_source": "logprobs",
        "settled_stop": True,
    },
    # an unsure debater searches (our default), where the preset's evidence set stays fixed
    "debatecv": {"temperature": 0.0, "rule": "free", "debate_prompts": "ours", "theta": 0.7},
}
ProtocolName = Literal["jury", "adversarial"]
RuleName = Literal["free", "mandatory_search", "adaptive"]
PROTOCOLS: tuple[str, ...] = get_args(ProtocolName)
RULES: tuple[str, ...] = get_args(RuleName)
# what a protocol fixes before any node runs (the rest of its row is nodes/claims/protocols.py):
# its debaters (None: the jury's roles) and its rounds when none are set
AFFIRMATIVE, NEGATIVE = "Affirmative", "Negative"
DEBATERS: dict[str, tuple[str, ...] | None] = {"jury": None, "adversarial": (AFFIRMATIVE, NEGATIVE)}
DEFAULT_ROUNDS: dict[str, int] = {"jury": 1, "adversarial": 3}
JURY_ROLES = ("General Public", "Critic", "News Author", "Scientist", "Psychologist", "Data Analyst")
# Settings that name a debate: given explicitly, they debate every claim rather than change only
# the claims a first pass would leave contested (on the default, none)
DEBATE_SETTINGS = ("protocol", "rule", "jurors", "rounds", "juror_models", "jury_judge")
# the first pass's readings, in the order they are taken: (evidence order, label order in the question)
LABEL_READINGS = (("given", "supported_first"), ("given", "refuted_first"), ("reversed", "supported_first"))


def debate_when_named(values: dict[str, Any]) -> dict[str, Any]:
    """``values`` with the first pass off when they name a debate and say nothing of the first pass."""
    if any(k in values for k in DEBATE_SETTINGS) and not {"first_pass", "first_pass_theta"} & values.keys():
        return {**values, "first_pass": "off"}
    return values


@dataclass(kw_only=True)
class ClaimsContext(BaseContext):
    """Settings of one claim check: the first pass, the debate and its rule, the corrector."""

    command: ClassVar[str] = "check"
    model_roles: ClassVar[tuple[str, ...]] = (
        "clerk",
        "evaluator",
        "debater",
        "moderator",
        "judge",
        "corrector",
        "query",
    )

    protocol: ProtocolName = describe(
        "Who debates: 'jury' (MAD-Fact role-played evaluators, majority vote) or 'adversarial' "
        "(DebateCV Affirmative vs Negative, moderator decides). By default the first pass decides "
        "every claim; naming a debate (protocol, rule, jurors, rounds, juror_models or jury_judge) "
        "debates each, unless first_pass or first_pass_theta is named too.",
        "jury",
        flag={"group": "debate"},
    )
    rule: RuleName = describe(
        "Debate rule. jury: 'free' = round 1 retrieves when unsure, later rounds answer directly; "
        "'mandatory_search' = every round-1 turn retrieves first; 'adaptive' = unanimous round 1 "
        "goes straight to the vote, else every round-2 turn retrieves first. adversarial: 'free' "
        "= debaters retrieve when unsure; 'mandatory_search' = evidence retrieved before round 1; "
        "'adaptive' = the moderator may stop after any round.",
        "free",
        flag={"group": "debate"},
    )
    # jurors, rounds and first_pass_theta: from `bench sweep` and the test runs (README, "Measured here")
    jurors: int = describe("Number of jury evaluators (the first N roles).", 2, flag={"group": "debate"})
    roles: list[str] = describe(
        "Jury roles by name; empty = the first N of: " + ", ".join(JURY_ROLES), factory=list
    )
    rounds: int = describe(
        "Debate rounds: the jury's rounds, or the adversarial round limit. "
        "0 = the default (jury 1, adversarial 3; MAD-Fact as published: 2).",
        0,
        ge=0,
        le=MAX_ROUNDS,
        flag={"group": "debate"},
    )
    theta: float = describe(
        "Confidence threshold: a speaker below it retrieves evidence and answers again.",
        0.7,
        ge=0,
        le=1,
        flag={"group": "debate"},
    )
    first_pass_theta: float = describe(
        "The first pass decides a claim when its verdict's confidence is at or above this. 0 (the "
        "default, measured best on the embedded model): it decides every claim; 0.95 sends the "
        "contested ones to the jury ('routed' in the benchmark).",
        0.0,
        ge=0,
        le=1,
        flag={"group": "debate"},
    )
    evidence_first: bool = describe(
        "Search for the claim itself before anyone speaks (BM25 costs milliseconds, a model "
        "call seconds; without evidence the small model leans to 'refuted').",
        True,
    )
    first_pass: Literal["route", "record", "off"] = describe(
        "One verifier call before the debate. 'route': it decides the claims it is sure of "
        "(confidence >= first_pass_theta) and only the contested ones are debated; 'record': it runs and "
        "is kept in the result but every claim is debated (for sweeps); 'off': MAD-Fact as "
        "published.",
        "route",
    )
    first_pass_votes: bool = describe(
        "When a contested claim is debated, the first pass's verdict joins the jury's vote.", False
    )
    label_readings: int = describe(
        "Most readings of the first pass's verdict: the first reads the label over the evidence as "
        "given; while the calibrated confidence stays below vote_below, the next asks with the labels "
        "in the other order, the third over the evidence in reverse order; their mean log-odds decide.",
        1,
        ge=1,
        le=len(LABEL_READINGS),
    )
    vote_below: float = describe(
        "Calibrated confidence under which the first pass takes another reading (up to label_readings).",
        0.75,
        ge=0,
        le=1,
    )
    label_set: Literal["two", "three"] = describe(
        "The labels of the first pass's reading: 'two' (supported, refuted) or 'three' (also "
        "not_enough_evidence: the evidence does not address the claim), all read from the label's "
        "first token in the one call.",
        "two",
    )
    not_enough_above: float = describe(
        "The verdict is not_enough_evidence where the probability that the evidence does not "
        "address the claim is at or above this (1 never): the trained reader's third output, or "
        "the label under label_set='three'.",
        0.5,
        ge=0,
        le=1,
    )
    reader: Literal["auto", "llm", "trained"] = describe(
        "Who reads the first pass's verdict: 'auto' (default) = the trained reader over the offline "
        "Wikipedia search, where the 1.5B's reading told true from false no better than chance on "
        "the dev sets, and the 1.5B everywhere else; 'llm' = the label token of the evaluator "
        "model's one call; 'trained' = the MiniLM cross-encoder trained here (factcourt/readers/: "
        "P(supported), P(refuted), P(not addressed) per chunk of evidence, on this CPU, no model "
        "call), which lost to the 1.5B's reading of given evidence on several sets "
        "(factcourt/readers/README.md).",
        "auto",
        flag={"group": "debate"},
    )
    verdict_bar: float = describe(
        "Over the offline Wikipedia search a verdict is shown only at this calibrated confidence "
        "or above; below it the claim is not_enough_evidence, with the reason. Evidence you give, "
        "your own --corpus and the web are not held to it.",
        0.8,
        ge=0,
        le=1,
    )
    calibration: Literal["auto", "off"] = describe(
        "'auto': the first pass's probability is Platt-scaled by the fit stored for its model and "
        "prompt (`factcourt bench calibrate`; shipped for the embedded default), raw where none is "
        "stored; 'off': raw. The raw probability is always kept in the JSON.",
        "auto",
    )
    juror_models: list[str] = describe(
        "A model per juror, in speaking order (MAD-Fact Table 5, 'MAD-Fact-various'); empty: every "
        "juror is the 'evaluator' role's model. It sets jurors when that is not named. A name in "
        "model_settings brings its own endpoint.",
        factory=list,
        flag={"group": "debate"},
        names_models=True,
    )
    role_texts: Literal["neutral", "paper"] = describe(
        "Jury personas: 'neutral' = one line saying what a juror looks at (personas with an attitude "
        "decided the small model's vote); 'paper' = MAD-Fact's Table 1 texts verbatim, with their "
        "retrieval incentive, under a juror prompt without our rules against neutral verdicts and "
        "against changing one's verdict.",
        "neutral",
    )
    change_guard: bool = describe(
        "A juror's changed verdict that cites no evidence, or copies another juror, is refused and "
        "its earlier verdict kept (not in MAD-Fact).",
        True,
    )
    debate_prompts: Literal["ours", "paper"] = describe(
        "Adversarial debate's prompts: 'ours' = short arguments over the whole transcript and a "
        "moderator told not to hide behind a neutral verdict, with a verdict every round; 'paper' = "
        "DebateCV's Appendix B verbatim: the debaters' meta-prompt with the opening, rebuttal and "
        "continuing prompts (each answers the other's last argument), the moderator's per-round "
        "prompt (no verdict while it asks for another round) and its final prompt at the last round.",
        "ours",
    )
    jury_judge: Literal["vote", "model"] = describe(
        "Who decides a jury's claim: 'vote' = the majority of the last round (MAD-Fact Eq. 12, no "
        "model); 'model' = the 'judge' role reads the last round's verdicts and explanations and "
        "rules (MAD-Fact's Judge agent, Llama3.3-70B in §6.2.3); the vote stands where it fails.",
        "vote",
        flag={"group": "debate"},
    )
    settled_stop: bool = describe(
        "Jury, last round: once the speakers still to speak can no longer change the majority, "
        "they are not asked (the verdict is the one they would have left; the transcript is "
        "shorter). Off in the 'madfact' preset, where every evaluator speaks as in the paper.",
        True,
    )
    use_roles: bool = describe("Ablation: false makes every evaluator an identical checker.", True)
    use_debate: bool = describe("Ablation: false stops after one round (no debate).", True)

    correct: bool = describe(
        "Rewrite the response where claims are refuted (the corrector); `factcourt check` shows the "
        "rewrite as a diff.",
        False,
    )
    max_claims: int = describe("Most claims checked per response (a guard on cost).", 60, ge=1)

    def validate(self) -> None:
        """The shared checks, then the jury's size and roles, the thresholds and the readings."""
        super().validate()
        if self.jurors < 1 or self.jurors > len(JURY_ROLES) and not self.roles:
            raise ConfigError(f"jurors must be between 1 and {len(JURY_ROLES)}, not {self.jurors}")
        if not all(m.strip() for m in self.juror_models):
            raise ConfigError("juror_models names an empty model")
        jury = len(self.roles or JURY_ROLES[: self.jurors])
        if self.juror_models and self.protocol == "jury" and len(self.juror_models) != jury:
            raise ConfigError(
                f"juror_models names {len(self.juror_models)} models for {jury} jurors: name one per juror"
            )
        unknown = [r for r in self.roles if r not in JURY_ROLES]
        if unknown:
            raise ConfigError(f"unknown jury role(s) {unknown}; choose from {list(JURY_ROLES)}")

    @classmethod
    def adjust(cls, values: dict[str, Any]) -> dict[str, Any]:
        """A debate named (protocol, rule, jurors, rounds) debates every claim: see ``debate_when_named``.

        Models named per juror set the jury's size when it is not given.
        """
        if values.get("juror_models") and "jurors" not in values and "roles" not in values:
            values = {**values, "jurors": len(values["juror_models"])}
        return debate_when_named(super().adjust(values))

    def trace_metadata(self) -> dict[str, Any]:
        """The protocol and rule beside the search."""
        return {"protocol": self.protocol, "rule": self.rule, **super().trace_metadata()}

    def step_limit(self) -> int:
        """The base and the court's debate: each speaker's turn each round (see the base's)."""
        debate = debate_steps(max(self.rounds, self.max_rounds), len(self.speakers))
        return max(super().step_limit(), BASE_STEPS + debate)

    @property
    def max_rounds(self) -> int:
        """Rounds of this run: one without debate, else the set or default number."""
        if not self.use_debate:
            return 1
        return self.rounds or DEFAULT_ROUNDS[self.protocol]

    def juror_context(self, index: int) -> ClaimsContext:
        """The settings the jury's speaker ``index`` answers under: its own model where one is named."""
        if self.protocol != "jury" or not self.juror_models:
            return self
        name = self.juror_models[index]
        own = {"role_models": {**self.role_models, "evaluator": name}, **self.model_settings.get(name, {})}
        return self.kept(("juror", index), lambda: replace(self, **own))  # its model resolved once a run

    @property
    def speakers(self) -> list[str]:
        """Names of the debaters, in speaking order."""
        if debaters := DEBATERS[self.protocol]:
            return list(debaters)
        names = self.roles or list(JURY_ROLES[: self.jurors])
        if not self.use_roles:
            return [f"Evaluator {i + 1}" for i in range(len(names))]
        return list(names)
