"""The reflector's backoff: kubelite.util.backoff's `ExponentialBackoff` (0.8s, 1.6s, ... up to 30s between
failed attempts, from 0.8s again after two quiet minutes), shared with the server's watch cache."""

from __future__ import annotations

from kubelite.util.backoff import ExponentialBackoff

__all__ = ["ExponentialBackoff"]
