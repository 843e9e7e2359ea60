"""FACT-AUDIT reports: the final state as JSON, Markdown, a JSONL of cases and an IMR bar chart."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any, cast

from factcourt.context.audit import AuditContext
from factcourt.metrics.audit import by, by_iteration, over_runs, scores
from factcourt.state.audit import CaseRecord, grade_of
from factcourt.state.records import Usage
from factcourt.store import write_jsonl


def verdict_right(record: CaseRecord) -> bool:
    """The target's verdict is the reference's (an answer without a verdict is wrong)."""
    return record.response_label is not None and record.response_label == record.reference_label


def _pair(record: CaseRecord) -> tuple[float, bool]:
    return grade_of(record), verdict_right(record)


def models_json(ctx: AuditContext) -> dict[str, Any]:
    """The auditor's and the target's model, and whether they are one and the same."""
    from factcourt.nodes.audit.common import target_context
    from factcourt.providers.models import models

    auditor, target = models(ctx)["grader"], models(target_context(ctx))["target"]
    same = (auditor.name, auditor.endpoint, auditor.weights) == (target.name, target.endpoint, target.weights)
    return {
        "auditor": {"model": auditor.name, "endpoint": auditor.endpoint},
        "target": {"model": target.name, "endpoint": target.endpoint},
        "self_audit": same,
    }


def audit_json(state: dict[str, Any], ctx: AuditContext) -> dict[str, Any]:
    """The final state of an ``audit`` run: scores by scope, taxonomy, counts, every case."""
    memory: list[CaseRecord] = state.get("memory", [])
    graded = [r for r in memory if r.status == "graded"]
    scenario_scores = by(graded, lambda r: f"{r.object}/{r.scenario}", _pair)
    taxonomy = [
        {**s.model_dump(), **scenario_scores.get(f"{s.object}/{s.name}", scores([]))}
        for s in state.get("taxonomy", [])
    ]
    failed = [r for r in memory if r.status != "graded"]
    return {
        "error": state.get("error"),
        "objects": state.get("objects", []),
        "models": models_json(ctx),
        "settings": {f: getattr(ctx, f) for f in vars(ctx) if f.startswith("audit_")}
        | {"search": ctx.search, "corpus": ctx.corpus},
        "overall": scores([_pair(r) for r in graded]),
        "by_object": by(graded, lambda r: r.object, _pair),
        "by_mode": by(graded, lambda r: r.case.test_mode, _pair),
        "by_object_mode": by(graded, lambda r: f"{r.object}/{r.case.test_mode}", _pair),
        "by_iteration": by_iteration(
            [
                [_pair(r) for r in graded if (r.object, r.scenario) == key]
                for key in dict.fromkeys((r.object, r.scenario) for r in graded)
            ]
        ),
        "taxonomy": taxonomy,
        "added_scenarios": [s for s in taxonomy if s["added"]],
        "stops": state.get("stops", {}),
        "appraisals": [a.model_dump(mode="json") for a in state.get("appraisals", [])],
        "counts": {
            "cases": len(memory),
            "graded": len(graded),
            "target_failed": sum(r.status == "target_failed" for r in memory),
            "dropped": sum(r.status == "dropped" for r in memory),
            "not_graded_by_reason": dict(Counter((r.error or "").split(":")[0] for r in failed)),
            "evidence_not_found_in_corpus": sum(r.wiki_check is False for r in memory),
        },
        "notes": state.get("notes", []),
        "usage": (state.get("usage") or Usage()).model_dump(mode="json"),
        "cases": [r.model_dump(mode="json") for r in memory],
    }


def _cell(s: dict[str, Any]) -> str:
    if not s["n"]:
        return "n/a | n/a | n/a | n/a | 0"
    return f"{s['imr']:.2f} | {s['jfr']:.2f} | {s['grade']:.2f} | {s['agree']:.2f} | {s['n']}"


def markdown(report: dict[str, Any], chart: str | None = None) -> str:
    """The report for people: models, scores per object and scenario, stops, failures, two cases."""
    m, c, u = report["models"], report["counts"], report["usage"]
    lines = [
        "# FACT-AUDIT report",
        "",
        f"Target: `{m['target']['model']}` ({m['target']['endpoint']}); auditor: "
        f"`{m['auditor']['model']}` ({m['auditor']['endpoint']}).",
    ]
    if m["self_audit"]:
        lines += [
            "",
            "**Self-audit:** the auditor is the target, so the reference answers and the grades share "
            "the target's errors and the scores flatter it.",
        ]
    lines += [
        "",
        "IMR (insufficiency mining rate, % of cases graded below 4), JFR (justification flaw rate, % "
        "with the reference's verdict but graded below 4) and Grade (mean, 1-10), over graded cases; "
        "Agree (not a metric of the paper): % whose stated verdict is the reference's.",
        "",
        "| scope | IMR % | JFR % | Grade | Agree % | n |",
        "|---|---|---|---|---|---|",
        *(f"| {obj} | {_cell(s)} |" for obj, s in report["by_object"].items()),
        f"| **overall** | {_cell(report['overall'])} |",
        "",
        "| test mode | IMR % | JFR % | Grade | Agree % | n |",
        "|---|---|---|---|---|---|",
        *(f"| {mode} | {_cell(s)} |" for mode, s in report["by_mode"].items()),
        "",
        "Per probing iteration (Fig. 5): the scores of every scenario's first k graded cases.",
        "",
        "| iteration k | IMR % | JFR % | Grade | Agree % | n |",
        "|---|---|---|---|---|---|",
        *(f"| {row['iteration']} | {_cell(row)} |" for row in report.get("by_iteration", [])),
        "",
        "## Scenarios (* added by the Appraiser)",
        "",
        "| object | scenario | IMR % | JFR % | Grade | Agree % | n |",
        "|---|---|---|---|---|---|---|",
        *(
            f"| {s['object']} | {s['name']}{' *' if s['added'] else ''} | {_cell(s)} |"
            for s in report["taxonomy"]
        ),
        "",
    ]
    if chart:
        lines += [f"![IMR per scenario]({chart})", ""]
    lines += ["## Taxonomy updates", ""]
    lines += [f"- {obj}: stopped by {why}" for obj, why in report["stops"].items()]
    lines += [
        f"- {a['object']}: {a['outcome']} {a['proposal']}" + (f" ({a['reason'][:200]})" * bool(a["reason"]))
        for a in report["appraisals"]
    ]
    lines += [
        "",
        "## Cost and failures",
        "",
        f"{c['cases']} cases: {c['graded']} graded, {c['target_failed']} the target failed, "
        f"{c['dropped']} dropped (auditor output that did not parse, or no reference); "
        f"{c['evidence_not_found_in_corpus']} with evidence the corpus check could not find.",
        "",
        *(f"- not graded, {why or 'unknown'}: {n}" for why, n in c["not_graded_by_reason"].items()),
        *(f"- note: {n}" for n in report["notes"]),
        "",
        f"{u['calls']} model calls, {u['input_tokens']} input + {u['output_tokens']} output tokens, "
        f"{u['search_calls']} searches.",
        "",
        "| role | calls | input tokens | output tokens |",
        "|---|---|---|---|",
        *(
            f"| {role} | {v.get('calls', 0)} | {v.get('input_tokens', 0)} | {v.get('output_tokens', 0)} |"
            for role, v in u["by_role"].items()
            if role != "search"
        ),
    ]
    shown = [r for r in report["cases"] if r["status"] == "graded"]
    if shown:
        lines += ["", "## Graded cases (the lowest and the highest grade)", ""]
        for r in sorted(
            {id(x): x for x in (min(shown, key=_grade), max(shown, key=_grade))}.values(), key=_grade
        ):
            lines += case_markdown(r)
    return "\n".join(lines) + "\n"


def _grade(record: dict[str, Any]) -> float:
    return cast(float, record["grade"])


def case_markdown(r: dict[str, Any]) -> list[str]:
    """One graded case in full."""
    case = r["case"]
    return [
        f"### {r['id']} ({case['test_mode']}, {r['origin']}): grade {r['grade']:g}",
        "",
        f"- source claim: {case['source_claim']}",
        *(f"- auxiliary info: {piece}" for piece in case["auxiliary_info"]),
        f"- key point: {case['key_point']}",
        f"- reference ({r['reference_label']}): {r['reference']}",
        f"- target ({r['response_label']}): {r['response']}",
        f"- grader: {r['comment']}",
        "",
    ]


def plot(report: dict[str, Any], path: Path) -> None:
    """Bar chart of IMR per scenario, coloured by object, added scenarios hatched and starred."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [s for s in report["taxonomy"] if s["n"]]
    objects = list(dict.fromkeys(s["object"] for s in rows))
    # get_cmap is typed as any Colormap: tab10 is a ListedColormap, which has .colors
    colours = dict(zip(objects, plt.get_cmap("tab10").colors, strict=False))  # type: ignore[attr-defined]
    fig, ax = plt.subplots(figsize=(max(6, 0.45 * len(rows) + 2), 5), dpi=120)
    bars = ax.bar(
        range(len(rows)),
        [s["imr"] for s in rows],
        color=[colours[s["object"]] for s in rows],
    )
    for bar, s in zip(bars, rows, strict=True):
        if s["added"]:
            bar.set_hatch("//")
    ax.set_xticks(
        range(len(rows)),
        [s["name"] + (" *" if s["added"] else "") for s in rows],
        rotation=60,
        ha="right",
        fontsize=7,
    )
    ax.set_ylabel("IMR % (lower is better)")
    ax.set_ylim(0, 100)
    ax.set_title("IMR per scenario (* hatched: added by the Appraiser)")
    handles = [plt.Rectangle((0, 0), 1, 1, color=colours[o]) for o in objects]
    if handles:
        ax.legend(handles, objects, fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def write_audit(report: dict[str, Any], out: Path) -> dict[str, Path]:
    """Write report.json (without the cases), cases.jsonl, imr_by_scenario.png and report.md."""
    out.mkdir(parents=True, exist_ok=True)
    paths = {
        "json": out / "report.json",
        "cases": out / "cases.jsonl",
        "chart": out / "imr_by_scenario.png",
        "markdown": out / "report.md",
    }
    summary = {k: v for k, v in report.items() if k != "cases"}
    paths["json"].write_text(json.dumps(summary, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    write_jsonl(paths["cases"], report["cases"])
    plot(report, paths["chart"])
    paths["markdown"].write_text(markdown(report, paths["chart"].name), encoding="utf-8")
    return paths


# ------------------------------------------------------------------ several runs


def runs_json(reports: list[dict[str, Any]]) -> dict[str, Any]:
    """Runs of one audit (seeds ``audit_seed``, +1, ...): mean and sd per scope, and each run's numbers."""
    objects = list(dict.fromkeys(obj for r in reports for obj in r["by_object"]))
    empty = scores([])
    return {
        "runs": len(reports),
        "models": reports[0]["models"],
        "overall": over_runs([r["overall"] for r in reports]),
        "by_object": {obj: over_runs([r["by_object"].get(obj, empty) for r in reports]) for obj in objects},
        "per_run": [
            {
                "seed": r["settings"]["audit_seed"],
                "overall": r["overall"],
                "by_object": r["by_object"],
                "counts": r["counts"],
                "stops": r["stops"],
                "error": r["error"],
            }
            for r in reports
        ],
    }


def _spread(summary: dict[str, Any]) -> str:
    if not summary["runs"]:
        return "n/a | n/a | n/a | n/a | 0 | 0"
    cells = []
    for metric in ("imr", "jfr", "grade", "agree"):
        m = summary[metric]
        cells.append(f"{m['mean']:.2f}" + (f" ± {m['sd']:.2f}" if m["sd"] is not None else ""))
    return " | ".join(cells) + f" | {summary['runs']} | {summary['n']}"


def runs_markdown(summary: dict[str, Any]) -> str:
    """The runs' summary for people: mean ± sd per object and overall, then each run."""
    lines = [
        f"# FACT-AUDIT over {summary['runs']} runs",
        "",
        f"Target: `{summary['models']['target']['model']}`; "
        f"auditor: `{summary['models']['auditor']['model']}`. Mean ± sample sd over the runs (the "
        "paper reports 3 runs so); each run's reports are in run-1/, run-2/, ...",
        "",
        "| scope | IMR % | JFR % | Grade | Agree % | runs | n |",
        "|---|---|---|---|---|---|---|",
        *(f"| {obj} | {_spread(s)} |" for obj, s in summary["by_object"].items()),
        f"| **overall** | {_spread(summary['overall'])} |",
        "",
        "| run | seed | IMR % | JFR % | Grade | Agree % | n |",
        "|---|---|---|---|---|---|---|",
        *(
            f"| {k} | {run['seed']} | {_cell(run['overall'])} |"
            for k, run in enumerate(summary["per_run"], start=1)
        ),
    ]
    return "\n".join(lines) + "\n"


def write_runs(summary: dict[str, Any], out: Path) -> dict[str, Path]:
    """Write runs.json and runs.md beside the runs' folders."""
    paths = {"json": out / "runs.json", "markdown": out / "runs.md"}
    paths["json"].write_text(json.dumps(summary, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    paths["markdown"].write_text(runs_markdown(summary), encoding="utf-8")
    return paths
