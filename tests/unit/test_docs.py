"""The documentation names what exists: every ``factcourt.*`` path resolves."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]
DOTTED = re.compile(r"\bfactcourt(?:\.[A-Za-z_]\w*)+")


def dotted_names() -> list[tuple[str, str]]:
    """Each (document, dotted name) the documentation mentions."""
    return sorted(
        {(doc.name, m.group(0)) for doc in DOCS for m in DOTTED.finditer(doc.read_text(encoding="utf-8"))}
    )


def resolve(name: str) -> object:
    """The object ``name`` names: its longest importable module, then attributes (or model fields)."""
    parts = name.split(".")
    for split in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:split]))
            break
        except ModuleNotFoundError:
            continue
    for attribute in parts[split:]:
        fields = getattr(found, "model_fields", {})  # a Pydantic model's fields are no attributes
        found = fields[attribute] if attribute in fields else getattr(found, attribute)
    return found


def test_the_docs_mention_dotted_names():
    assert len(dotted_names()) > 100  # the scan reads the documents, not nothing


@pytest.mark.parametrize(("doc", "name"), dotted_names())
def test_every_dotted_name_in_the_docs_resolves(doc, name):
    try:
        resolve(name)
    except AttributeError as exc:
        pytest.fail(f"{doc} names {name}, which does not exist: {exc}")


def test_a_wrong_path_does_not_resolve():
    with pytest.raises(AttributeError):
        resolve("factcourt.context.JURY_ROLES")  # it lives in factcourt.context.claims
    assert resolve("factcourt.state.HallucinationReport.label") is not None
