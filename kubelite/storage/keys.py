"""Key-range helpers: a prefix becomes the half-open range [prefix, prefix_end) that SQLite and the watch cache scan.

SQLite compares TEXT with memcmp over UTF-8, which orders strings by code point exactly as Python does, so a
range computed here selects the same keys in Python and in SQL (and matches etcd's byte ordering).
"""

from __future__ import annotations


def prefix_end(prefix: str) -> str:
    """The smallest string greater than every string that starts with `prefix`."""
    if not prefix:
        raise ValueError("empty prefix")
    stripped = prefix.rstrip(chr(0x10FFFF))
    if not stripped:
        raise ValueError("prefix has no upper bound")
    return stripped[:-1] + chr(ord(stripped[-1]) + 1)


def range_start(prefix: str, after: str | None) -> tuple[str, bool]:
    """Where a scan of `prefix` starts: (key, inclusive). `after` is a continue key, excluded."""
    if after is not None and after >= prefix:
        return after, False
    return prefix, True
