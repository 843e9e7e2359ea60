"""Each graph reads its own context: its Studio form lists the shared settings and its system's, no other."""

import importlib
import json
from dataclasses import fields
from pathlib import Path
from types import SimpleNamespace

import pytest

from factcourt.context.audit import AuditContext
from factcourt.context.base import BaseContext
from factcourt.context.claims import ClaimsContext
from factcourt.context.hallucination import HallucinationContext
from factcourt.context.longqa import LongQAContext
from factcourt.context.pyramid import PyramidContext
from factcourt.errors import ConfigError

OWN = {
    "factcheck": ClaimsContext,
    "verify": ClaimsContext,
    "hallucination": HallucinationContext,
    "pyramid": PyramidContext,
    "longqa": LongQAContext,
    "audit": AuditContext,
}
GRAPHS = json.loads((Path(__file__).parents[2] / "langgraph.json").read_text())["graphs"]


def names(kind: type) -> set[str]:
    return {f.name for f in fields(kind)}


def test_every_served_graph_has_its_own_context():
    assert set(GRAPHS) == set(OWN)


@pytest.mark.parametrize("graph_id", sorted(OWN))
def test_a_graphs_form_lists_only_its_own_fields(graph_id):
    """What Studio draws: the graph's own settings, less what only the deployer sets."""
    from factcourt.serving.served import SERVER_ONLY

    path, name = GRAPHS[graph_id].removeprefix("./").split(":")
    factory = getattr(importlib.import_module(path.removesuffix(".py").replace("/", ".")), name)
    graph = factory(SimpleNamespace(access_context="assistants.read"))
    form = set(graph.get_context_jsonschema()["properties"])
    assert form == names(OWN[graph_id]) - set(SERVER_ONLY)
    others = set().union(*(names(k) for k in set(OWN.values()) - {OWN[graph_id]})) - names(OWN[graph_id])
    assert not form & others
    assert names(BaseContext) - set(SERVER_ONLY) <= form


def test_a_system_context_checks_its_own_fields_and_refuses_another_systems():
    with pytest.raises(ConfigError, match="epsilon must be in"):
        HallucinationContext(epsilon=2.0)
    with pytest.raises(ConfigError, match="audit_seeds must be at least 1"):
        AuditContext(audit_seeds=0)
    with pytest.raises(ConfigError, match="experts is a setting of `factcourt pyramid`"):
        AuditContext.from_dict({"experts": ["gpt-4o"]})


def test_a_wider_context_gives_each_system_its_part():
    from factcourt.bench.context import BenchContext

    bench = BenchContext(rounds=2, epsilon=0.3, protocol="adversarial")
    claims = ClaimsContext.make(bench, rule="adaptive")
    assert (claims.protocol, claims.rule, claims.rounds) == ("adversarial", "adaptive", 2)
    assert HallucinationContext.make(bench).epsilon == 0.3


def test_a_protocol_is_named_once_and_every_part_reads_its_row():
    from factcourt.cli import build_parser
    from factcourt.context import claims
    from factcourt.nodes.claims.protocols import PROTOCOLS
    from factcourt.serving.server import standard_assistants

    assert set(PROTOCOLS) == set(claims.PROTOCOLS) == set(claims.DEBATERS) == set(claims.DEFAULT_ROUNDS)
    check = next(
        a
        for a in build_parser()._subparsers._group_actions[0].choices["check"]._actions
        if a.dest == "protocol"
    )
    assert tuple(check.choices) == claims.PROTOCOLS
    served = {a["context"]["protocol"] for a in standard_assistants() if "protocol" in a["context"]}
    assert served == set(claims.PROTOCOLS)
    debate = claims.ClaimsContext(protocol="adversarial")
    assert debate.speakers == ["Affirmative", "Negative"] and debate.max_rounds == 3
