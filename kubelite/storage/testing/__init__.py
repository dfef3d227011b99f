"""Test support shared by every storage backend: the conformance suite (conformance.py)."""
