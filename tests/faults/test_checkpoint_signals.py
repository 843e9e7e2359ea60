"""A Ctrl-C or SIGTERM that lands while a checkpoint is encoded or decoded stays a Ctrl-C or SIGTERM.

ormsgpack turns any exception its Python callbacks raise (a Pydantic model's ``model_dump``, the
signal handler's KeyboardInterrupt among them) into ``TypeError: Type is not msgpack serializable:
Claim``: the run then ended "error: TypeError ..." instead of "interrupted" (issue 54, item 16).
"""

import signal

import pytest

from factcourt import checkpoints
from factcourt.state.records import Claim

CHECKPOINT = {"channel_values": {"claims": [Claim(id="c1", text="Paris is in France.")]}}


@pytest.fixture
def signal_inside_claim_dump(monkeypatch):
    """Every Claim's model_dump receives ``signum`` while it runs, as a Ctrl-C at that moment would."""
    sent: list[int] = []
    dump = Claim.model_dump

    def interrupted_dump(self, *args, **kwargs):
        if sent:
            signal.raise_signal(sent.pop())
        return dump(self, *args, **kwargs)

    monkeypatch.setattr(Claim, "model_dump", interrupted_dump)
    return sent


def test_ctrl_c_while_a_claim_is_encoded_is_a_keyboard_interrupt(signal_inside_claim_dump):
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        serde = checkpoints.checkpoint_serde()
        signal_inside_claim_dump.append(signal.SIGINT)
        with pytest.raises(KeyboardInterrupt):
            serde.dumps_typed(CHECKPOINT)
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # put back
        # and the write is whole when no signal comes
        assert serde.loads_typed(serde.dumps_typed(CHECKPOINT)) == CHECKPOINT
    finally:
        signal.signal(signal.SIGINT, previous)


def test_sigterm_while_a_claim_is_encoded_reaches_its_handler(signal_inside_claim_dump):
    def on_sigterm(signum, frame):
        raise SystemExit(128 + signum)

    previous = signal.signal(signal.SIGTERM, on_sigterm)
    try:
        signal_inside_claim_dump.append(signal.SIGTERM)
        with pytest.raises(SystemExit):
            checkpoints.checkpoint_serde().dumps_typed(CHECKPOINT)
        assert signal.getsignal(signal.SIGTERM) is on_sigterm
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_ctrl_c_while_a_claim_is_decoded_is_a_keyboard_interrupt(monkeypatch):
    serde = checkpoints.checkpoint_serde()
    saved = serde.dumps_typed(CHECKPOINT)
    init = Claim.__init__

    def interrupted_init(self, *args, **kwargs):  # what the decoder calls to rebuild a Claim
        signal.raise_signal(signal.SIGINT)
        init(self, *args, **kwargs)

    monkeypatch.setattr(Claim, "__init__", interrupted_init)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            serde.loads_typed(saved)
    finally:
        signal.signal(signal.SIGINT, previous)
