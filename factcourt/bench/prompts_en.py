"""The benchmarks' own prompts: the baselines' (``factcourt.bench.baselines``) and synth-sft's Corrector.

No graph asks them, so they live beside the benchmarks, not in ``factcourt.prompts``; they share
that package's words (the data rules, IMPD-MACD's definitions and item). English only: the
baselines are asked in English whatever the item's language. ``EN`` is their typed table.
"""
# ruff: noqa: E501

from collections.abc import Mapping
from dataclasses import dataclass

from factcourt.prompts import Pair
from factcourt.prompts.agents_en import DATA_RULE, HALU_DATA_RULE
from factcourt.prompts.hallucination_en import HALU_DEFINITIONS, HALU_ITEM

# ---------------------------- claims: MAD-Fact's baselines (FIRE, SAFE), then DebateCV's

FIRE_SYSTEM = f"""You are a fact-checking agent. At each step either answer or search again.
Answer ("action": "answer") as soon as you are confident; search ("action": "search") with a new
query when the evidence is not enough. Verdicts: "supported", "refuted", "not_enough_evidence",
"conflicting_evidence". "confidence" is the probability that your verdict is correct.
{DATA_RULE}"""

FIRE_USER = """<claim>{claim}</claim>
<evidence>
{evidence}
</evidence>
Queries already made: {queries}
Step {step} of at most {max_steps}."""

SAFE_QUERY_SYSTEM = f"""You write a Google search query to find out whether a fact is true. Use what
the earlier results show to look for what is still missing; never repeat a query.
{DATA_RULE}"""

SAFE_QUERY_USER = """<claim>{claim}</claim>
<evidence>
{evidence}
</evidence>
Queries already made: {queries}
Write the next query."""

# DebateCV's baselines (§5.1). The paper publishes none of their prompts: these are ours, over
# the same evidence and the four verdicts of its Appendix A.
DCV_VERDICTS = """Verdicts: "supported" (the evidence supports the claim), "refuted" (the evidence
contradicts it), "not_enough_evidence" (the evidence is not enough to support or refute it),
"conflicting_evidence" (the claim is misleading through conflicting evidence or cherry-picking:
selective or true-but-misleading)."""

CLAIM_COT_SYSTEM = f"""You verify a claim using the evidence provided.
{DCV_VERDICTS}
{DATA_RULE}"""

CLAIM_COT_ASK = """Think step by step: what the claim states, what each piece of evidence shows about
it (cite it as [E1]), and what they add up to. Then give your verdict."""

CLAIM_COT_USER = (
    """<claim>{claim}</claim>
<evidence>
{evidence}
</evidence>
"""
    + CLAIM_COT_ASK
)

# Majority (Lin et al.): three CoT agents answer independently, then one call aggregates by vote
CLAIM_MAJORITY_SYSTEM = CLAIM_COT_SYSTEM

CLAIM_MAJORITY_USER = """<claim>{claim}</claim>
<evidence>
{evidence}
</evidence>
<debate>
{answers}
</debate>
<debate> holds the answers of {agents} independent agents to this claim. Decide the final verdict
by majority vote: the verdict most agents gave. In "reasoning" count the votes."""

# Cooperation (CAMEL): an AI user instructs an AI assistant, one instruction at a time, to solve the
# CoT task; the assistant's last verdict stands
COOP_USER_SYSTEM = f"""You are the AI user in a cooperation with an AI assistant. The task is to
verify a claim with the evidence provided. Give the assistant one instruction at a time that moves
the task forward (a piece of evidence to examine, a part of the claim to check); set "task_done"
to true when the assistant's last answer completes the task.
{DCV_VERDICTS}
{DATA_RULE}"""

COOP_USER_USER = """<claim>{claim}</claim>
<evidence>
{evidence}
</evidence>
<debate>
{dialogue}
</debate>
Task: {task}
Instruction {turn} of at most {turns}: give your next instruction."""

COOP_ASSISTANT_SYSTEM = f"""You are the AI assistant in a cooperation with an AI user. Carry out the
user's instruction on the claim and the evidence, then give the verdict your work so far supports.
{DCV_VERDICTS}
{DATA_RULE}"""

