"""CronJob schedules, checked as kube checks them: with robfig/cron v3's standard parser (five fields, or a
`@descriptor`), whose error texts become the validation message (`expected exactly 5 fields, found 4:
[* * * *]`, `end of range (60) above maximum (59): 60`, ...).
"""

from __future__ import annotations

import re
from typing import Final

_BOUNDS: Final[tuple[tuple[int, int, dict[str, int] | None], ...]] = (
    (0, 59, None),  # minute
    (0, 23, None),  # hour
    (1, 31, None),  # day of month
    (
        1,
        12,
        {
            m: i + 1
            for i, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"))
        },
    ),
    (0, 6, {d: i for i, d in enumerate(("sun", "mon", "tue", "wed", "thu", "fri", "sat"))}),
)
_DESCRIPTORS: Final = frozenset({"@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"})
_DURATION_UNITS: Final = {
    "ns": 1,
    "us": 10**3,
    "µs": 10**3,
    "μs": 10**3,
    "ms": 10**6,
    "s": 10**9,
    "m": 60 * 10**9,
    "h": 3600 * 10**9,
}
_DURATION_PART: Final = re.compile(r"([0-9]*(?:\.[0-9]*)?)([^0-9.]*)")


class CronError(ValueError):
    """A schedule the parser rejects; str() is its message."""


def _go_atoi_error(text: str) -> str:
    # strconv.Atoi's error, as robfig/cron wraps it
    digits = text[1:] if text[:1] in "+-" else text
    if digits and digits.isdigit():
        return f'strconv.Atoi: parsing "{text}": value out of range'
    return f'strconv.Atoi: parsing "{text}": invalid syntax'


def _parse_int(expr: str) -> int:
    digits = expr[1:] if expr[:1] in "+-" else expr
    if not digits or not digits.isascii() or not digits.isdigit():
        raise CronError(f"failed to parse int from {expr}: {_go_atoi_error(expr)}")
    value = int(expr)
    if abs(value) > 2**63 - 1:
        raise CronError(f"failed to parse int from {expr}: {_go_atoi_error(expr)}")
    if value < 0:
        raise CronError(f"negative number ({value}) not allowed: {expr}")
    return value


def _int_or_name(expr: str, names: dict[str, int] | None) -> int:
    if names is not None and expr.lower() in names:
        return names[expr.lower()]
    return _parse_int(expr)


def _range(expr: str, low: int, high: int, names: dict[str, int] | None) -> None:
    range_and_step = expr.split("/")
    low_and_high = range_and_step[0].split("-")
    single = len(low_and_high) == 1
    if low_and_high[0] in ("*", "?"):
        start, end = low, high
    else:
        start = _int_or_name(low_and_high[0], names)
        if len(low_and_high) == 1:
            end = start
        elif len(low_and_high) == 2:
            end = _int_or_name(low_and_high[1], names)
        else:
            raise CronError(f"too many hyphens: {expr}")
    if len(range_and_step) == 2:
        step = _parse_int(range_and_step[1])
        if single:
            end = high
    elif len(range_and_step) > 2:
        raise CronError(f"too many slashes: {expr}")
    else:
        step = 1
    if start < low:
        raise CronError(f"beginning of range ({start}) below minimum ({low}): {expr}")
    if end > high:
        raise CronError(f"end of range ({end}) above maximum ({high}): {expr}")
    if start > end:
        raise CronError(f"beginning of range ({start}) beyond end of range ({end}): {expr}")
    if step == 0:
        raise CronError(f"step of range should be a positive number: {expr}")


def _parse_duration(text: str) -> int:
    """time.ParseDuration, enough to tell a valid `@every` duration from an invalid one."""
    quoted = '"' + text + '"'
    body = text
    if body[:1] in "+-":
        body = body[1:]
    if body == "0":
        return 0
    if not body:
        raise CronError(f"time: invalid duration {quoted}")
    total = 0
    while body:
        match = _DURATION_PART.match(body)
        number, unit = (match.group(1), match.group(2)) if match else ("", "")
        if not number or number == ".":
            raise CronError(f"time: invalid duration {quoted}")
        if not unit:
            raise CronError(f"time: missing unit in duration {quoted}")
        if unit not in _DURATION_UNITS:
            raise CronError(f'time: unknown unit "{unit}" in duration {quoted}')
        total += int(float(number) * _DURATION_UNITS[unit])
        body = body[len(number) + len(unit) :]
    return -total if text.startswith("-") else total


def parse_standard(spec: str) -> None:
    """cron.ParseStandard; raises CronError with the parser's message."""
    if not spec:
        raise CronError("empty spec string")
    if spec.startswith(("TZ=", "CRON_TZ=")):
        space = spec.find(" ")
        if space < 0:
            raise CronError("recovered from panic: runtime error: slice bounds out of range")
        spec = spec[space:].strip()
    if spec.startswith("@"):
        if spec in _DESCRIPTORS:
            return
        if spec.startswith("@every "):
            try:
                _parse_duration(spec[len("@every ") :])
            except CronError as exc:
                raise CronError(f"failed to parse duration {spec}: {exc}") from exc
            return
        raise CronError(f"unrecognized descriptor: {spec}")
    fields = spec.split()
    if len(fields) != 5:
        raise CronError(f"expected exactly 5 fields, found {len(fields)}: [{' '.join(fields)}]")
    for field, (low, high, names) in zip(fields, _BOUNDS, strict=True):
        for expr in (part for part in field.split(",") if part):
            _range(expr, low, high, names)


def schedule_error(spec: str) -> str | None:
    """The message kube reports for an invalid schedule, or None."""
    try:
        parse_standard(spec)
    except CronError as exc:
        return str(exc)
    return None
