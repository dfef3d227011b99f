"""`kubelite serve` flag parsing: durations as Go's time.ParseDuration reads them, plus plain seconds."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubelite.cli import main, parse_duration
from kubelite.server.config import ConfigError


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("5m", 300.0),
        ("30s", 30.0),
        ("1h", 3600.0),
        ("1h30m", 5400.0),
        ("1h30m15s", 5415.0),
        ("250ms", 0.25),
        ("1m500ms", 60.5),
        ("1.5h", 5400.0),
        (".5s", 0.5),
        ("5.s", 5.0),
        ("100us", 0.0001),
        ("100\u00b5s", 0.0001),
        ("100\u03bcs", 0.0001),
        ("1500ns", 1.5e-6),
        ("0", 0.0),
        ("0s", 0.0),
        ("-1.5h", -5400.0),
        ("+5m", 300.0),
        ("1s1s", 2.0),
        ("90", 90.0),
        ("2.5", 2.5),
    ],
    ids=[
        "minutes",
        "seconds",
        "hours",
        "hours-minutes",
        "three-units",
        "milliseconds",
        "minutes-milliseconds",
        "fractional-hours",
        "leading-dot",
        "trailing-dot",
        "microseconds",
        "micro-sign",
        "greek-mu",
        "nanoseconds",
        "zero",
        "zero-seconds",
        "negative",
        "plus-sign",
        "repeated-unit",
        "plain-seconds",
        "plain-fraction",
    ],
)
def test_parse_duration(text: str, seconds: float) -> None:
    assert parse_duration(text) == pytest.approx(seconds, rel=1e-12, abs=0.0)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "invalid duration '': use e.g. 5m, 30s or 1h"),
        ("-", "invalid duration '-': use e.g. 5m, 30s or 1h"),
        (".", "invalid duration '.': use e.g. 5m, 30s or 1h"),
        (".s", "invalid duration '.s': use e.g. 5m, 30s or 1h"),
        ("s", "invalid duration 's': use e.g. 5m, 30s or 1h"),
        ("5x", "invalid duration '5x': use e.g. 5m, 30s or 1h"),
        ("5M", "invalid duration '5M': use e.g. 5m, 30s or 1h"),
        ("1h 30m", "invalid duration '1h 30m': use e.g. 5m, 30s or 1h"),
        (" 5m", "invalid duration ' 5m': use e.g. 5m, 30s or 1h"),
        ("1.2.3s", "invalid duration '1.2.3s': use e.g. 5m, 30s or 1h"),
        ("nan", "invalid duration 'nan': use e.g. 5m, 30s or 1h"),
        ("inf", "invalid duration 'inf': use e.g. 5m, 30s or 1h"),
        ("1e3", "invalid duration '1e3': use e.g. 5m, 30s or 1h"),
        ("--5m", "invalid duration '--5m': use e.g. 5m, 30s or 1h"),
        ("5m3", "invalid duration '5m3': missing unit after 3"),
        ("1h30", "invalid duration '1h30': missing unit after 30"),
    ],
    ids=[
        "empty",
        "sign-only",
        "dot-only",
        "dot-unit",
        "unit-only",
        "unknown-unit",
        "upper-case-unit",
        "space-between",
        "leading-space",
        "two-dots",
        "nan",
        "inf",
        "exponent",
        "double-sign",
        "missing-unit",
        "missing-unit-after-hours",
    ],
)
def test_invalid_durations(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_duration(text)
    assert str(caught.value) == message


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (
            ["--etcd-compaction-interval", "soon"],
            "kubelite: invalid duration 'soon': use e.g. 5m, 30s or 1h\n",
        ),
        (
            ["--etcd-compaction-interval=-5m"],
            "kubelite: --etcd-compaction-interval must not be negative (0 disables compaction)\n",
        ),
        (["--watch-bookmark-interval", "1x"], "kubelite: invalid duration '1x': use e.g. 5m, 30s or 1h\n"),
    ],
    ids=["not-a-duration", "negative-compaction", "bad-bookmark-interval"],
)
def test_bad_flags_exit_2_before_serving(
    flags: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["serve", "--data-dir", str(tmp_path), *flags]) == 2
    assert capsys.readouterr().err == message
