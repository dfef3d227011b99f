"""Human-readable durations, as k8s.io/apimachinery's `util/duration` package writes them.

Every age and elapsed-time cell kube-apiserver puts in a Table (`5m`, `2m30s`, `4d3h`, `<invalid>`) comes from
`HumanDuration`; `ShortHumanDuration` is its one-unit sibling. Both work on Go `time.Duration`, an integer
count of nanoseconds whose divisions truncate toward zero, so these functions take nanoseconds and divide the
same way to land on the same digits. `since` adds the printers' `translateTimestampSince` wrapper: `<unknown>`
for a missing timestamp, otherwise the duration between it and `now`.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

SECOND = 1_000_000_000
MINUTE = 60 * SECOND
HOUR = 60 * MINUTE


def _div(a: int, b: int) -> int:
    """Go's integer division: truncates toward zero (Python's // floors)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def _mod(a: int, b: int) -> int:
    """Go's remainder: takes the sign of the dividend."""
    return a - b * _div(a, b)


def nanoseconds(delta: timedelta) -> int:
    return (delta // timedelta(microseconds=1)) * 1000


def short_human_duration(ns: int) -> str:
    """`ShortHumanDuration`: the largest whole unit only (`45s`, `3m`, `5h`, `12d`, `2y`)."""
    seconds = _div(ns, SECOND)
    # a clock up to two seconds ahead still reads as "now"
    if seconds < -1:
        return "<invalid>"
    if seconds < 0:
        return "0s"
    if seconds < 60:
        return f"{seconds}s"
    minutes = _div(ns, MINUTE)
    if minutes < 60:
        return f"{minutes}m"
    hours = _div(ns, HOUR)
    if hours < 24:
        return f"{hours}h"
    if hours < 24 * 365:
        return f"{hours // 24}d"
    return f"{hours // 24 // 365}y"


def human_duration(ns: int) -> str:
    """`HumanDuration`: two or three significant figures (`90s`, `2m30s`, `45m`, `5h20m`, `3d4h`, `1y20d`)."""
    seconds = _div(ns, SECOND)
    if seconds < -1:
        return "<invalid>"
    if seconds < 0:
        return "0s"
    if seconds < 60 * 2:
        return f"{seconds}s"
    minutes = _div(ns, MINUTE)
    if minutes < 10:
        s = _mod(_div(ns, SECOND), 60)
        return f"{minutes}m" if s == 0 else f"{minutes}m{s}s"
    if minutes < 60 * 3:
        return f"{minutes}m"
    hours = _div(ns, HOUR)
    if hours < 8:
        m = _mod(minutes, 60)
        return f"{hours}h" if m == 0 else f"{hours}h{m}m"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        h = hours % 24
        return f"{hours // 24}d" if h == 0 else f"{hours // 24}d{h}h"
    if hours < 24 * 365 * 2:
        return f"{hours // 24}d"
    if hours < 24 * 365 * 8:
        dy = (hours // 24) % 365
        return f"{hours // 24 // 365}y" if dy == 0 else f"{hours // 24 // 365}y{dy}d"
    return f"{hours // 24 // 365}y"


def parse_time(value: str) -> datetime | None:
    """A metav1.Time / MicroTime string as an aware datetime; None when absent or unreadable."""
    if not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def since(timestamp: str | None, now: datetime) -> str:
    """`translateTimestampSince`: the age of a timestamp, `<unknown>` when it is unset."""
    when = parse_time(timestamp or "")
    if when is None:
        return "<unknown>"
    return human_duration(nanoseconds(now - when))


def between(start: str | None, end: str | None) -> str:
    """`HumanDuration(end.Sub(start))` for two timestamps that are both set."""
    first, last = parse_time(start or ""), parse_time(end or "")
    if first is None or last is None:
        return "<unknown>"
    return human_duration(nanoseconds(last - first))
