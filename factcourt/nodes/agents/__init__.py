"""Agents more than one system asks: the Clerk, the single-call verifier, the knowledge gatherer."""
