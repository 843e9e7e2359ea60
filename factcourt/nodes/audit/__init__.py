"""FACT-AUDIT's agents (graph ``audit``), one stage per module."""