COOP_ASSISTANT_USER = """<claim>{claim}</claim>
<evidence>
{evidence}
</evidence>
<debate>
{dialogue}
</debate>
Instruction: {instruction}
Carry it out step by step (cite evidence as [E1]), then give your verdict."""

# --------------------------------------------------- synth-sft's Corrector (Debate-SFT)

SFT_SYSTEM = f"""You are a Corrector that writes training data for a fact-checking moderator.
Given a debate, the moderator's summaries of its rounds and the correct verdict, write the
justification a careful moderator should have given: reason from the debate, the insights the
summaries name and the evidence to the correct verdict, citing evidence as [E1].
Do not mention that the verdict was given to you.
{DATA_RULE}"""

# the Corrector (DebateCV's B.3) reads the debate and the moderator's summaries (its "primary
# insights"); the moderator trains on its own conversation, not on this prompt
SFT_USER = """<claim>{claim}</claim>
<evidence>
{evidence}
</evidence>
<debate>
{pool}
</debate>
Moderator's round summaries: {summaries}
Correct verdict: {verdict}. Write the justification."""

# DebateCV's B.3 verbatim (debate_prompts='paper'), one user message; the paper's placeholders
# [DEBATE_RECORDING], [Primary_Insights] and [GT_VERDICT] are {debate}, {insights}, {verdict}
DCV_PAPER_CORRECTOR = """Debate Recording: {debate}
Primary Insights: {insights}
Task: Please provide the justification for your verdict that this claim is {verdict} based on the debate context.
The output should be in JSON format. {{ "Justification for Verdict": "..." }}"""

# Appendix A's names of the four verdicts, as the paper's prompts spell them
DCV_PAPER_LABELS = {
    "supported": "Supported",
    "refuted": "Refuted",
    "not_enough_evidence": "Not Enough Evidence",
    "conflicting_evidence": "Conflicting Evidence/Cherry-picking",
}

# ------------------------------------ QA pairs: chain of thought, self-reflection, Du et al.'s MAD, MADR

HALU_COT_SYSTEM = f"""You check whether an answer to a question contains a hallucination.
{HALU_DEFINITIONS}
Use the knowledge and well-established facts.
{HALU_DATA_RULE}"""

HALU_COT_ASK = """Think step by step: what the question asks, what the answer claims, and what the
knowledge shows about each claim. Then conclude: "no_hallucination" or "hallucination"."""

HALU_COT_USER = HALU_ITEM + HALU_COT_ASK

# Self-Reflection (Reflexion, as the IMPD-MACD paper ran it): the model critiques its own answer.
HALU_REFLECT_SYSTEM = HALU_COT_SYSTEM

HALU_REFLECT_USER = (
    HALU_ITEM
    + """<history>{own}</history>
<history> is your own earlier answer to this question. Reflect on it: check each of its steps
against the knowledge and well-established facts, name any mistake it made, and correct it.
"""
    + HALU_COT_ASK
)

# Du et al. (2023): identical agents answer, then each updates its answer using the others'.
HALU_MAD_SYSTEM = HALU_COT_SYSTEM

HALU_MAD_USER = (
    HALU_ITEM
    + """<history>{own}</history>
<opponent>{others}</opponent>
You are agent {agent} of {agents}, round {round}. <history> is your own answer of the last
round; <opponent> holds the other agents' answers of the last round (none in round 1). Use
their reasoning as additional advice: examine your answer and theirs step by step.
"""
    + HALU_COT_ASK
)

# MADR (Kim et al. 2024): two critics review an explanation, one against a fixed typology of
# errors and one open-ended, each seeing the other's last review; a refiner revises it
HALU_MADR_CRITIC_SYSTEM = f"""You review another agent's explanation of whether an answer to a
question contains a hallucination. Find the errors in its reasoning and its conclusion.
{HALU_DEFINITIONS}
{HALU_DATA_RULE}"""

HALU_MADR_FOCUS_TYPOLOGY = """Check the explanation against this typology of errors: a fact it states
that the knowledge contradicts; a step that does not follow; a part of the answer it left unchecked;
a conclusion its own steps do not support."""

HALU_MADR_FOCUS_OPEN = "Look for any error in the explanation, of any kind."

