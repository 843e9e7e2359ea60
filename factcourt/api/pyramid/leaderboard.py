"""The MAD-Fact leaderboard (§6.2): targets answer long-form prompts, each answer is checked and scored.

The check is the ``factcheck`` graph; the score is against the prompt's importance pyramid.
Stages run model by model (one embedded server at a time: a switch loads other weights):
every target's and expert's answers, then with the checking model the pyramids, the checks
(graph ``factcheck``) and the scoring. Each finished (stage, model, prompt) is one line of
``records.jsonl``, so a killed run resumes where it stopped, and a report of what is done can
be written at any time.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn

from factcourt.api.claims import acheck
from factcourt.api.pyramid import abuild_pyramid
from factcourt.context.pyramid import LeaderboardContext, PyramidContext
from factcourt.errors import InputError
from factcourt.fanout import cluster, fan_out
from factcourt.inputs import json_problem, read_text_file
from factcourt.metrics.response import gamma_key, mean_scores, pyramid_scores
from factcourt.nodes.helpers import bounded, concurrency, language_for
from factcourt.nodes.pyramid.answer import answer_question
from factcourt.nodes.pyramid.match import match_claims
from factcourt.progress import Progress
from factcourt.providers.cache import cache_key
from factcourt.state.pyramid import Pyramid
from factcourt.state.records import ClerkSplit, Usage
from factcourt.store import PredictionStore, keep_settings, write_jsonl, write_whole
from factcourt.terminal import Console


@dataclass(frozen=True)
class Prompt:
    """One long-form prompt."""

    id: str
    text: str
    topic: str = ""


PROMPT_FIELDS = ("prompt", "question", "text")


def read_prompts(path: Path, limit: int | None = None, seed: int | None = None) -> list[Prompt]:
    """Prompts of a JSONL file ({'id', 'prompt'|'question'|'text', 'topic'|'category'}).

    ``limit`` takes a topic-balanced sample as the paper's LongFact set does: the first prompt
    of every topic, then the second, ... (``seed`` shuffles each topic first).
    """
    prompts, seen = [], set()
    for number, line in enumerate(read_text_file(path, "prompts file").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise json_problem(str(path), exc, number) from None
        text = next((row[f] for f in PROMPT_FIELDS if isinstance(row, dict) and row.get(f)), None)
        if not isinstance(text, str) or not text.strip():
            raise InputError(f"{path}:{number}: no prompt text (a non-empty 'prompt', 'question' or 'text')")
        prompt_id = str(row.get("id") or f"line-{number}")
        if prompt_id in seen:
            raise InputError(f"{path}:{number}: the id {prompt_id!r} appears twice")
        seen.add(prompt_id)
        prompts.append(Prompt(prompt_id, text.strip(), str(row.get("topic") or row.get("category") or "")))
    if not prompts:
        raise InputError(f"{path} holds no prompt")
    if not limit:
        return prompts
    topics: dict[str, list[Prompt]] = {}
    for p in prompts:
        topics.setdefault(p.topic, []).append(p)
    if seed is not None:
        for group in topics.values():
            random.Random(seed).shuffle(group)
    sample = [
        group[i] for i in range(max(map(len, topics.values()))) for group in topics.values() if i < len(group)
    ]
    return sample[:limit]


def _usage(record: dict[str, Any] | None) -> Usage:
    return Usage.model_validate(record["usage"]) if record and record.get("usage") else Usage()


class Leaderboard:
    """One leaderboard run in ``out``: its prompts, models and store (what Ray workers are sent)."""

    def __init__(self, prompts: list[Prompt], targets: list[str], ctx: LeaderboardContext, out: Path):
        """Open the store in ``out`` (records already there count as done)."""
        self.prompts, self.targets, self.ctx, self.out = prompts, targets, ctx, out
        self.store = PredictionStore(out / "records.jsonl")

    def refuse_other_prompts(self) -> None:
        """Refuse a folder whose answers or pyramids were made for another text under an id.

        Ids default to line numbers, so another prompts file would reuse the old answers.
        """
        texts = {p.id: p.text for p in self.prompts}
        for (_, prompt_id), record in self.store.records.items():
            stored = record.get("prompt") or (record.get("pyramid") or {}).get("question")
            if prompt_id in texts and stored and stored != texts[prompt_id]:
                raise InputError(
                    f"{self.out} holds results for the prompt {prompt_id!r} asked as {stored!r}, not "
                    f"{texts[prompt_id]!r}: use a new --out"
                )

    def record(self, stage: str, prompt: Prompt, model: str = "") -> dict[str, Any] | None:
        """The stored record of a stage, or None."""
        return self.store.records.get((f"{stage}:{model}", prompt.id))

    def made(self, stage: str, prompt: Prompt, model: str = "") -> dict[str, Any]:
        """The stored record of a stage the caller comes after: missing, it is a bug, said so."""
        record = self.record(stage, prompt, model)
        if record is None:
            raise RuntimeError(f"no {stage} record of prompt {prompt.id!r} for {model or 'the pyramid'!r}")
        return record

    def language(self, prompt: Prompt) -> str:
        """The prompt's language: the Clerk, the jury and the answers follow it."""
        return language_for(self.ctx.language, prompt.text)

    def settings_for(self, prompt: Prompt) -> LeaderboardContext:
        """The checking settings for this prompt, in its language."""
        return LeaderboardContext.make(self.ctx, language=self.language(prompt))

    async def run(self, console: Console, ray: Any = None) -> None:
        """Every stage, skipping what is stored; ``ray``: a joined cluster whose workers do the work."""
        models = list(dict.fromkeys([*self.targets, *self.ctx.experts]))
        with Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
        ) as bar:
            stage = partial(self._stage, bar, ray)
            for model in models:
                await stage(f"answers {model}", "answer", model, self.prompts, self._answer)
            await stage("pyramids", "pyramid", "", self.prompts, self._pyramid)
            for model in self.targets:
                answered = [p for p in self.prompts if self._ok("answer", p, model)]
                await stage(f"checks {model}", "check", model, answered, self._check)
            for model in self.targets:
                ready = [p for p in self.prompts if self._ok("check", p, model) and self._ok("pyramid", p)]
                await stage(f"scores {model}", "score", model, ready, self._score)

    def _done(self, stage: str, prompt: Prompt, model: str) -> bool:
        """Stored without an error and still up to date.

        A failure (a time-out, an endpoint down) is tried again by the next run; a pyramid built
        without an expert whose answer has come since is rebuilt, and its scores with it.
        """
        if not self._ok(stage, prompt, model):
            return False
        if stage == "pyramid":
            missing = self.made("pyramid", prompt)["pyramid"].get("failed", {})
            return not any(self._ok("answer", prompt, expert) for expert in missing)
        if stage == "score":
            pyramid = Pyramid.model_validate(self.made("pyramid", prompt)["pyramid"])
            return self.made("score", prompt, model).get("pyramid_key") == pyramid_key(pyramid)
        return True

    def _ok(self, stage: str, prompt: Prompt, model: str = "") -> bool:
        record = self.record(stage, prompt, model)
        return record is not None and not record.get("error")

    async def _stage(
        self,
        bar: Progress,
        ray: Any,
        title: str,
        stage: str,
        model: str,
        prompts: list[Prompt],
        work: Callable[[Prompt, str], Awaitable[dict[str, Any]]],
    ) -> None:
        todo = [p for p in prompts if not self._done(stage, p, model)]
        task = bar.add_task(title, total=len(prompts), completed=len(prompts) - len(todo))
        at_once = concurrency(self.ctx.for_model(model) if stage == "answer" else self.ctx)
        timed = partial(_timed, work, model)

        def finished(prompt: Prompt, record: dict[str, Any]) -> None:
            record.update(method=f"{stage}:{model}", id=prompt.id)
            self.store.append(record)
            if "pyramid" in record:  # saved here: a Ray worker may be another machine
                (self.out / "pyramids").mkdir(parents=True, exist_ok=True)
                write_whole(
                    self.out / "pyramids" / f"{safe_name(prompt.id)}.json",
                    Pyramid.model_validate(record["pyramid"]).model_dump_json(indent=2),
                )
            bar.advance(task)

        async def one(prompt: Prompt) -> None:
            finished(prompt, await timed(prompt))

        if ray is None:
            await bounded(at_once, [partial(one, p) for p in todo])
        else:
            fan_out(ray, todo, timed, finished, _lost, concurrency=at_once)

    async def _answer(self, prompt: Prompt, model: str) -> dict[str, Any]:
        answer = await answer_question(self.ctx, model, prompt.text, self.language(prompt))
        return {
            "prompt": prompt.text,
            "text": answer.text,
            "error": answer.error,
            "usage": answer.usage.model_dump(),
        }

    async def _pyramid(self, prompt: Prompt, _: str) -> dict[str, Any]:
        answers = {e: self.record("answer", prompt, e) for e in self.ctx.experts}
        given = {e: r["text"] for e, r in answers.items() if r and not r.get("error")}
        failed = {e: (r or {}).get("error") or "no answer" for e, r in answers.items() if e not in given}
        if not given:
            pyramid = Pyramid(question=prompt.text, experts=list(self.ctx.experts), failed=failed)
        else:
            ctx = PyramidContext.make(self.settings_for(prompt), experts=list(given))
            pyramid = await abuild_pyramid(prompt.text, ctx, answers=given)
            pyramid = pyramid.model_copy(
                update={"experts": list(self.ctx.experts), "failed": pyramid.failed | failed}
            )
        return {
            "pyramid": pyramid.model_dump(mode="json"),
            "usage": pyramid.usage.model_dump(),
            # a failed merge confirmation splits one fact into layers it does not belong in
            "error": f"the merge failed {len(pyramid.notes)} time(s): {pyramid.notes[0]}"
            if pyramid.notes
            else None,
        }

    async def _check(self, prompt: Prompt, model: str) -> dict[str, Any]:
        text = self.made("answer", prompt, model)["text"]
        checked = await acheck(
            text, prompt.text, self.settings_for(prompt), split=self._split(prompt, model, text)
        )
        # a claim left unchecked or a part left unsplit would lower the answer's scores for
        # good: the check fails (left out of the means, tried again by the next run)
        failed_parts = [d for d in checked.dropped if d.reason == "clerk_failed"]
        unchecked = [c for c in checked.claims if c.verdict is None]
        error = None
        if failed_parts:
            parts = len(failed_parts)
            error = f"the Clerk could not split {parts} part(s) of the answer: {failed_parts[0].error}"
        elif unchecked:
            error = (
                f"{len(unchecked)} of {len(checked.claims)} claims could not be checked: {unchecked[0].error}"
            )
        kept = {"id", "text", "verdict", "justification", "confidence", "error"}
        claims = [
            c.model_dump(mode="json", include=kept) | {"evidence": [e.url for e in c.evidence]}
            for c in checked.claims
        ]
        # the record keeps the result's JSON
        spent = checked.model_dump(mode="json", include={"dropped", "usage"})
        return {"claims": claims, "dropped": spent["dropped"], "usage": spent["usage"], "error": error}

    def _split(self, prompt: Prompt, model: str, text: str) -> ClerkSplit | None:
        """The pyramid's split of this answer when the target is also an expert: the Clerk splits it once."""
        split = ((self.record("pyramid", prompt) or {}).get("pyramid") or {}).get("splits", {}).get(model)
        return ClerkSplit.model_validate(split) if split and split["response"] == text else None

    async def _score(self, prompt: Prompt, model: str) -> dict[str, Any]:
        pyramid = Pyramid.model_validate(self.made("pyramid", prompt)["pyramid"])
        judged = [c for c in self.made("check", prompt, model)["claims"] if c["verdict"]]
        golden = pyramid.claims
        matches, usage, notes = await match_claims(
            self.settings_for(prompt), pyramid.language, [c["text"] for c in judged], [g.text for g in golden]
        )
        scored = [
            {
                "text": c["text"],
                "verdict": c["verdict"],
                "golden": None if m is None else golden[m].id,
                "weight": self.ctx.unmatched_weight if m is None else golden[m].weight,
            }
            for c, m in zip(judged, matches, strict=True)
        ]
        scores = pyramid_scores(
            [(c["verdict"] == "supported", c["weight"], c["golden"]) for c in scored],
            pyramid.weights(),
            gammas=self.ctx.gammas,
            ks=self.ctx.f1_ks,
        )
        return {
            "scores": scores,
            "claims": scored,
            "notes": notes,
            "usage": usage.model_dump(),
            "pyramid_key": pyramid_key(pyramid),  # a rebuilt pyramid makes this score stale
            # an unconfirmed match leaves a claim off the pyramid: scored again by the next run
            "error": f"the matcher failed on {len(notes)} claim(s): {notes[0]}" if notes else None,
        }


