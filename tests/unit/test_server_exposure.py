"""Exposure and connection rules that need no server: which insecure addresses are allowed, the timeouts'
validation, the listen backlog, the open-file limit, and how failed accepts are counted and reported."""

from __future__ import annotations

import errno
import logging
import resource
from pathlib import Path

import pytest

from kubelite.server import listener
from kubelite.server.config import ConfigError, ServerConfig, is_loopback
from kubelite.server.fdlimit import raise_open_file_limit


@pytest.mark.parametrize(
    ("address", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.0.0.53", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost", True),
        ("LOCALHOST", True),
        ("0.0.0.0", False),
        ("::", False),
        ("10.0.0.1", False),
        ("example.com", False),
    ],
)
def test_is_loopback(address: str, loopback: bool) -> None:
    assert is_loopback(address) is loopback


def _config(tmp_path: Path, **overrides: object) -> ServerConfig:
    return ServerConfig(data_dir=tmp_path, cert_dir=tmp_path / "pki", **overrides)  # type: ignore[arg-type]


def test_a_non_loopback_insecure_address_needs_the_acknowledgement(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"^--insecure-bind-address 0\.0\.0\.0 is not a loopback address"):
        _config(tmp_path, insecure_bind_address="0.0.0.0").validate()
    _config(tmp_path, insecure_bind_address="0.0.0.0", insecure_allow_non_loopback=True).validate()
    # a disabled insecure port exposes nothing
    _config(tmp_path, insecure_bind_address="0.0.0.0", insecure_port=-1).validate()


@pytest.mark.parametrize("field", ["read_header_timeout", "idle_timeout"])
def test_timeouts_must_be_positive(tmp_path: Path, field: str) -> None:
    flag = "--" + field.replace("_", "-")
    with pytest.raises(ConfigError, match=f"^{flag} must be positive"):
        _config(tmp_path, **{field: 0.0}).validate()


def test_defaults_are_kube_apiserver_values(tmp_path: Path) -> None:
    config = _config(tmp_path)
    assert (config.read_header_timeout, config.idle_timeout) == (32.0, 90.0)


def test_listen_backlog_is_somaxconn() -> None:
    expected = min(int(Path("/proc/sys/net/core/somaxconn").read_text()), 65535)
    assert listener.listen_backlog() == expected


def test_the_soft_open_file_limit_is_raised_to_the_hard_one() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard < 512:
        pytest.skip("needs a finite hard limit of at least 512")
    resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))
    try:
        assert raise_open_file_limit() == (hard, hard)
        assert resource.getrlimit(resource.RLIMIT_NOFILE) == (hard, hard)
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_failed_accepts_are_counted_and_logged_at_most_every_few_seconds(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    now = [1000.0]
    monkeypatch.setattr(listener.time, "monotonic", lambda: now[0])
    failures = listener.AcceptFailures("http://127.0.0.1:8080")
    exhausted = OSError(errno.EMFILE, "Too many open files")
    with caplog.at_level(logging.ERROR, logger="kubelite.server.listener"):
        failures.record(exhausted, 0.005)
        for _ in range(9):
            now[0] += 0.1
            failures.record(exhausted, 0.01)
        now[0] += listener.LOG_EVERY
        failures.record(exhausted, 1.0)
    assert failures.total == 11
    assert [r.getMessage() for r in caplog.records] == [
        "http://127.0.0.1:8080: accept failed: [Errno 24] Too many open files; retrying in 5ms"
        " (1 failed accepts since the last report, 1 in all)",
        "http://127.0.0.1:8080: accept failed: [Errno 24] Too many open files; retrying in 1000ms"
        " (10 failed accepts since the last report, 11 in all)",
    ]
