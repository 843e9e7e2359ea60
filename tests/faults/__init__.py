"""The fault suite: every bad input and endpoint fault ends in one sentence and the right exit code."""


def one_error(err: str) -> str:
    """The single error sentence of a run (rich wraps it: joined back)."""
    assert "Traceback" not in err
    said = " ".join(err.split())
    assert said.count("error:") == 1, err
    return said
