"""Cron schedules as the CronJob controller reads them: robfig/cron v3's standard parser, its `Next`, and the
controller's "most recent missed schedule" arithmetic.

kube-controller-manager parses `spec.schedule` with `cron.ParseStandard`, after prefixing `TZ=<spec.timeZone> `
when a time zone is set, and kube-apiserver validates it with the same parser, so the error texts users see
("end of range (61) above maximum (59): 61") are robfig's. The semantics that matter and that general-purpose
Python cron libraries do not share: five fields only (no seconds, no year), `?` as `*`, names of months and
days in any case, `7` is NOT Sunday, day-of-month and day-of-week are ORed only when neither is a `*` (a
`*/2` is not a star), descriptors (`@hourly`, `@every 90m`, ...), and `Next` walking the wall clock of the
schedule's zone field by field, adding whole hours as elapsed time: a time inside a spring-forward gap is
skipped, one inside a fall-back overlap runs twice. Hence a hand-written parser rather than croniter.

Without a time zone the schedule runs on the controller's local zone; kubelite's controllers take UTC as it.
Times are aware datetimes; `next_after` returns UTC, or None where robfig returns the zero time (no match
within five years, e.g. `0 0 30 2 *`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

#: more missed start times than this and the controller warns instead of catching up (kube's constant)
TOO_MANY_MISSED = 100

_STAR = 1 << 63

_MONTH_NAMES = {
    name: number
    for number, name in enumerate(
        ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"], start=1
    )
}
_DAY_NAMES = {name: number for number, name in enumerate(["sun", "mon", "tue", "wed", "thu", "fri", "sat"])}


@dataclass(frozen=True)
class _Bounds:
    low: int
    high: int
    names: dict[str, int] | None = None


_MINUTES = _Bounds(0, 59)
_HOURS = _Bounds(0, 23)
_DOM = _Bounds(1, 31)
_MONTHS = _Bounds(1, 12, _MONTH_NAMES)
_DOW = _Bounds(0, 6, _DAY_NAMES)


class CronError(ValueError):
    """A schedule robfig/cron refuses; str() is robfig's message."""


class UnknownTimeZone(CronError):
    """A zone name Go's time.LoadLocation refuses; str() is Go's message."""


def load_location(name: str) -> tzinfo:
    """Go's time.LoadLocation: "" and "UTC" are UTC, "Local" the local zone (UTC here), else the IANA zone."""
    if name in ("", "UTC", "Local"):
        return UTC
    try:
        if name.startswith("/") or ".." in name.split("/"):
            raise ValueError(name)
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError) as error:
        raise UnknownTimeZone(f"unknown time zone {name}") from error


def _go_quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _parse_int(expr: str) -> int:
    if not re.fullmatch(r"[+-]?[0-9]+", expr):
        raise CronError(f"failed to parse int from {expr}: strconv.Atoi: parsing {_go_quote(expr)}: invalid syntax")
    number = int(expr)
    if not -(1 << 63) <= number < (1 << 63):
        raise CronError(f"failed to parse int from {expr}: strconv.Atoi: parsing {_go_quote(expr)}: value out of range")
    if number < 0:
        raise CronError(f"negative number ({number}) not allowed: {expr}")
    return number


def _parse_int_or_name(expr: str, names: dict[str, int] | None) -> int:
    if names is not None and expr.lower() in names:
        return names[expr.lower()]
    return _parse_int(expr)


def _bits(low: int, high: int, step: int) -> int:
    bits = 0
    for value in range(low, high + 1, step):
        bits |= 1 << value
    return bits