async def _timed(
    work: Callable[[Prompt, str], Awaitable[dict[str, Any]]], model: str, prompt: Prompt
) -> dict[str, Any]:
    """A stage's record of one prompt, with the seconds its work took."""
    start = time.monotonic()
    record = await work(prompt, model)
    return record | {"seconds": round(time.monotonic() - start, 3)}


def _lost(_: Prompt, reason: str) -> dict[str, Any]:
    """The record of a stage whose Ray task failed: tried again by the next run."""
    return {"error": reason}


def pyramid_key(pyramid: Pyramid) -> str:
    """What a score depends on in its pyramid: the golden claims with their weights."""
    return cache_key("pyramid", [(g.id, g.text, g.weight) for g in pyramid.claims])


def safe_name(text: str) -> str:
    """A file name for an id, one of its own: ids ``x/y`` and ``x_y`` must not share a file.

    An id that is a file name already keeps it; one that had to change (a character replaced,
    cut at 120, or a name such as ``..``) ends in a short hash of the id.
    """
    name = "".join(c if c.isalnum() or c in "-_." else "_" for c in text)[:120]
    if name == text and name.strip("."):
        return name
    return f"{name}-{hashlib.sha256(text.encode('utf-8')).hexdigest()[:10]}"


# ------------------------------------------------------------------------------ report


