"""The sweep: pre_tune phases, then the main sweep, every attempt through the store (run.py),
finished attempts reused and new ones stored as they end (cache.py)."""
