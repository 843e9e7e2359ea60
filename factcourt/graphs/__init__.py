"""Wiring only: one module per graph; the rule variants are conditional edges."""
