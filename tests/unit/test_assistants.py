"""`factcourt assistants`: one standard assistant per graph variant a user picks by name."""

import importlib

from factcourt.serving.server import standard_assistants


def test_each_hallucination_layout_has_an_assistant():
    by_name = {a["name"]: a for a in standard_assistants()}
    assert by_name["hallucination-agents"]["graph_id"] == "hallucination"
    assert by_name["hallucination-team"]["context"] == {"hallucination_layout": "team"}
    assert by_name["factcheck-jury-adaptive"]["context"] == {"protocol": "jury", "rule": "adaptive"}


def test_every_standard_context_is_a_valid_context():
    for assistant in standard_assistants():
        graph = importlib.import_module(f"factcourt.graphs.{assistant['graph_id']}").graph
        graph.context_schema(**assistant["context"])  # raises on an unknown field or value
