"""Human-readable durations match k8s.io/apimachinery's util/duration, digit for digit."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from kubelite.apimachinery.duration import (
    HOUR,
    MINUTE,
    SECOND,
    between,
    human_duration,
    nanoseconds,
    parse_time,
    short_human_duration,
    since,
)

DAY = 24 * HOUR
YEAR = 365 * DAY


@pytest.mark.parametrize(
    ("ns", "expected"),
    [
        pytest.param(-2 * SECOND, "<invalid>", id="two-seconds-ahead"),
        pytest.param(-1999 * SECOND // 1000, "0s", id="clock-skew-tolerated"),
        pytest.param(0, "0s", id="zero"),
        pytest.param(999_999_999, "0s", id="sub-second"),
        pytest.param(1 * SECOND, "1s", id="one-second"),
        pytest.param(119 * SECOND, "119s", id="seconds-up-to-two-minutes"),
        pytest.param(120 * SECOND, "2m", id="two-minutes"),
        pytest.param(150 * SECOND, "2m30s", id="minutes-and-seconds"),
        pytest.param(599 * SECOND, "9m59s", id="last-with-seconds"),
        pytest.param(10 * MINUTE + 30 * SECOND, "10m", id="ten-minutes-drops-seconds"),
        pytest.param(179 * MINUTE, "179m", id="minutes-up-to-three-hours"),
        pytest.param(3 * HOUR, "3h", id="three-hours"),
        pytest.param(3 * HOUR + 30 * MINUTE, "3h30m", id="hours-and-minutes"),
        pytest.param(7 * HOUR + 59 * MINUTE, "7h59m", id="last-with-minutes"),
        pytest.param(8 * HOUR + 30 * MINUTE, "8h", id="eight-hours-drops-minutes"),
        pytest.param(47 * HOUR, "47h", id="hours-up-to-two-days"),
        pytest.param(48 * HOUR, "2d", id="two-days"),
        pytest.param(49 * HOUR, "2d1h", id="days-and-hours"),
        pytest.param(191 * HOUR, "7d23h", id="last-with-hours"),
        pytest.param(8 * DAY + 5 * HOUR, "8d", id="eight-days-drops-hours"),
        pytest.param(2 * YEAR - DAY, "729d", id="days-up-to-two-years"),
        pytest.param(2 * YEAR, "2y", id="two-years"),
        pytest.param(2 * YEAR + 40 * DAY, "2y40d", id="years-and-days"),
        pytest.param(8 * YEAR + 40 * DAY, "8y", id="eight-years-drops-days"),
    ],
)
def test_human_duration(ns: int, expected: str) -> None:
    assert human_duration(ns) == expected


@pytest.mark.parametrize(
    ("ns", "expected"),
    [
        pytest.param(-2 * SECOND, "<invalid>", id="ahead"),
        pytest.param(-1 * SECOND, "0s", id="skew"),
        pytest.param(59 * SECOND, "59s", id="seconds"),
        pytest.param(60 * SECOND, "1m", id="minute"),
        pytest.param(59 * MINUTE + 59 * SECOND, "59m", id="minutes"),
        pytest.param(60 * MINUTE, "1h", id="hour"),
        pytest.param(23 * HOUR, "23h", id="hours"),
        pytest.param(24 * HOUR, "1d", id="day"),
        pytest.param(364 * DAY, "364d", id="days"),
        pytest.param(YEAR, "1y", id="year"),
        pytest.param(3 * YEAR + 100 * DAY, "3y", id="years"),
    ],
)
def test_short_human_duration(ns: int, expected: str) -> None:
    assert short_human_duration(ns) == expected


NOW = datetime(2025, 6, 1, 12, 0, 0, 500_000, tzinfo=UTC)


@pytest.mark.parametrize(
    ("timestamp", "expected"),
    [
        pytest.param(None, "<unknown>", id="missing"),
        pytest.param("", "<unknown>", id="empty"),
        pytest.param("not-a-time", "<unknown>", id="unreadable"),
        pytest.param("2025-06-01T11:55:00Z", "5m", id="five-minutes"),
        pytest.param("2025-06-01T11:57:30Z", "2m30s", id="fraction-of-now-truncated"),
        pytest.param("2025-06-01T12:00:05Z", "<invalid>", id="future"),
        pytest.param("2025-06-01T12:00:01Z", "0s", id="barely-future"),
        pytest.param("2025-06-01T11:59:59.250000Z", "1s", id="micro-time"),
        pytest.param("2025-05-29T12:00:00+00:00", "3d", id="offset-form"),
    ],
)
def test_since(timestamp: str | None, expected: str) -> None:
    assert since(timestamp, NOW) == expected


@pytest.mark.parametrize(
    ("start", "end", "expected"),
    [
        pytest.param("2025-06-01T10:00:00Z", "2025-06-01T10:00:42Z", "42s", id="seconds"),
        pytest.param("2025-06-01T10:00:00Z", "2025-06-01T10:04:10Z", "4m10s", id="minutes"),
        pytest.param("2025-06-01T10:00:00Z", None, "<unknown>", id="unfinished"),
    ],
)
def test_between(start: str, end: str | None, expected: str) -> None:
    assert between(start, end) == expected


def test_nanoseconds_and_parse_time() -> None:
    assert nanoseconds(timedelta(seconds=1, microseconds=5)) == 1_000_005_000
    assert parse_time("2025-06-01T12:00:00Z") == datetime(2025, 6, 1, 12, tzinfo=UTC)
    assert parse_time("2025-06-01T12:00:00") == datetime(2025, 6, 1, 12, tzinfo=UTC)
    assert parse_time("") is None
