"""Cron schedules as the CronJob controller parses them (robfig/cron v3 standard), their next times in a
zone across DST changes, and the missed-schedule arithmetic."""

from __future__ import annotations

from datetime import datetime

import pytest

from kubelite.util.cron import (
    CronError,
    InvalidSchedule,
    most_recent_schedule_time,
    parse_standard,
    schedule_for,
    validate_schedule,
)


def at(text: str) -> datetime:
    return datetime.fromisoformat(text)


def next_of(spec: str, after: str, zone: str | None = None) -> str | None:
    found = schedule_for(spec, zone).next_after(at(after))
    return found.isoformat() if found else None


@pytest.mark.parametrize(
    ("spec", "after", "expected"),
    [
        ("*/15 * * * *", "2026-01-01T10:07:12+00:00", "2026-01-01T10:15:00+00:00"),
        ("0 0 29 2 *", "2026-01-01T00:00:00+00:00", "2028-02-29T00:00:00+00:00"),
        ("0 9 1 * mon", "2026-01-01T10:00:00+00:00", "2026-01-05T09:00:00+00:00"),
        # */2 is no star: day of month OR day of week
        ("0 9 */2 * mon", "2026-01-01T10:00:00+00:00", "2026-01-03T09:00:00+00:00"),
        ("0 9 * * MON-fri", "2026-01-02T10:00:00+00:00", "2026-01-05T09:00:00+00:00"),
        ("5,10-12 * * jan,Feb ?", "2026-03-01T00:00:00+00:00", "2027-01-01T00:05:00+00:00"),
        ("@hourly", "2026-01-01T10:00:00+00:00", "2026-01-01T11:00:00+00:00"),
        ("@daily", "2026-01-01T10:00:00+00:00", "2026-01-02T00:00:00+00:00"),
        ("@weekly", "2026-01-01T10:00:00+00:00", "2026-01-04T00:00:00+00:00"),
        ("@monthly", "2026-01-01T10:00:00+00:00", "2026-02-01T00:00:00+00:00"),
        ("@yearly", "2026-01-01T10:00:00+00:00", "2027-01-01T00:00:00+00:00"),
        ("@every 1h30m", "2026-01-01T10:00:00.5+00:00", "2026-01-01T11:30:00+00:00"),
        ("0 0 30 2 *", "2026-01-01T00:00:00+00:00", None),
    ],
)
def test_next_times(spec: str, after: str, expected: str | None) -> None:
    assert next_of(spec, after) == expected


def test_a_time_in_the_spring_forward_gap_is_skipped() -> None:
    # Europe/Berlin skips 02:00-03:00 on 2026-03-29
    assert next_of("30 2 * * *", "2026-03-28T12:00:00+00:00", "Europe/Berlin") == "2026-03-30T00:30:00+00:00"


def test_a_time_in_the_fall_back_overlap_runs_twice() -> None:
    first = next_of("30 2 * * *", "2026-10-24T12:00:00+00:00", "Europe/Berlin")
    assert first == "2026-10-25T00:30:00+00:00"
    assert next_of("30 2 * * *", first, "Europe/Berlin") == "2026-10-25T01:30:00+00:00"


def test_a_zone_moves_the_wall_clock() -> None:
    assert next_of("0 3 * * *", "2026-07-01T00:00:00+00:00", "Europe/Paris") == "2026-07-01T01:00:00+00:00"
    assert next_of("0 3 * * *", "2026-07-01T00:00:00+00:00", "America/New_York") == "2026-07-01T07:00:00+00:00"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("", "empty spec string"),
        ("61 * * * *", "end of range (61) above maximum (59): 61"),
        ("* * 0 * *", "beginning of range (0) below minimum (1): 0"),
        ("* * * * 7", "end of range (7) above maximum (6): 7"),
        ("5-1 * * * *", "beginning of range (5) beyond end of range (1): 5-1"),
        ("*/0 * * * *", "step of range should be a positive number: */0"),
        ("1-2-3 * * * *", "too many hyphens: 1-2-3"),
        ("1/2/3 * * * *", "too many slashes: 1/2/3"),
        ("x * * * *", 'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax'),
        ("* * *", "expected exactly 5 fields, found 3: [* * *]"),
        ("0 * * * * *", "expected exactly 5 fields, found 6: [0 * * * * *]"),
        ("@often", "unrecognized descriptor: @often"),
        ("@every 5d", 'failed to parse duration @every 5d: time: unknown unit "d" in duration "5d"'),
        ("TZ=Mars/Olympus * * * * *", "provided bad location Mars/Olympus: unknown time zone Mars/Olympus"),
    ],
)
def test_invalid_specs_fail_with_robfigs_messages(spec: str, message: str) -> None:
    with pytest.raises(CronError) as caught:
        parse_standard(spec)
    assert str(caught.value) == message


