"""The claim court's nodes (graphs ``factcheck`` and ``verify``): MAD-Fact's jury, DebateCV's debate."""
