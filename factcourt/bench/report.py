"""Benchmark reports: quality, cost and speed per method, as JSON, Markdown, CSV and a plot."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from factcourt.metrics.calibration import reliability
from factcourt.metrics.classification import (
    accuracy_at_coverage,
    answered_report,
    binary_report,
    four_way_report,
    not_enough_recall,
    paired,
    risk_coverage,
    to_binary,
    verdict_confidence,
)
from factcourt.metrics.cost import Prices, dollars
from factcourt.metrics.debate import accuracy_by_round, flips
from factcourt.metrics.meteor import evidence_match
from factcourt.store import sheet_text


def table_head(columns: list[str]) -> list[str]:
    """A markdown table's header row and its rule."""
    return ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]


def method_report(records: list[dict[str, Any]], prices: Prices) -> dict[str, Any]:
    """Scores and costs of one method over its records."""
    n = len(records)
    gold = [r["gold"] for r in records]
    pred = [to_binary(r["verdict"]) for r in records]
    report: dict[str, Any] = {"binary": binary_report(gold, pred)}
    # beside the binary scores, where "not enough evidence" counts FALSE as in the papers
    report["answered"] = answered_report(gold, [r["verdict"] for r in records])
    report["answered"]["not_enough_recall"] = not_enough_recall(
        [r.get("gold_4way") for r in records], [r["verdict"] for r in records]
    )
    report["answered"]["risk_coverage"] = risk_coverage(
        gold,
        [r["verdict"] for r in records],
        [verdict_confidence(r["verdict"], r.get("p_true")) for r in records],
    )
    if any(r.get("gold_4way") for r in records):
        ok = [
            evidence_match(r["gold_evidence"], r["evidence"]) if r.get("gold_evidence") else False
            for r in records
        ]
        report["four_way"] = four_way_report(
            [r.get("gold_4way") for r in records], [r["verdict"] for r in records], ok
        )
    totals = {
        k: sum(r["usage"].get(k, 0) for r in records)
        for k in ("calls", "input_tokens", "output_tokens", "search_calls")
    }
    spent = dollars(totals, prices)
    per = (lambda x: x / n) if n else (lambda x: 0.0)
    report["cost"] = {
        "calls_per_claim": per(totals["calls"]),
        "input_tokens_per_claim": per(totals["input_tokens"]),
        "output_tokens_per_claim": per(totals["output_tokens"]),
        "searches_per_claim": per(totals["search_calls"]),
        "dollars_per_1000_claims": per(spent) * 1000,
        "seconds_per_claim": per(sum(r["seconds"] for r in records)),
    }
    report["roles"] = role_costs(records)
    rounds = [r.get("detail", {}).get("rounds", 0) for r in records]
    report["rounds_per_claim"] = per(sum(rounds))
    # DebateCV Fig. 2: four-way where the gold has it, else binary
    if "four_way" in report:
        report["by_round"] = accuracy_by_round(
            rounds, [r.get("gold_4way") for r in records], [r["verdict"] for r in records]
        )
    else:
        report["by_round"] = accuracy_by_round(rounds, gold, pred)
    report["calibration"] = reliability([r.get("p_true") for r in records], gold)
    # records of older runs hold no raw probability: theirs was never calibrated
    report["calibration_raw"] = reliability([r.get("p_true_raw", r.get("p_true")) for r in records], gold)
    debated = [r for r in records if r.get("route") == "debate"]
    report["debated_share"] = per(len(debated)) if any(r.get("route") for r in records) else None
    report["flips"] = flips(
        [r["gold"] for r in debated],
        [to_binary(r.get("first_round_verdict")) for r in debated],
        [to_binary(r["verdict"]) for r in debated],
    )
    turns = [t for r in records for t in r.get("detail", {}).get("transcript", [])]
    report["dropped_citations_per_claim"] = per(sum(t.get("dropped_citations", 0) for t in turns))
    report["rejected_changes"] = sum(1 for t in turns if t.get("rejected_change"))
    return report


COVERAGES = (0.1, 0.25, 0.5, 0.75, 1.0)  # where the markdown reads each risk-coverage curve


