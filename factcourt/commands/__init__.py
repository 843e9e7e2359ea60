"""Each system's command (``check``/``verify``, ``detect``, ``pyramid``, ``longqa``, ``audit``).

With the flags, outputs and batch runs they share. The registry (``factcourt.systems``) imports
these to name each system's command, so they sit below it and never import it; the program that
builds the parser from the registry is ``factcourt.cli``.
"""
