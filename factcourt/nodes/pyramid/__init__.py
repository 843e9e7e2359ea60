"""Stages of the importance pyramid (MAD-Fact §5): expert answers, their claims, the golden set."""
