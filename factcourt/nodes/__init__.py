"""One module per stage; each node reads state and returns a partial update."""