def _parse_range(expr: str, bounds: _Bounds) -> int:
    range_and_step = expr.split("/")
    low_and_high = range_and_step[0].split("-")
    single = len(low_and_high) == 1
    extra = 0
    if low_and_high[0] in ("*", "?"):
        start, end, extra = bounds.low, bounds.high, _STAR
    else:
        start = _parse_int_or_name(low_and_high[0], bounds.names)
        if len(low_and_high) == 1:
            end = start
        elif len(low_and_high) == 2:
            end = _parse_int_or_name(low_and_high[1], bounds.names)
        else:
            raise CronError(f"too many hyphens: {expr}")
    if len(range_and_step) == 1:
        step = 1
    elif len(range_and_step) == 2:
        step = _parse_int(range_and_step[1])
        # "N/step" means "N-max/step"; a step over a star makes it no longer a star
        if single:
            end = bounds.high
        if step > 1:
            extra = 0
    else:
        raise CronError(f"too many slashes: {expr}")
    if start < bounds.low:
        raise CronError(f"beginning of range ({start}) below minimum ({bounds.low}): {expr}")
    if end > bounds.high:
        raise CronError(f"end of range ({end}) above maximum ({bounds.high}): {expr}")
    if start > end:
        raise CronError(f"beginning of range ({start}) beyond end of range ({end}): {expr}")
    if step == 0:
        raise CronError(f"step of range should be a positive number: {expr}")
    return _bits(start, end, step) | extra


def _parse_field(field: str, bounds: _Bounds) -> int:
    bits = 0
    for expr in (part for part in field.split(",") if part):
        bits |= _parse_range(expr, bounds)
    return bits


def _all(bounds: _Bounds) -> int:
    return _bits(bounds.low, bounds.high, 1) | _STAR


_DURATION_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def parse_go_duration(text: str) -> float:
    """Go's time.ParseDuration, in seconds: "1h30m", "90s", "1.5h"; errors with Go's texts."""
    original, rest, sign = text, text, 1.0
    if rest[:1] in ("+", "-"):
        sign = -1.0 if rest[0] == "-" else 1.0
        rest = rest[1:]
    if rest == "0":
        return 0.0
    if not rest:
        raise CronError(f"time: invalid duration {_go_quote(original)}")
    total = 0.0
    while rest:
        number = re.match(r"[0-9]*(\.[0-9]*)?", rest)
        digits = number.group(0) if number else ""
        if digits in ("", "."):
            raise CronError(f"time: invalid duration {_go_quote(original)}")
        rest = rest[len(digits) :]
        unit_match = re.match(r"[^0-9.]*", rest)
        unit = unit_match.group(0) if unit_match else ""
        if not unit:
            raise CronError(f"time: missing unit in duration {_go_quote(original)}")
        if unit not in _DURATION_UNITS:
            raise CronError(f"time: unknown unit {_go_quote(unit)} in duration {_go_quote(original)}")
        total += float(digits) * _DURATION_UNITS[unit]
        rest = rest[len(unit) :]
    return sign * total


class Schedule:
    """A parsed schedule; `next_after(t)` is robfig's `Schedule.Next`."""

    def next_after(self, when: datetime) -> datetime | None:
        raise NotImplementedError


@dataclass(frozen=True)
class ConstantDelaySchedule(Schedule):
    """`@every <duration>`: a fixed delay in whole seconds (at least one) after the given time."""

    delay_seconds: int

    def next_after(self, when: datetime) -> datetime | None:
        return when.replace(microsecond=0).astimezone(UTC) + timedelta(seconds=self.delay_seconds)