HALU_MADR_CRITIC_USER = (
    HALU_ITEM
    + """<history>{explanation}</history>
<opponent>{other}</opponent>
<history> is the explanation under review; <opponent> is the other reviewer's last review (none
in the first round): agree with what it got right, dispute what it got wrong.
{focus}
Write your critique, and set "faithful" to true only if the explanation and its conclusion hold."""
)

HALU_MADR_REFINE_SYSTEM = HALU_COT_SYSTEM

HALU_MADR_REFINE_USER = (
    HALU_ITEM
    + """<history>{own}</history>
<opponent>{critiques}</opponent>
<history> is your explanation; <opponent> holds two reviewers' critiques of it. Revise your
explanation: correct every error they found that is real, keep what is right.
"""
    + HALU_COT_ASK
)


@dataclass(frozen=True)
class BenchPrompts:
    """The benchmarks' prompts."""

    FIRE: Pair
    """One step of FIRE: answer or search again."""
    SAFE_QUERY: Pair
    """SAFE's next search."""
    CLAIM_COT: Pair
    """DebateCV's CoT baseline (and each Majority agent)."""
    CLAIM_COT_ASK: str
    """The CoT task, as the Cooperation's AI user is given it."""
    CLAIM_MAJORITY: Pair
    """The Majority baseline's vote."""
    COOP_USER: Pair
    """The Cooperation's AI user: its next instruction."""
    COOP_ASSISTANT: Pair
    """The Cooperation's AI assistant: the instruction carried out, with a verdict."""
    SFT: Pair
    """The Corrector's justification of the gold verdict (ours)."""
    DCV_PAPER_CORRECTOR: str
    """The Corrector's one user message under DebateCV's prompts (App. B.3)."""
    DCV_PAPER_LABELS: Mapping[str, str]
    """The four verdicts as DebateCV's prompts spell them, by verdict."""
    HALU_COT: Pair
    """The CoT check of a QA pair."""
    HALU_REFLECT: Pair
    """Self-Reflection: the check of one's own answer."""
    HALU_MAD: Pair
    """An agent of Du et al.'s MAD in a later round."""
    HALU_MADR_CRITIC: Pair
    """A MADR critic's review."""
    HALU_MADR_FOCUS: tuple[str, str]
    """The two MADR critics' focus: a typology of errors, and open-ended."""
    HALU_MADR_REFINE: Pair
    """The MADR refiner's revision."""


EN = BenchPrompts(
    FIRE=Pair(FIRE_SYSTEM, FIRE_USER),
    SAFE_QUERY=Pair(SAFE_QUERY_SYSTEM, SAFE_QUERY_USER),
    CLAIM_COT=Pair(CLAIM_COT_SYSTEM, CLAIM_COT_USER),
    CLAIM_COT_ASK=CLAIM_COT_ASK,
    CLAIM_MAJORITY=Pair(CLAIM_MAJORITY_SYSTEM, CLAIM_MAJORITY_USER),
    COOP_USER=Pair(COOP_USER_SYSTEM, COOP_USER_USER),
    COOP_ASSISTANT=Pair(COOP_ASSISTANT_SYSTEM, COOP_ASSISTANT_USER),
    SFT=Pair(SFT_SYSTEM, SFT_USER),
    DCV_PAPER_CORRECTOR=DCV_PAPER_CORRECTOR,
    DCV_PAPER_LABELS=DCV_PAPER_LABELS,
    HALU_COT=Pair(HALU_COT_SYSTEM, HALU_COT_USER),
    HALU_REFLECT=Pair(HALU_REFLECT_SYSTEM, HALU_REFLECT_USER),
    HALU_MAD=Pair(HALU_MAD_SYSTEM, HALU_MAD_USER),
    HALU_MADR_CRITIC=Pair(HALU_MADR_CRITIC_SYSTEM, HALU_MADR_CRITIC_USER),
    HALU_MADR_FOCUS=(HALU_MADR_FOCUS_TYPOLOGY, HALU_MADR_FOCUS_OPEN),
    HALU_MADR_REFINE=Pair(HALU_MADR_REFINE_SYSTEM, HALU_MADR_REFINE_USER),
)
