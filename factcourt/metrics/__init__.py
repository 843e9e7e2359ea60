"""Pure scoring functions. Nothing here calls a model."""
