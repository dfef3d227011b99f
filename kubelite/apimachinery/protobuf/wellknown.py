"""The JSON spellings of apimachinery's protobuf-special types: Time, MicroTime and Duration.

On the wire `metav1.Time` and `MicroTime` are a (seconds, nanos) pair and `metav1.Duration` is an integer
count of nanoseconds; in JSON they are strings that Go's `time` package writes and reads. Time is RFC 3339 at
second precision in UTC (`2026-01-02T03:04:05Z`), MicroTime adds six fractional digits, and Duration is Go's
`time.Duration.String()` (`1h0m0s`, `1.5s`, `300ms`). These functions reproduce those spellings exactly,
truncating as Go does, so an object read from protobuf prints the same as one read from JSON.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from functools import lru_cache

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_NS = 1_000_000_000


def _utc(seconds: int) -> datetime:
    return _EPOCH + timedelta(seconds=seconds)


@lru_cache(maxsize=8192)
def format_time(seconds: int) -> str:
    """RFC 3339 in UTC at second precision, as metav1.Time marshals to JSON."""
    return _utc(seconds).strftime("%Y-%m-%dT%H:%M:%SZ")


def format_micro_time(seconds: int, nanos: int) -> str:
    """RFC 3339 in UTC with exactly six fractional digits, as metav1.MicroTime marshals to JSON."""
    return f"{format_time(seconds)[:-1]}.{nanos // 1000:06d}Z"


_FAST_TIME = re.compile(r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)Z\Z")


@lru_cache(maxsize=8192)
def parse_time(text: str) -> tuple[int, int]:
    """(seconds, nanos) since the Unix epoch of an RFC 3339 timestamp; ValueError when it is not one."""
    fast = _FAST_TIME.match(text)
    if fast:
        y, mo, d, h, mi, s = (int(g) for g in fast.groups())
        when = datetime(y, mo, d, h, mi, s, tzinfo=UTC)
        return int((when - _EPOCH) // timedelta(seconds=1)), 0
    head, frac, tail = text, "", ""
    match = re.fullmatch(r"(.{19})\.(\d{1,9})(Z|[+-]\d\d:\d\d)", text)
    if match:
        head, frac, tail = match.group(1), match.group(2), match.group(3)
        text = head + tail
    if not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(Z|[+-]\d\d:\d\d)", text):
        raise ValueError(f"{text!r} is not an RFC 3339 time")
    when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    seconds = int((when - _EPOCH) // timedelta(seconds=1))
    return seconds, int(frac.ljust(9, "0")) if frac else 0


def _fraction(value: int, digits: int) -> str:
    """`.5`, `.25`: the fractional digits Go prints, trailing zeros dropped."""
    text = f"{value:0{digits}d}".rstrip("0")
    return "." + text if text else ""


def format_duration(ns: int) -> str:
    """Go's `time.Duration.String()`."""
    if ns == 0:
        return "0s"
    sign = "-" if ns < 0 else ""
    u = abs(ns)
    if u < 1000:
        return f"{sign}{u}ns"
    if u < 1_000_000:
        return f"{sign}{u // 1000}{_fraction(u % 1000, 3)}µs"
    if u < _NS:
        return f"{sign}{u // 1_000_000}{_fraction(u % 1_000_000, 6)}ms"
    total, frac = divmod(u, _NS)
    out = f"{total % 60}{_fraction(frac, 9)}s"
    if total >= 60:
        out = f"{total // 60 % 60}m{out}"
    if total >= 3600:
        out = f"{total // 3600}h{out}"
    return sign + out


_UNITS = {
    "ns": 1,
    "us": 1000,
    "µs": 1000,
    "μs": 1000,
    "ms": 1_000_000,
    "s": _NS,
    "m": 60 * _NS,
    "h": 3600 * _NS,
}
_DURATION_PART = re.compile(r"(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h)")


def parse_duration(text: str) -> int:
    """Go's `time.ParseDuration`, in nanoseconds; ValueError for what Go rejects."""
    body = text
    sign = 1
    if body[:1] in ("-", "+"):
        sign = -1 if body[0] == "-" else 1
        body = body[1:]
    if body == "0":
        return 0
    if not body:
        raise ValueError(f"invalid duration {text!r}")
    total = 0
    pos = 0
    while pos < len(body):
        part = _DURATION_PART.match(body, pos)
        if not part or (not part.group(1) and not part.group(2)):
            raise ValueError(f"invalid duration {text!r}")
        whole, frac, unit = part.group(1) or "0", part.group(2) or "", part.group(3)
        scale = _UNITS[unit]
        total += int(whole) * scale
        if frac:
            total += int(frac) * scale // 10 ** len(frac)
        pos = part.end()
    return sign * total