def score_names(ctx: LeaderboardContext) -> list[str]:
    """The table's score columns: Prec, R@gamma and F1@gamma per gamma, F1@K per K."""
    names = ["precision"]
    for gamma in ctx.gammas:
        names += [gamma_key("recall", gamma), gamma_key("f1", gamma)]
    return names + [f"f1@{k}" for k in ctx.f1_ks]


def _cost(records: list[dict[str, Any] | None]) -> dict[str, Any]:
    done = [r for r in records if r is not None]
    usage = sum((_usage(r) for r in done), Usage())
    return {
        "calls": usage.calls,
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "seconds": round(sum(r.get("seconds", 0.0) for r in done), 1),
    }


NO_MEAN = {"mean": None, "n": 0, "undefined": 0}


def _over_max_claims(check: dict[str, Any] | None) -> int:
    """Claims of an answer that decompose dropped beyond ``max_claims``: never checked nor scored."""
    return sum(1 for d in (check or {}).get("dropped", []) if d["reason"] == "over_limit")


STEPS = ("answer", "check", "score")  # a target's records per prompt, in the order they are made


def build_report(lb: Leaderboard) -> dict[str, Any]:
    """Per target: prompts done and failed, mean scores, calls, tokens and time; where the time went.

    Each target's means are over the prompts scored for it; the ranking compares the targets on
    the prompts scored for all of them, so that one failing hard prompts does not rank on easier
    ones. A target with no score at all is ranked last rather than leaving no prompt in common.
    """
    names = score_names(lb.ctx)
    rows: list[dict[str, Any]] = []
    first = gamma_key("f1", lb.ctx.gammas[0]) if lb.ctx.gammas else names[-1]
    scored = {
        m: {
            p.id: r["scores"] for p in lb.prompts if lb._ok("score", p, m) and (r := lb.record("score", p, m))
        }
        for m in lb.targets
    }
    with_scores = [by_prompt for by_prompt in scored.values() if by_prompt]
    common = [p.id for p in lb.prompts if with_scores and all(p.id in s for s in with_scores)]
    for model in lb.targets:
        answers = [lb.record("answer", p, model) for p in lb.prompts]
        checks = [lb.record("check", p, model) for p in lb.prompts]
        scores = [lb.record("score", p, model) for p in lb.prompts]
        means = mean_scores(list(scored[model].values()))
        ranked = mean_scores([scored[model][i] for i in common if i in scored[model]])
        over = [_over_max_claims(r) for r in checks]
        rows.append(
            {
                "model": model,
                "prompts": len(lb.prompts),
                "answered": sum(1 for r in answers if r and not r.get("error")),
                "answer_failed": sum(1 for r in answers if r and r.get("error")),
                "check_failed": sum(1 for r in checks if r and r.get("error")),
                "score_failed": sum(1 for r in scores if r and r.get("error")),
                "scored": sum(1 for r in scores if r and not r.get("error")),
                "means": {n: means.get(n, NO_MEAN) for n in names},
                "ranked": ranked.get(first, NO_MEAN),
                "claims_per_answer": _mean([len(r["claims"]) for r in scores if r and not r.get("error")]),
                "over_max_claims": {"claims": sum(over), "answers": sum(1 for n in over if n)},
                "cost": {
                    "answer": _cost(answers),
                    "check": _cost(checks),
                    "score": _cost(scores),
                },
            }
        )
    rows.sort(key=lambda r: (r["ranked"]["mean"] is None, -(r["ranked"]["mean"] or 0.0)))
    pyramids = [lb.record("pyramid", p) for p in lb.prompts]
    built = [Pyramid.model_validate(r["pyramid"]) for r in pyramids if r and "pyramid" in r]
    experts_only = [m for m in lb.ctx.experts if m not in lb.targets]
    stored = [
        r
        for p in lb.prompts
        for r in (lb.record("pyramid", p), *(lb.record(k, p, m) for m in lb.targets for k in STEPS))
        if r
    ]
    # a failure's reason, for the console: the counts alone say that something failed, not why
    reasons = [r["error"] for r in stored if r.get("error")] + [
        f"expert {e}: {why}" for p in built for e, why in p.failed.items()
    ]
    return {
        "first_error": reasons[0] if reasons else None,
        "rows": rows,
        "score_names": names,
        "ranked_by": {"score": first, "prompts": len(common)},
        "max_claims": lb.ctx.max_claims,
        "pyramids": {
            "built": len(built),
            "prompts": len(lb.prompts),
            "failed": sum(1 for r in pyramids if r and r.get("error")),
            "empty": sum(1 for p in built if not p.claims),
            "short_of_experts": sum(1 for p in built if p.failed),
            "golden_claims_per_prompt": _mean([len(p.claims) for p in built]),
            "per_layer": _layers(built),
            "cost": _cost(pyramids),
        },
        "expert_answers": {m: _cost([lb.record("answer", p, m) for p in lb.prompts]) for m in experts_only},
    }


