"""Per-key exponential backoff (client-go's flowcontrol.Backoff), on times passed in.

The DaemonSet controller keys it by DaemonSet, generation and node, so a node whose kubelet keeps failing
the daemon pod is not fed a new one in a hot loop: each failed pod found there doubles the wait before the
next is deleted (1 s, 2 s, ... up to 15 min); an entry untouched for twice the maximum starts over.
"""

from __future__ import annotations

from dataclasses import dataclass, field

INITIAL_SECONDS = 1.0
MAX_SECONDS = 15 * 60.0


@dataclass
class _Entry:
    backoff: float
    last_update: float


@dataclass
class Backoff:
    initial: float = INITIAL_SECONDS
    maximum: float = MAX_SECONDS
    _entries: dict[str, _Entry] = field(default_factory=dict)

    def _expired(self, now: float, entry: _Entry) -> bool:
        return now - entry.last_update > 2 * self.maximum

    def get(self, key: str) -> float:
        entry = self._entries.get(key)
        return entry.backoff if entry is not None else 0.0

    def next(self, key: str, now: float) -> None:
        entry = self._entries.get(key)
        if entry is None or self._expired(now, entry):
            self._entries[key] = _Entry(self.initial, now)
            return
        entry.backoff = min(entry.backoff * 2, self.maximum)
        entry.last_update = now

    def in_backoff_since_update(self, key: str, now: float) -> bool:
        entry = self._entries.get(key)
        if entry is None or self._expired(now, entry):
            return False
        return now - entry.last_update < entry.backoff

    def gc(self, now: float) -> None:
        for key in [k for k, e in self._entries.items() if self._expired(now, e)]:
            del self._entries[key]
