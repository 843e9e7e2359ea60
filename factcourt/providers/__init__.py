"""The outside world: chat models, search backends, caches, downloaded assets."""
