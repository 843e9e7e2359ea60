"""FACT-AUDIT's page: its report's tables and plots (a report.json, or a summary of runs)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from factcourt.report.html import tables_page
from factcourt.state.audit import AuditResult


def audit_view(result: AuditResult, folder: Path | None = None) -> dict[str, Any]:
    """An audit's page: its report's tables and plots (a report.json, or a summary of runs)."""
    from factcourt.api.audit.report import markdown, runs_markdown

    report = result.model_dump(mode="json", exclude={"kind"})
    folder = Path(folder) if folder else None
    if "per_run" in report:
        return tables_page(runs_markdown(report), folder)
    cases = report.get("cases")
    if cases is None:  # report.json keeps them apart, in cases.jsonl
        cases = _jsonl(folder / "cases.jsonl") if folder else []
    chart = "imr_by_scenario.png" if folder and (folder / "imr_by_scenario.png").is_file() else None
    return tables_page(markdown({**report, "cases": cases}, chart), folder)


def _jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
