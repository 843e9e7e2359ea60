"""The house rules hold: the import contracts of pyproject.toml, checked by import-linter."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[2]


def test_every_import_contract_is_kept():
    # a process of its own: import-linter configures logging, which silenced this suite's loggers
    run = subprocess.run(
        [str(Path(sys.executable).with_name("lint-imports")), "--no-cache", str(ROOT / "pyproject.toml")],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert run.returncode == 0, run.stdout  # the report names each broken import chain


# graphs whose names are not their system's wing: the claim court serves two graphs
GRAPH_WINGS = {"factcheck": "claims", "verify": "claims"}


def wing_of(reference: str, wings: set[str]) -> str | None:
    """The system a dotted ``factcourt.<layer>.<module>`` reference belongs to, if any.

    A layer's module is named after its wing (``nodes.claims``, ``report.audit``), a prompt table
    after its wing and language (``prompts.claims_en``), a graph after itself.
    """
    parts = reference.partition(":")[0].split(".")
    if len(parts) < 3 or parts[0] != "factcourt":
        return None
    module = parts[2].removesuffix("_en").removesuffix("_zh")
    module = GRAPH_WINGS.get(module, module)
    return module if module in wings else None


def systems_named(path: Path, wings: set[str]) -> set[str]:
    """The systems a module names: the wings it imports from or names in a ``module:attribute`` string."""
    import ast

    named = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            references = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        elif isinstance(node, ast.Import):
            references = [a.name for a in node.names]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            references = [node.value]
        else:
            continue
        named |= {wing for r in references if (wing := wing_of(r, wings))}
    return named


def test_only_the_registry_names_every_system():
    from factcourt.systems import SYSTEMS

    wings = {system.context.__module__.rsplit(".", 1)[1] for system in SYSTEMS}
    assert wings == {"claims", "hallucination", "pyramid", "longqa", "audit"}
    # the benchmarks compare two systems' methods, the leaderboard scores the pyramid by checks
    naming = {
        str(path.relative_to(ROOT)): sorted(found)
        for path in sorted((ROOT / "factcourt").rglob("*.py"))
        if len(found := systems_named(path, wings)) > 2
    }
    # the package's front door imports each system's API by name: the registry's list, see below
    assert naming == {"factcourt/__init__.py": sorted(wings), "factcourt/systems.py": sorted(wings)}


def test_the_package_exports_what_the_registry_lists():
    import factcourt
    from factcourt import systems

    assert factcourt.__all__ == ["report_html", *systems.exported()]
    assert all(getattr(factcourt, name) is not None for name in factcourt.__all__)


def test_a_name_no_system_exports_is_no_attribute_of_the_package():
    import pytest

    import factcourt
    from factcourt.api.claims import check

    assert factcourt.check is check and factcourt.ClaimsContext.__name__ == "ClaimsContext"
    with pytest.raises(AttributeError, match="no attribute 'chek'"):
        factcourt.chek  # noqa: B018


def test_the_server_finds_langgraph_json_and_every_path_it_names():
    """The server starts from the project's langgraph.json: a module moved to another folder must
    still find it, and each graph, the auth and the page it names must be there."""
    import json

    from factcourt.serving.server import PROJECT_ROOT

    config = json.loads((PROJECT_ROOT / "langgraph.json").read_text(encoding="utf-8"))
    named = [*config["graphs"].values(), config["auth"]["path"], config["http"]["app"]]
    for entry in named:
        path, _, name = entry.partition(":")
        assert (PROJECT_ROOT / path).is_file(), entry
        assert f"\n{name} = " in (PROJECT_ROOT / path).read_text(encoding="utf-8") or f"def {name}(" in (
            PROJECT_ROOT / path
        ).read_text(encoding="utf-8"), entry
