"""Benchmarks: datasets, methods, runners and reports (``factcourt bench``)."""