def _answered_lines(report: dict[str, dict[str, Any]]) -> list[str]:
    """What each method answered: coverage, scores where it answered, each answer's precision.

    Then each method's risk-coverage curve read at ``COVERAGES`` (report.json holds it whole).
    """

    def three(x: float | None) -> str:
        return "n/a" if x is None else f"{x:.3f}"

    lines = [
        "| method | coverage | accuracy on covered | macro-F1 on covered | area under accuracy-coverage "
        "| P(supported right) | P(refuted right) | NEE recall |",
        "|---|---|---|---|---|---|---|---|",
    ]
    curves = {}
    for method, r in report.items():
        a = r.get("answered") or {}
        curve = a.get("risk_coverage") or {}
        curves[method] = curve.get("curve", [])
        lines.append(
            f"| {method} | {three(a.get('coverage'))} ({a.get('answered', 0)}/{a.get('n', 0)}) | "
            f"{three(a.get('covered_accuracy'))} | {three(a.get('covered_macro_f1'))} | "
            f"{three(curve.get('accuracy_coverage_area'))} | {three(a.get('supported_precision'))} | "
            f"{three(a.get('refuted_precision'))} | {three(a.get('not_enough_recall'))} |"
        )
    lines += [
        "",
        "coverage: claims answered supported or refuted (the rest: not enough evidence, conflicting or",
        "failed); NEE recall: of the gold 'not enough info' claims, the share answered not enough evidence.",
        "",
        "Accuracy by coverage (answered claims ranked by their verdict's confidence, P(true) for",
        "supported and 1 - P(true) for refuted, most confident first, equal ones together, none last;",
        "the area is under this accuracy-coverage curve, at most the coverage; 1 - AURC at full coverage):",
        "",
        *table_head(["method", *(f"{c:.0%}" for c in COVERAGES)]),
    ]
    for method, curve in curves.items():
        cells = [accuracy_at_coverage(curve, c) for c in COVERAGES]
        lines.append(f"| {method} | " + " | ".join("-" if x is None else f"{x:.3f}" for x in cells) + " |")
    return lines