def test_validation_refuses_tz_prefixes_and_unknown_zones() -> None:
    assert validate_schedule("CRON_TZ=UTC * * * * *", None) == [
        ("spec.schedule", "CRON_TZ=UTC * * * * *", "cannot use TZ or CRON_TZ in schedule, use timeZone field instead")
    ]
    assert validate_schedule("* * * * *", "Europe/Pariss") == [
        ("spec.timeZone", "Europe/Pariss", "unknown time zone Europe/Pariss")
    ]
    assert validate_schedule("61 * * * *", None) == [
        ("spec.schedule", "61 * * * *", "end of range (61) above maximum (59): 61")
    ]
    assert validate_schedule("*/5 * * * *", "Asia/Tokyo") == []


def test_most_recent_schedule_time() -> None:
    hourly = parse_standard("0 * * * *")
    none_yet = most_recent_schedule_time(hourly, at("2026-01-01T10:00:00+00:00"), at("2026-01-01T10:59:00+00:00"))
    assert (none_yet.most_recent, none_yet.missed) == (None, "none")
    one = most_recent_schedule_time(hourly, at("2026-01-01T10:00:00+00:00"), at("2026-01-01T11:30:00+00:00"))
    assert (one.most_recent, one.missed) == (at("2026-01-01T11:00:00+00:00"), "none")
    few = most_recent_schedule_time(hourly, at("2026-01-01T10:00:00+00:00"), at("2026-01-01T15:30:00+00:00"))
    assert (few.most_recent, few.missed) == (at("2026-01-01T15:00:00+00:00"), "few")
    many = most_recent_schedule_time(hourly, at("2026-01-01T10:00:00+00:00"), at("2026-01-10T15:30:00+00:00"))
    assert (many.most_recent, many.missed) == (at("2026-01-10T15:00:00+00:00"), "many")


def test_a_starting_deadline_moves_the_earliest_time_up() -> None:
    hourly = parse_standard("0 * * * *")
    seen = most_recent_schedule_time(
        hourly, at("2026-01-01T10:00:00+00:00"), at("2026-01-10T15:30:00+00:00"), starting_deadline_seconds=3600
    )
    assert (seen.earliest, seen.most_recent, seen.missed) == (
        at("2026-01-10T14:30:00+00:00"),
        at("2026-01-10T15:00:00+00:00"),
        "none",
    )


def test_irregular_schedules_find_the_true_most_recent_time() -> None:
    weekdays = parse_standard("30 6-16/4 * * 1-5")
    seen = most_recent_schedule_time(weekdays, at("2026-01-01T00:00:00+00:00"), at("2026-01-09T12:00:00+00:00"))
    assert (seen.most_recent, seen.missed) == (at("2026-01-09T10:30:00+00:00"), "few")
    # kube's estimate starts one interval before now; over a weekend that finds nothing, and kube says so too
    weekend = most_recent_schedule_time(weekdays, at("2026-01-01T00:00:00+00:00"), at("2026-01-10T12:00:00+00:00"))
    assert (weekend.most_recent, weekend.missed) == (None, "few")


def test_a_schedule_that_never_fires_is_invalid() -> None:
    with pytest.raises(InvalidSchedule, match="time difference between two schedules is less than 1 second"):
        most_recent_schedule_time(
            parse_standard("0 0 31 2 *"), at("2026-01-01T00:00:00+00:00"), at("2026-03-01T00:00:00+00:00")
        )


def test_descriptors_and_prefixes_run_in_their_zone() -> None:
    assert next_of("@daily", "2026-01-01T10:00:00+00:00", "Asia/Tokyo") == "2026-01-01T15:00:00+00:00"
    assert next_of("CRON_TZ=Asia/Tokyo 0 0 * * *", "2026-01-01T10:00:00+00:00") == "2026-01-01T15:00:00+00:00"
    # a schedule with its own TZ keeps it; spec.timeZone is not applied on top
    assert next_of("TZ=UTC 0 0 * * *", "2026-01-01T10:00:00+00:00", "Asia/Tokyo") == "2026-01-02T00:00:00+00:00"


def test_every_is_whole_seconds_and_at_least_one() -> None:
    assert next_of("@every 1500ms", "2026-01-01T10:00:00+00:00") == "2026-01-01T10:00:01+00:00"
    assert next_of("@every 10ms", "2026-01-01T10:00:00+00:00") == "2026-01-01T10:00:01+00:00"
