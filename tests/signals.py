"""For tests that Ctrl-C a child process."""

import signal


def ctrl_c_not_ignored() -> None:
    """``preexec_fn``: the child gets Ctrl-C as in a terminal.

    A shell starts a background job (the test command run with ``&``, as a CI script may) with
    SIGINT ignored, and Python then keeps ignoring it, as it should: such a child never sees the
    test's Ctrl-C.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)