def role_costs(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Where a method's time goes, per role: tokens evaluated, served from the prompt cache and written.

    The rates are the server's own over all these calls (llama.cpp's timings), so the floor of a
    role, evaluated / prompt rate + written / generation rate, is what its tokens cost at best;
    the rest of its seconds is queueing, HTTP and parsing. Endpoints without timings give no rates.
    """
    roles: dict[str, dict[str, int]] = {}
    for r in records:
        for role, counts in (r["usage"].get("by_role") or {}).items():
            if role == "search":
                continue
            mine = roles.setdefault(role, {})
            for key, value in counts.items():
                mine[key] = mine.get(key, 0) + value
    n = len(records) or 1
    total = {k: sum(c.get(k, 0) for c in roles.values()) for k in ("input_tokens", "cached_tokens")}
    evaluated = {role: c.get("input_tokens", 0) - c.get("cached_tokens", 0) for role, c in roles.items()}
    prompt_s = sum(c.get("prompt_ms", 0) for c in roles.values()) / 1000
    predicted_s = sum(c.get("predicted_ms", 0) for c in roles.values()) / 1000
    prompt_rate = sum(evaluated.values()) / prompt_s if prompt_s else None
    output_rate = (
        sum(c.get("output_tokens", 0) for c in roles.values()) / predicted_s if predicted_s else None
    )
    table = {}
    for role, c in roles.items():
        floor = (
            evaluated[role] / prompt_rate + c.get("output_tokens", 0) / output_rate
            if prompt_rate and output_rate
            else None
        )
        table[role] = {
            "calls_per_claim": c.get("calls", 0) / n,
            "prompt_tokens_per_claim": c.get("input_tokens", 0) / n,
            "cached_tokens_per_claim": c.get("cached_tokens", 0) / n,
            "evaluated_tokens_per_claim": evaluated[role] / n,
            "output_tokens_per_claim": c.get("output_tokens", 0) / n,
            "seconds_per_claim": c.get("ms", 0) / 1000 / n,
            "floor_seconds_per_claim": None if floor is None else floor / n,
        }
    return {
        "by_role": table,
        "cached_share": total["cached_tokens"] / total["input_tokens"] if total["input_tokens"] else None,
        "prompt_tokens_per_s": prompt_rate,
        "output_tokens_per_s": output_rate,
    }


FLOOR = "plain"  # one label-only call: every method is held against it


def build_report(
    records: list[dict[str, Any]], methods: list[str], prices: Prices
) -> dict[str, dict[str, Any]]:
    """Reports for each method, in the order asked, each with its items won and lost against ``plain``."""
    report = {m: method_report([r for r in records if r["method"] == m], prices) for m in methods}
    floor = {r["id"]: to_binary(r["verdict"]) for r in records if r["method"] == FLOOR}
    for method in methods:
        mine = [r for r in records if r["method"] == method and r["id"] in floor]
        report[method]["vs_plain"] = (
            paired(
                [r["gold"] for r in mine],
                [to_binary(r["verdict"]) for r in mine],
                [floor[r["id"]] for r in mine],
            )
            if floor and method != FLOOR
            else None
        )
    return report


def markdown(report: dict[str, dict[str, Any]]) -> str:
    """MAD-Fact Table-3 style: P/R/F1 for TRUE and FALSE, then accuracy, cost and speed."""
    four = any("four_way" in r for r in report.values())
    head = ["method", "n", "failed", "P/R/F1 TRUE", "P/R/F1 FALSE", "acc", "macro-F1"]
    if four:
        head += ["acc 4-way", "macro-F1 4-way", "FPR NEE", "FPR CEC", "AVeriTeC"]
    head += ["vs plain won/lost (p)", "ECE", "ECE raw", "debated", "R->W / W->R"]
    head += ["calls/claim", "tokens in/out per claim", "searches/claim", "$/1k claims", "s/claim"]
    lines = table_head(head)
    for method, r in report.items():
        b, c = r["binary"], r["cost"]
        prf = lambda x: f"{x['precision']:.2f}/{x['recall']:.2f}/{x['f1']:.2f}"  # noqa: E731
        row = [
            method,
            str(b["n"]),
            str(b["failed"]),
            prf(b["true"]),
            prf(b["false"]),
            f"{b['accuracy']:.3f}",
            f"{b['macro_f1']:.3f}",
        ]
        if four:
            f = r.get("four_way") or {}
            row += [
                f"{f.get('accuracy', 0):.3f}",
                f"{f.get('macro_f1', 0):.3f}",
                f"{f.get('fpr_nee', 0):.1%}",
                f"{f.get('fpr_cec', 0):.1%}",
                f"{f.get('averitec_score', 0):.3f}",
            ]
        ece, flip, share = r["calibration"]["ece"], r["flips"], r["debated_share"]
        raw = r.get("calibration_raw", r["calibration"])["ece"]
        versus = r.get("vs_plain")
        row += [
            f"{versus['won']}/{versus['lost']} ({versus['p']:.2f})" if versus else "-",
            "n/a" if ece is None else f"{ece:.3f}",
            "n/a" if raw is None else f"{raw:.3f}",
            "n/a" if share is None else f"{share:.0%}",
            f"{flip['right_to_wrong']} / {flip['wrong_to_right']}" if flip["debated"] else "n/a",
        ]
        row += [
            f"{c['calls_per_claim']:.2f}",
            f"{c['input_tokens_per_claim']:.0f}/{c['output_tokens_per_claim']:.0f}",
            f"{c['searches_per_claim']:.2f}",
            f"{c['dollars_per_1000_claims']:.3f}",
            f"{c['seconds_per_claim']:.1f}",
        ]
        lines.append("| " + " | ".join(row) + " |")
    lines += ["", *_answered_lines(report)]
    lines += [
        "",
        "ECE: expected calibration error of P(true) (5 bins), as shown to users (calibrated where a fit",
        "is stored for the model); ECE raw: before calibration. debated: share of claims the first pass",
        "left to the debate; R->W / W->R: debated claims whose round-1 majority was right and final",
        "verdict wrong, and the reverse. vs plain: items this method got right and plain (one label-only",
        "call, the floor) wrong, the reverse, and McNemar's exact p of that difference. FPR NEE / CEC",
        "(DebateCV Table 4): of the claims whose gold is not that label, the share given it.",
        "",
        *_role_lines(report),
        *_rounds_table(report),
        "Reliability of P(true) (bin: claims, mean P(true), fraction true):",
        "",
    ]
    for method, r in report.items():
        for name, cal in (("", r["calibration"]), (" raw", r.get("calibration_raw"))):
            if cal is None or (name and cal == r["calibration"]):
                continue  # raw is shown only where calibration changed it
            bins = "; ".join(
                f"[{b['low']:.1f},{b['high']:.1f}) {b['n']}: {b['mean_p']:.2f} vs {b['frac_true']:.2f}"
                for b in cal["rows"]
            )
            lines.append(f"- {method}{name}: {bins or 'no probabilities'} (missing {cal['missing']})")
    return "\n".join(lines) + "\n"


def _role_lines(report: dict[str, dict[str, Any]]) -> list[str]:
    """The per-role cost table of every method that made calls in this run."""
    head = "| method | role | calls | prompt tokens | from cache | evaluated | written | s | floor s |"
    lines = [
        "Cost per claim and role (tokens of this run's new calls; floor: the tokens at the server's rates):",
        "",
    ]
    lines += [head, "|" + "---|" * 9]
    rates = []
    for method, r in report.items():
        costs = r.get("roles") or {}
        for role, c in (costs.get("by_role") or {}).items():
            floor = c["floor_seconds_per_claim"]
            lines.append(
                f"| {method} | {role} | {c['calls_per_claim']:.2f} | {c['prompt_tokens_per_claim']:.0f} | "
                f"{c['cached_tokens_per_claim']:.0f} | {c['evaluated_tokens_per_claim']:.0f} | "
                f"{c['output_tokens_per_claim']:.0f} | {c['seconds_per_claim']:.1f} | "
                + ("-" if floor is None else f"{floor:.1f}")
                + " |"
            )
        if costs.get("prompt_tokens_per_s"):
            rates.append(
                f"- {method}: {costs['cached_share']:.0%} of prompt tokens from the cache; the server "
                f"evaluated {costs['prompt_tokens_per_s']:.0f} prompt tokens/s and wrote "
                f"{costs['output_tokens_per_s']:.1f} tokens/s"
            )
    if len(lines) == 4:
        return []  # every answer came from the answer cache: no call, no cost
    return [*lines, "", *rates, ""]


def _rounds_table(report: dict[str, dict[str, Any]]) -> list[str]:
    """DebateCV Fig. 2: accuracy of the claims whose debate ended in each round, per debating method."""
    debating = {
        m: r["by_round"] for m, r in report.items() if any(row["round"] for row in r.get("by_round", []))
    }
    if not debating:
        return []
    rounds = sorted({row["round"] for rows in debating.values() for row in rows})
    lines = [
        "Accuracy per debated round (claims whose debate ended in that round: accuracy (n); 4-way where",
        "the gold has it; round 0: decided without a debate):",
        "",
        *table_head(["method", *(f"round {n}" for n in rounds)]),
    ]
    for method, rows in debating.items():
        by = {row["round"]: row for row in rows}
        cells = [f"{by[n]['accuracy']:.3f} ({by[n]['n']})" if n in by else "-" for n in rounds]
        lines.append(f"| {method} | " + " | ".join(cells) + " |")
    return [*lines, ""]


def write_wrong_predictions(records: list[dict[str, Any]], path: Path) -> int:
    """CSV of every wrong or failed prediction with its transcript; returns the row count."""
    rows = [r for r in records if to_binary(r["verdict"]) != r["gold"]]
    columns = ["method", "id", "claim", "gold", "verdict", "error", "transcript"]
    # the claims are a dataset's and the transcripts a model's: neither may run as a formula
    sheet = sheet_text(
        columns,
        (
            {
                **{k: r[k] for k in columns[:5]},
                "error": r["error"] or "",
                "transcript": json.dumps(r.get("detail", {}), ensure_ascii=False),
            }
            for r in rows
        ),
    )
    path.write_text(sheet, encoding="utf-8", newline="")
    return len(rows)


def plot(report: dict[str, dict[str, Any]], path: Path) -> list[dict[str, float | str]]:
    """PNG of F1 (FALSE) against $ per 1,000 claims; returns the plotted points."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    points = [
        {
            "method": m,
            "dollars_per_1000_claims": r["cost"]["dollars_per_1000_claims"],
            "f1_false": r["binary"]["false"]["f1"],
        }
        for m, r in report.items()
    ]
    fig, ax = plt.subplots(figsize=(6, 4), dpi=120)
    for p in points:
        ax.scatter(p["dollars_per_1000_claims"], p["f1_false"])
        ax.annotate(
            p["method"],
            (p["dollars_per_1000_claims"], p["f1_false"]),
            textcoords="offset points",
            xytext=(4, 4),
            fontsize=8,
        )
    ax.set_xlabel("$ per 1,000 claims (token prices of the price table)")
    ax.set_ylabel("F1 of label FALSE")
    ax.set_title("Quality against cost")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return points