def _mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 2) if values else None


def _layers(pyramids: list[Pyramid]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for p in pyramids:
        for g in p.claims:
            key = f"layer {g.layer} (f={len(g.experts)}, w={g.weight:g})"
            counts[key] = counts.get(key, 0) + 1
    return dict(sorted(counts.items()))


def _cell(value: dict[str, Any]) -> str:
    if value["mean"] is None:
        return "undefined" if value["undefined"] else "-"
    mark = f" ({value['undefined']} undef.)" if value["undefined"] else ""
    return f"{value['mean']:.3f}{mark}"


LABELS = {"precision": "Prec", "recall": "R", "f1": "F1"}


def label(name: str) -> str:
    """'recall@1.0' -> 'R@1.0'."""
    head, sep, tail = name.partition("@")
    return f"{LABELS.get(head, head)}{sep}{tail}"


def markdown(report: dict[str, Any], settings: dict[str, Any]) -> str:
    """report.md: the paper's Tables 7-8 with cost and failure columns, then where the time went."""
    names, ranked_by, most = report["score_names"], report["ranked_by"], report["max_claims"]
    lines = [
        "# MAD-Fact leaderboard",
        "",
        f"Prompts: {settings['prompts_file']} ({settings['prompts']} prompts). Experts: "
        f"{', '.join(settings['experts'])}. Checked by: {settings['checker']} "
        f"({settings['protocol']}, rule {settings['rule']}). Scores are means over the answers scored; "
        "F1 is averaged per answer.",
        "",
        f"Ranked by {label(ranked_by['score'])} over the {ranked_by['prompts']} prompts scored for every "
        f"model ('ranked {label(ranked_by['score'])}'), so a model that fails hard prompts does not rank "
        "on easier ones; the other scores are each model's means over the prompts scored for it.",
        "",
        *[
            f"{model} is also an expert: its own claims are in the golden set, which raises its "
            "recall against models that are not.\n"
            for model in [r["model"] for r in report["rows"]]
            if model in settings["experts"]
        ],
        *[
            f"{r['model']}: {r['over_max_claims']['claims']} claims in {r['over_max_claims']['answers']} "
            f"answers were over max_claims ({most}) and not checked, which bounds its recall and F1@K.\n"
            for r in report["rows"]
            if r["over_max_claims"]["claims"]
        ],
        "| Model | scored | "
        + " | ".join(label(n) for n in names)
        + f" | ranked {label(ranked_by['score'])} | failed | calls | tokens | time s |",
        "|---" * (len(names) + 7) + "|",
    ]
    for row in report["rows"]:
        cost = row["cost"]
        calls = sum(c["calls"] for c in cost.values())
        tokens = sum(c["input_tokens"] + c["output_tokens"] for c in cost.values())
        seconds = sum(c["seconds"] for c in cost.values())
        failed = row["answer_failed"] + row["check_failed"] + row["score_failed"]
        lines.append(
            f"| {row['model']} | {row['scored']}/{row['prompts']} | "
            + " | ".join(_cell(row["means"][n]) for n in names)
            + f" | {_cell(row['ranked'])} | {failed} | {calls} | {tokens} | {seconds:.0f} |"
        )
    p = report["pyramids"]
    lines += [
        "",
        "'undefined': recall of answers whose pyramid has no golden claim (left out of the mean). "
        "'failed': prompts the model did not answer or whose answer could not be checked or "
        "scored (left out of its mean and of the ranking; the next run tries them again). Calls, "
        "tokens and time: its answers, their checks and their scoring.",
        "",
        "## Where the time went",
        "",
        "| stage | model | calls | input tokens | output tokens | seconds |",
        "|---|---|---|---|---|---|",
    ]
    for row in report["rows"]:
        for stage, cost in row["cost"].items():
            lines.append(
                f"| {stage} | {row['model']} | {cost['calls']} | {cost['input_tokens']} | "
                f"{cost['output_tokens']} | {cost['seconds']:.0f} |"
            )
    for model, cost in report["expert_answers"].items():
        lines.append(
            f"| answer (expert only) | {model} | {cost['calls']} | {cost['input_tokens']} | "
            f"{cost['output_tokens']} | {cost['seconds']:.0f} |"
        )
    c = p["cost"]
    lines += [
        "| pyramid (the Clerk's split of each expert answer, which a check of it reuses; the merge) "
        f"| all | {c['calls']} | "
        f"{c['input_tokens']} | {c['output_tokens']} | {c['seconds']:.0f} |",
        "",
        f"Pyramids: {p['built']} of {p['prompts']} built, {p['failed']} failed (a merge call failed; "
        f"built again by the next run), {p['empty']} without golden claims, "
        f"{p['short_of_experts']} with an expert missing; {p['golden_claims_per_prompt']} golden claims "
        f"per prompt; by layer: {', '.join(f'{k}: {v}' for k, v in p['per_layer'].items()) or 'none'}.",
        "",
    ]
    return "\n".join(lines)


def plot(report: dict[str, Any], path: Path) -> None:
    """leaderboard.png: every model's F1@gamma and F1@K side by side."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    f1s = [n for n in report["score_names"] if n.startswith("f1@")]
    rows = report["rows"]
    fig, ax = plt.subplots(figsize=(max(6.0, 1.6 * len(rows) + 2), 4))
    width = 0.8 / max(1, len(f1s))
    for i, name in enumerate(f1s):
        values = [r["means"][name]["mean"] or 0.0 for r in rows]
        ax.bar([x + i * width for x in range(len(rows))], values, width, label=label(name))
    ax.set_xticks([x + width * (len(f1s) - 1) / 2 for x in range(len(rows))], [r["model"] for r in rows])
    ax.set_ylim(0, 1)
    ax.set_ylabel("mean over answers")
    ax.set_title("MAD-Fact leaderboard")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def write_answers(lb: Leaderboard, path: Path) -> int:
    """answers.jsonl: every target's answer to every prompt with its checked claims and scores."""
    lines = []
    for model in lb.targets:
        for p in lb.prompts:
            answer = lb.record("answer", p, model)
            if answer is None:
                continue
            check, score = lb.record("check", p, model), lb.record("score", p, model)
            lines.append(
                {
                    "model": model,
                    "id": p.id,
                    "prompt": p.text,
                    "answer": answer["text"],
                    "error": answer.get("error") or (check or {}).get("error") or (score or {}).get("error"),
                    "claims": (score or {}).get("claims") or (check or {}).get("claims", []),
                    "checked_claims": (check or {}).get("claims", []),
                    "scores": (score or {}).get("scores"),
                    "over_max_claims": _over_max_claims(check),
                }
            )
    write_jsonl(path, lines)
    return len(lines)


# the roles besides the checker (evaluator) whose model a check or a score calls, stored by the
# name ``choose`` resolves (role_models, then model). MAD-Fact's Judge is the jury's vote (no
# model) or, in the adversarial protocol, the moderator's verdict, so the moderator stands for it
CHECK_ROLES = ("clerk", "debater", "moderator", "query", "matcher")
# what the stored answers, pyramids, checks and scores depend on; prompts and targets may grow in a resume
STORED_UNDER = (
    "experts",
    "checker",
    "protocol",
    "rule",
    "first_pass_theta",
    "embeddings",
    "same_fact_similarity",
    "unmatched_weight",
    "answer_max_tokens",
    "search",
    "jurors",
    "rounds",
    "gammas",
    "f1_ks",
    "max_claims",
    "same_fact_candidates",
    *CHECK_ROLES,
)
# settings stored and compared as the context holds them: each changes answers, checks or scores
CONTEXT_STORED = (
    "temperature",
    "max_tokens",
    "structured_output",
    "logprobs",
    "local_weights",
    "model_settings",
    "roles",
    "theta",
    "first_pass",
    "first_pass_votes",
    "evidence_first",
    "confidence_source",
    "use_roles",
    "use_debate",
    "corpus",
    "top_k",
    "language",
)


async def run_leaderboard(
    prompts_file: Path,
    targets: list[str],
    ctx: LeaderboardContext,
    out: Path,
    *,
    limit: int | None = None,
    seed: int | None = None,
    report_only: bool = False,
    console: Console | None = None,
    ray: str | None = None,
) -> dict[str, Any]:
    """Run (with ``report_only``: only report) the leaderboard; write the reports, answers and plot.

    ``ray``: the address of a Ray cluster ('auto' for the one this machine belongs to) whose
    workers answer, build the pyramids, check and score, stage by stage.
    """
    from factcourt.providers.models import models

    prompts = read_prompts(prompts_file, limit, seed)
    settings = {
        "prompts_file": str(prompts_file),
        "prompts": len(prompts),
        "limit": limit,
        "seed": seed,
        "targets": targets,
        "experts": list(ctx.experts),
        "checker": models(ctx)["evaluator"].name,
        "protocol": ctx.protocol,
        "rule": ctx.rule,
        "first_pass_theta": ctx.first_pass_theta,
        "embeddings": ctx.embedder,
        "same_fact_similarity": ctx.similarity_threshold,
        "unmatched_weight": ctx.unmatched_weight,
        "answer_max_tokens": ctx.answer_max_tokens,
        "search": ctx.search,
        "jurors": ctx.jurors,
        "rounds": ctx.rounds,
        "gammas": list(ctx.gammas),
        "f1_ks": list(ctx.f1_ks),
        "max_claims": ctx.max_claims,
        "same_fact_candidates": ctx.same_fact_candidates,
        **{role: models(ctx)[role].name for role in CHECK_ROLES},
        **{name: getattr(ctx, name) for name in CONTEXT_STORED},
    }
    keep_settings(out, {k: settings[k] for k in (*STORED_UNDER, *CONTEXT_STORED)}, "leaderboard")
    lb = Leaderboard(prompts, targets, ctx, out)
    lb.refuse_other_prompts()
    if not report_only:
        with cluster(ray) if ray else contextlib.nullcontext() as joined:  # in this thread: see cluster
            await lb.run(console or Console(stderr=True), joined)
    report = build_report(lb)
    (out / "report.md").write_text(markdown(report, settings), encoding="utf-8")
    answers = write_answers(lb, out / "answers.jsonl")
    plot(report, out / "leaderboard.png")
    summary = {"settings": settings, "report": report, "answers": answers}
    (out / "report.json").write_text(json.dumps(summary, indent=2, ensure_ascii=False), encoding="utf-8")
    return summary
