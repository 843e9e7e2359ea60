"""No module but the registry names more than one system.

A module *names* a system when one of its string constants is exactly that system's graph name or
command as the registry (``factcourt.systems``) lists them: "factcheck", "check", "hallucination",
"detect", ... (constants inside f-strings count). Those are the words code keys behaviour on: a
table from a mode to a graph, a factory per graph, a branch on a result's kind.

The rule: each module under ``factcourt/`` other than the registry names at most one system, its
own wing's where it has one. A wing is one context's system: the claim court's two graphs
(``factcheck`` and ``verify``) are one. What a module needs of several systems it reads from the
registry's entries, or is handed by the registry (``systems.hand_down``).

Not a name of a system: a string of ``__all__``, which names a Python object (the API's function
``check``), not the claim court.
"""

import ast
import json
from pathlib import Path

ROOT = Path(__file__).parents[2]
REGISTRY = "factcourt/systems.py"
# the modules that name several systems, each for a reason no registry entry can serve
EXCEPTIONS = {
    # the one module that composes two systems: it checks each answer with the claim court and
    # scores it against the prompt's pyramid (its context extends both), and its resumable records
    # are kept under those stages' names, "check" and "pyramid"
    "factcourt/api/pyramid/leaderboard.py": {"claims", "pyramid"},
    # langgraph.json's entry points: the server reads each graph's factory from the module's
    # namespace by the name the file gives, so each is one plain definition, as the file names it
    # (held to the registry below)
    "factcourt/serving/served.py": {"claims", "hallucination", "pyramid", "longqa", "audit"},
}


def system_words() -> dict[str, str]:
    """Each graph name and command of the registry, with its system's wing (its context's module)."""
    from factcourt.systems import SYSTEMS

    words: dict[str, str] = {}
    for system in SYSTEMS:
        wing = system.context.__module__.rsplit(".", 1)[1]
        for word in (system.name, system.command):
            if word:
                words[word] = wing
    return words


def exported(tree: ast.Module) -> set[int]:
    """The ids of the string constants assigned to ``__all__``."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        else:
            continue
        if node.value and any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            found |= {id(c) for c in ast.walk(node.value) if isinstance(c, ast.Constant)}
    return found


def systems_named(source: str, words: dict[str, str]) -> set[str]:
    """The wings whose systems a module's source names in its string constants."""
    tree = ast.parse(source)
    skip = exported(tree)
    return {
        words[node.value]
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in words
        if id(node) not in skip
    }


def test_the_scan_finds_a_table_of_modes_and_skips_all():
    words = system_words()
    table = 'MODES = {"check": "factcheck", "verify": "verify", "detect": "hallucination"}'
    assert systems_named(table, words) == {"claims", "hallucination"}
    assert systems_named("f\"see `factcourt {cmd or 'audit'} --help`\"", words) == {"audit"}
    assert systems_named('__all__ = ["check", "detect", "audit"]', words) == set()
    assert systems_named('"a check of the audit"', words) == set()  # prose is no name


def test_no_module_but_the_registry_names_more_than_one_system():
    words = system_words()
    naming = {}
    for path in sorted((ROOT / "factcourt").rglob("*.py")):
        name = str(path.relative_to(ROOT))
        found = systems_named(path.read_text(encoding="utf-8"), words)
        if name != REGISTRY and len(found) > 1 and found != EXCEPTIONS.get(name):
            naming[name] = sorted(found)
    assert naming == {}, "these modules name several systems: take what they need from the registry"


def test_each_exception_is_still_needed():
    words = system_words()
    for name, wings in EXCEPTIONS.items():
        assert systems_named((ROOT / name).read_text(encoding="utf-8"), words) == wings, name


def test_the_served_entry_points_are_the_registrys():
    from factcourt.serving import served
    from factcourt.systems import SYSTEMS

    graphs = json.loads((ROOT / "langgraph.json").read_text(encoding="utf-8"))["graphs"]
    assert graphs == {s.name: f"./factcourt/serving/served.py:{s.name}" for s in SYSTEMS}
    assert all(callable(served.__dict__.get(s.name)) for s in SYSTEMS)  # as the server reads them
