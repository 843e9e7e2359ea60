"""The same prompts give the same verdicts and probabilities whatever the server's cache held."""

import asyncio
import random

import pytest

from factcourt.context.claims import ClaimsContext
from factcourt.nodes.claims.label_reading import read_label
from factcourt.providers import local_server
from factcourt.state.records import Evidence

pytestmark = pytest.mark.integration

# five claims, true and false (the first five of the ten it had): p_true is compared to three
# decimals, so a cache-dependent shift of the logits (a few hundredths) shows on any prompt, not
# only on a near-tie whose verdict flips; what the test needs is prompts sharing prefixes (the
# instructions; the same first piece of evidence) in several orders, cold and warm
FACTS = [
    ("The Eiffel Tower is in Paris.", "The Eiffel Tower is a wrought-iron lattice tower in Paris, France."),
    ("The Eiffel Tower is in Rome.", "The Eiffel Tower is a wrought-iron lattice tower in Paris, France."),
    ("Water boils at 100 degrees Celsius at sea level.", "At sea level water boils at 100 °C (212 °F)."),
    ("Water boils at 50 degrees Celsius at sea level.", "At sea level water boils at 100 °C (212 °F)."),
    ("The Moon orbits the Earth.", "The Moon is Earth's only natural satellite and orbits it every 27 days."),
]
# ten prompts: each claim once with its evidence alone, once with a second, unrelated piece
PROMPTS = [
    (claim, [Evidence(text=text, url=f"https://example.org/{i}")]) for i, (claim, text) in enumerate(FACTS)
]
PROMPTS += [
    (claim, [Evidence(text="Mount Everest is Earth's highest mountain.", url="https://example.org/e"), *ev])
    for claim, ev in PROMPTS
]


def read_all(ctx, order):
    async def go():
        readings = {}
        for i in order:
            claim, evidence = PROMPTS[i]
            reading = await read_label(ctx, claim, evidence, language="en", run_name="repro", tags=[])
            assert reading.error is None, reading.error
            readings[i] = (reading.verdict, reading.p_true)
        return readings

    return asyncio.run(go())


def test_cold_and_warm_servers_in_any_order_give_the_same_verdicts(smollm2):
    ctx = ClaimsContext(local_weights=str(smollm2), cache=False)
    order = list(range(len(PROMPTS)))
    cold = read_all(ctx, order)
    shuffled = order[:]
    random.Random(7).shuffle(shuffled)
    warm = read_all(ctx, shuffled)  # the same server, its prompt cache holding the other prompts
    local_server.stop_all()
    local_server.allow_starts()  # stop_all() holds later starts back until told, as after Ctrl-C
    again = read_all(ctx, shuffled[::-1])  # a new server, cold, in yet another order
    assert all(p is not None for _, p in cold.values())
    assert warm == cold and again == cold