@dataclass(frozen=True)
class SpecSchedule(Schedule):
    """Bit sets of the allowed minutes, hours, days of month, months and days of week, in a zone."""

    minute: int
    hour: int
    dom: int
    month: int
    dow: int
    location: tzinfo = UTC

    def _day_matches(self, local: datetime) -> bool:
        dom_match = bool(1 << local.day & self.dom)
        dow_match = bool(1 << ((local.weekday() + 1) % 7) & self.dow)
        if self.dom & _STAR or self.dow & _STAR:
            return dom_match and dow_match
        return dom_match or dow_match

    def _local(self, instant: int) -> datetime:
        return datetime.fromtimestamp(instant, self.location)

    def _offset(self, instant: int) -> int:
        offset = self._local(instant).utcoffset()
        return int(offset.total_seconds()) if offset else 0

    def _date(self, year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0) -> int:
        """Go's time.Date in the schedule's zone, fields normalised; a wall time in a gap lands after it."""
        year += (month - 1) // 12
        month = (month - 1) % 12 + 1
        days = (date(year, month, 1) - date(1970, 1, 1)).days + day - 1
        wall = days * 86_400 + hour * 3600 + minute * 60 + second
        offset = self._offset(wall)
        if self._offset(wall - offset) != offset:
            offset = self._offset(wall - offset)
        return wall - offset

    def next_after(self, when: datetime) -> datetime | None:
        instant = int(when.timestamp() // 1) + 1
        added = False
        year_limit = self._local(instant).year + 5
        while True:
            local = self._local(instant)
            if local.year > year_limit:
                return None
            wrapped = False
            while not 1 << local.month & self.month:
                if not added:
                    added = True
                    instant = self._date(local.year, local.month, 1)
                    local = self._local(instant)
                instant = self._date(local.year, local.month + 1, local.day, local.hour, local.minute, local.second)
                local = self._local(instant)
                if local.month == 1:
                    wrapped = True
                    break
            if wrapped:
                continue
            while not self._day_matches(local):
                if not added:
                    added = True
                    instant = self._date(local.year, local.month, local.day)
                    local = self._local(instant)
                instant = self._date(local.year, local.month, local.day + 1, local.hour, local.minute, local.second)
                local = self._local(instant)
                # a day that began or ended with a DST change leaves the walk off midnight: put it back
                if local.hour != 0:
                    instant += (24 - local.hour) * 3600 if local.hour > 12 else -local.hour * 3600
                    local = self._local(instant)
                if local.day == 1:
                    wrapped = True
                    break
            if wrapped:
                continue
            while not 1 << local.hour & self.hour:
                if not added:
                    added = True
                    instant = self._date(local.year, local.month, local.day, local.hour)
                instant += 3600
                local = self._local(instant)
                if local.hour == 0:
                    wrapped = True
                    break
            if wrapped:
                continue
            while not 1 << local.minute & self.minute:
                if not added:
                    added = True
                    instant -= instant % 60
                instant += 60
                local = self._local(instant)
                if local.minute == 0:
                    wrapped = True
                    break
            if wrapped:
                continue
            if local.second != 0:
                added = True
                instant += 60 - local.second
                continue
            return datetime.fromtimestamp(instant, UTC)


def _descriptor(spec: str, location: tzinfo) -> Schedule:
    if spec in ("@yearly", "@annually"):
        return SpecSchedule(1, 1, 1 << 1, 1 << 1, _all(_DOW), location)
    if spec == "@monthly":
        return SpecSchedule(1, 1, 1 << 1, _all(_MONTHS), _all(_DOW), location)
    if spec == "@weekly":
        return SpecSchedule(1, 1, _all(_DOM), _all(_MONTHS), 1, location)
    if spec in ("@daily", "@midnight"):
        return SpecSchedule(1, 1, _all(_DOM), _all(_MONTHS), _all(_DOW), location)
    if spec == "@hourly":
        return SpecSchedule(1, _all(_HOURS), _all(_DOM), _all(_MONTHS), _all(_DOW), location)
    if spec.startswith("@every "):
        try:
            seconds = parse_go_duration(spec[len("@every ") :])
        except CronError as error:
            raise CronError(f"failed to parse duration {spec}: {error}") from None
        return ConstantDelaySchedule(max(int(seconds), 1))
    raise CronError(f"unrecognized descriptor: {spec}")


def parse_standard(spec: str) -> Schedule:
    """robfig/cron v3's ParseStandard: an optional `TZ=`/`CRON_TZ=` prefix, then a descriptor or five fields."""
    if not spec:
        raise CronError("empty spec string")
    location: tzinfo = UTC
    if spec.startswith(("TZ=", "CRON_TZ=")):
        space = spec.find(" ")
        if space < 0:  # robfig slices up to the space it did not find, and recovers from the panic
            raise CronError("recovered from panic: runtime error: slice bounds out of range")
        name = spec[spec.find("=") + 1 : space]
        try:
            location = load_location(name)
        except UnknownTimeZone as error:
            raise CronError(f"provided bad location {name}: {error}") from None
        spec = spec[space:].strip() if space >= 0 else ""
    if spec.startswith("@"):
        return _descriptor(spec, location)
    fields = spec.split()
    if len(fields) != 5:
        raise CronError(f"expected exactly 5 fields, found {len(fields)}: [{' '.join(fields)}]")
    return SpecSchedule(
        minute=_parse_field(fields[0], _MINUTES),
        hour=_parse_field(fields[1], _HOURS),
        dom=_parse_field(fields[2], _DOM),
        month=_parse_field(fields[3], _MONTHS),
        dow=_parse_field(fields[4], _DOW),
        location=location,
    )


def schedule_for(schedule: str, time_zone: str | None) -> Schedule:
    """What the controller parses: `spec.schedule`, in `spec.timeZone` when that is set and loadable and the
    schedule carries no TZ of its own (the controller's formatSchedule)."""
    if "TZ" not in schedule and time_zone is not None:
        try:
            load_location(time_zone)
        except UnknownTimeZone:
            return parse_standard(schedule)
        return parse_standard(f"TZ={time_zone} {schedule}")
    return parse_standard(schedule)


def validate_schedule(schedule: str, time_zone: str | None) -> list[tuple[str, str, str]]:
    """kube-apiserver's checks of spec.schedule and spec.timeZone on create: (field, value, detail) per error."""
    errors: list[tuple[str, str, str]] = []
    if not schedule:
        errors.append(("spec.schedule", schedule, "Required value"))
    else:
        try:
            parse_standard(schedule)
        except CronError as error:
            errors.append(("spec.schedule", schedule, str(error)))
        if "TZ" in schedule:
            errors.append(
                ("spec.schedule", schedule, "cannot use TZ or CRON_TZ in schedule, use timeZone field instead")
            )
    if time_zone is not None:
        errors.extend(_validate_time_zone(time_zone))
    return errors


def _validate_time_zone(time_zone: str) -> list[tuple[str, str, str]]:
    if not time_zone:
        return [("spec.timeZone", time_zone, "timeZone must be nil or non-empty string")]
    errors: list[tuple[str, str, str]] = []
    for part in time_zone.split("/"):
        if part in (".", "..") or part.startswith("-") or not re.fullmatch(r"[A-Za-z.\-_0-9+]{1,14}", part):
            errors.append(("spec.timeZone", time_zone, f"unknown time zone {time_zone}"))
            return errors
    if time_zone.lower() == "local":
        errors.append(
            (
                "spec.timeZone",
                time_zone,
                "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones",
            )
        )
    try:
        load_location(time_zone)
    except UnknownTimeZone as error:
        errors.append(("spec.timeZone", time_zone, str(error)))
    return errors


@dataclass(frozen=True)
class MissedSchedules:
    """The controller's view of the schedule between its earliest time and now."""

    earliest: datetime
    #: the latest start time at or before now, or None
    most_recent: datetime | None
    #: "none", "few" or "many" (more than TOO_MANY_MISSED)
    missed: str


class InvalidSchedule(CronError):
    """A schedule that parses but cannot fire (the 31st of February): kube's InvalidSchedule event."""


def most_recent_schedule_time(
    schedule: Schedule, earliest: datetime, now: datetime, starting_deadline_seconds: int | None = None
) -> MissedSchedules:
    """The latest start time in (earliest, now], counting the missed ones roughly as kube does: from the
    interval between the first two start times, so that a controller down for decades does not walk them all.
    A starting deadline moves `earliest` up to now minus the deadline."""
    if starting_deadline_seconds is not None:
        deadline = now - timedelta(seconds=starting_deadline_seconds)
        if deadline > earliest:
            earliest = deadline
    first = schedule.next_after(earliest)
    if first is None:
        raise InvalidSchedule("time difference between two schedules is less than 1 second")
    if now < first:
        return MissedSchedules(earliest, None, "none")
    second = schedule.next_after(first)
    if second is not None and now < second:
        return MissedSchedules(earliest, first, "none")
    between = round((second - first).total_seconds()) if second is not None else 0
    if between < 1:
        raise InvalidSchedule("time difference between two schedules is less than 1 second")
    elapsed = int((now - first).total_seconds())
    missed_count = elapsed // between + 1
    # start one interval early and let the schedule find the true times: irregular schedules (30 6-16/4 * * 1-5)
    # do not fire every `between` seconds
    most_recent: datetime | None = None
    cursor: datetime | None = first + timedelta(seconds=(missed_count - 2) * between)
    while cursor is not None:
        cursor = schedule.next_after(cursor)
        if cursor is None or cursor > now:
            break
        most_recent = cursor
    missed = "many" if missed_count > TOO_MANY_MISSED else "few" if missed_count > 0 else "none"
    return MissedSchedules(earliest, most_recent, missed)
