"""Hardening of connections, TLS and exposure, against a real server: slow and idle clients, file-descriptor
exhaustion, the listen backlog, head size limits, client certificates the CA did not sign or that expired,
the insecure port off loopback, and signals during start-up. Every attack is bounded in count and time and
talks to 127.0.0.1 only."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import re
import resource
import select
import signal
import socket
import sqlite3
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from tests.e2e.server import KUBECTL, KubeliteProcess

#: short timeouts, so the tests see the server close connections within seconds
SHORT_TIMEOUTS = ["--read-header-timeout", "1s", "--idle-timeout", "2s"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KubeliteProcess]:
    proc = KubeliteProcess(Path(tmp_path_factory.mktemp("kubelite")), extra_args=SHORT_TIMEOUTS).start()
    yield proc
    proc.stop()


def _connect(port: int) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=10)


def _closed_within(sock: socket.socket, seconds: float) -> bool:
    """Whether the server closes `sock` within `seconds` (reading and dropping what it sends first)."""
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        readable, _, _ = select.select([sock], [], [], left)
        if not readable:
            return False
        try:
            if not sock.recv(65536):
                return True
        except ConnectionResetError:
            return True
    return False


def _response(sock: socket.socket, limit: float = 10.0) -> tuple[int, bytes]:
    """The status and body of one response on `sock` (a Connection: close response or one with a length)."""
    sock.settimeout(limit)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    length = re.search(rb"(?i)content-length: *(\d+)", head)
    while length and len(body) < int(length.group(1)):
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return status, body


def _get(port: int, path: str) -> tuple[int, bytes]:
    with _connect(port) as sock:
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
        return _response(sock)


# --- connections: timeouts ------------------------------------------------------------------------------


def test_a_connection_that_sends_nothing_is_closed_after_the_read_header_timeout(server: KubeliteProcess) -> None:
    with _connect(server.insecure_port) as sock:
        started = time.monotonic()
        assert _closed_within(sock, 5)
        assert 0.8 < time.monotonic() - started < 4


def test_a_tls_connection_that_never_finishes_its_handshake_is_closed(server: KubeliteProcess) -> None:
    with _connect(server.secure_port) as sock:
        started = time.monotonic()
        assert _closed_within(sock, 5)
        assert 0.8 < time.monotonic() - started < 4


def test_an_idle_keep_alive_connection_is_closed_after_the_idle_timeout(server: KubeliteProcess) -> None:
    with _connect(server.insecure_port) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert _response(sock) == (200, b"ok")
        answered = time.monotonic()
        # still open before the idle timeout (2 s), although longer than the read-header timeout (1 s)
        assert not _closed_within(sock, 1.4)
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert _response(sock) == (200, b"ok")
        answered = time.monotonic()
        assert _closed_within(sock, 5)
        assert 1.5 < time.monotonic() - answered < 4.5


def test_slowloris_clients_are_closed_and_normal_clients_served_meanwhile(server: KubeliteProcess) -> None:
    slow = [_connect(server.insecure_port) for _ in range(200)]
    try:
        started = time.monotonic()
        open_ones = list(slow)
        served = 0
        head = b"GET /api/v1/namespaces HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "
        position = 0
        # one byte per client every 0.2 s, for at most 6 s: the head is never finished in time
        while open_ones and time.monotonic() - started < 6:
            still_open = []
            for sock in open_ones:
                try:
                    sock.send(head[position % len(head) : position % len(head) + 1])
                    still_open.append(sock)
                except OSError:
                    pass
            open_ones = [s for s in still_open if not _closed_within(s, 0)]
            position += 1
            status, _ = _get(server.insecure_port, "/healthz")
            assert status == 200
            served += 1
            time.sleep(0.2)
        assert open_ones == [], f"{len(open_ones)} slow clients still connected after {time.monotonic() - started:.1f}s"
        assert time.monotonic() - started < 4  # the read-header timeout is 1 s
        assert served >= 3
    finally:
        for sock in slow:
            sock.close()


def test_a_watch_outlives_both_timeouts(server: KubeliteProcess) -> None:
    with _connect(server.insecure_port) as sock:
        sock.sendall(
            b"GET /api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=6 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        )
        sock.settimeout(5)
        assert sock.recv(65536).startswith(b"HTTP/1.1 200 ")
        # quiet for longer than the read-header (1 s) and idle (2 s) timeouts
        assert not _closed_within(sock, 3.5)
        created = server.http(
            "POST", "/api/v1/namespaces/default/configmaps", {"metadata": {"name": "during-watch"}}
        )
        assert created.status == 201
        sock.settimeout(5)
        received = b""
        while b"during-watch" not in received:
            chunk = sock.recv(65536)
            assert chunk, "the watch was closed"
            received += chunk
        assert b'"type":"ADDED"' in received


def test_listen_backlog_is_somaxconn(server: KubeliteProcess) -> None:
    somaxconn = int(Path("/proc/sys/net/core/somaxconn").read_text())
    for port in (server.insecure_port, server.secure_port):
        out = subprocess.run(
            ["ss", "-ltnH", f"sport = :{port}"], capture_output=True, text=True, check=True, timeout=10
        ).stdout
        # for a listening socket, ss shows the backlog in the Send-Q column
        assert [line.split()[2] for line in out.splitlines()] == [str(min(somaxconn, 65535))]


# --- connections: file descriptors ----------------------------------------------------------------------


def _nofile(soft: int, hard: int) -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_the_soft_open_file_limit_is_raised_to_the_hard_one(tmp_path: Path) -> None:
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard < 1024 or hard == resource.RLIM_INFINITY:
        pytest.skip("needs a finite hard limit of at least 1024")
    proc = KubeliteProcess(tmp_path / "data", preexec_fn=lambda: _nofile(256, hard)).start()
    try:
        assert proc.proc is not None
        limits = Path(f"/proc/{proc.proc.pid}/limits").read_text()
        line = next(line for line in limits.splitlines() if line.startswith("Max open files"))
        assert line.split()[3:5] == [str(hard), str(hard)]
    finally:
        proc.stop()


def test_descriptor_exhaustion_is_logged_and_normal_clients_are_served_after_idle_ones_close(tmp_path: Path) -> None:
    proc = KubeliteProcess(
        tmp_path / "data", extra_args=SHORT_TIMEOUTS, preexec_fn=lambda: _nofile(256, 256)
    ).start()
    idle: list[socket.socket] = []
    try:
        # more idle connections than the server has descriptors: the surplus waits in the backlog
        for _ in range(400):
            idle.append(socket.create_connection(("127.0.0.1", proc.insecure_port), timeout=10))
        started = time.monotonic()
        status, body = _get(proc.insecure_port, "/api/v1/namespaces/default")
        assert status == 200 and json.loads(body)["metadata"]["name"] == "default"
        assert time.monotonic() - started < 10
        # every idle one is closed by the server (after the read-header timeout, once it was accepted)
        deadline = time.monotonic() + 15
        assert all(_closed_within(sock, max(0.0, deadline - time.monotonic())) for sock in idle)
        assert _get(proc.insecure_port, "/healthz") == (200, b"ok")
        assert proc.log_path is not None
        log = proc.log_path.read_text()
        assert re.search(r"ERROR kubelite\.server\.listener: http://127\.0\.0\.1:\d+: accept failed: "
                         r"\[Errno 24\] Too many open files; retrying in \d+ms \(1 failed accepts since the last "
                         r"report, 1 in all\)", log), log[-2000:]
    finally:
        for sock in idle:
            sock.close()
        proc.stop()


# --- heads: kube's 1 MiB ----------------------------------------------------------------------------------


def test_a_long_label_selector_and_large_headers_are_served(server: KubeliteProcess) -> None:
    selector = ",".join(f"key{i}!=x" for i in range(3000))  # about 30 KB, beyond aiohttp's 8 KiB
    assert len(selector) > 8190
    result = server.http(
        "GET",
        f"/api/v1/namespaces/default/configmaps?labelSelector={selector}",
        headers={"X-Large": "a" * 200_000, **{f"X-Many-{i}": "b" * 40 for i in range(2000)}},
    )
    assert result.status == 200, result.body[:300]
    assert result.json()["kind"] == "ConfigMapList"


def _expect_431(port: int, request: bytes) -> None:
    with _connect(port) as sock:
        try:
            sock.sendall(request)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server stopped reading: its answer is still to be read
        status, body = _response(sock)
    assert status == 431
    assert json.loads(body) == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": "Request Header Fields Too Large: the request line and headers exceed 1048576 bytes",
        "reason": "",
        "code": 431,
    }


@pytest.mark.parametrize(
    "request_head",
    [
        # beyond Go's 4 KiB of slack past the 1 MiB
        b"GET /api/v1/namespaces?labelSelector=" + b"a" * ((1 << 20) + 8192) + b" HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nX-Large: " + b"a" * ((1 << 20) + 8192) + b"\r\n\r\n",
        b"GET /api/v1/namespaces HTTP/1.1\r\nHost: x\r\n"
        + b"".join(b"X-Many-%d: %s\r\n" % (i, b"b" * 50) for i in range(20000))
        + b"\r\n",
    ],
    ids=["url", "one-header", "many-headers"],
)
def test_a_head_over_1mib_gets_431_as_a_status(server: KubeliteProcess, request_head: bytes) -> None:
    _expect_431(server.insecure_port, request_head)
    assert _get(server.insecure_port, "/healthz") == (200, b"ok")


def test_a_head_just_under_1mib_is_served(server: KubeliteProcess) -> None:
    head = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Large: %s\r\n\r\n"
    request = head % (b"a" * ((1 << 20) - len(head)))
    with _connect(server.insecure_port) as sock:
        sock.sendall(request)
        assert _response(sock) == (200, b"ok")


# --- client certificates --------------------------------------------------------------------------------


def _issue(
    path: Path,
    name: str,
    issuer: tuple[x509.Certificate, ec.EllipticCurvePrivateKey] | None,
    *,
    usage: x509.ObjectIdentifier = ExtendedKeyUsageOID.CLIENT_AUTH,
    not_after: dt.datetime | None = None,
) -> tuple[Path, Path]:
    """A client certificate for `name` (self-signed CA when `issuer` is None) written as PEM cert and key."""
    key = ec.generate_private_key(ec.SECP256R1())
    now = dt.datetime.now(dt.UTC)
    subject = x509.Name(
        [x509.NameAttribute(NameOID.ORGANIZATION_NAME, "system:masters"), x509.NameAttribute(NameOID.COMMON_NAME, name)]
    )
    signer_cert, signer_key = issuer if issuer else (None, key)
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(signer_cert.subject if signer_cert else subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=30))
        .not_valid_after(not_after or now + dt.timedelta(days=30))
        .add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
    )
    cert = builder.sign(signer_key, hashes.SHA256())
    cert_path, key_path = path / f"{name}.crt", path / f"{name}.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return cert_path, key_path


@pytest.fixture(scope="module")
def bad_certs(server: KubeliteProcess, tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, Path]]:
    where = tmp_path_factory.mktemp("certs")
    pki = server.data_dir / "pki"
    ca = (
        x509.load_pem_x509_certificate((pki / "ca.crt").read_bytes()),
        serialization.load_pem_private_key((pki / "ca.key").read_bytes(), None),
    )
    assert isinstance(ca[1], ec.EllipticCurvePrivateKey)
    return {
        "other-ca": _issue(where, "stranger", None),
        "expired": _issue(where, "expired", ca, not_after=dt.datetime.now(dt.UTC) - dt.timedelta(days=1)),  # type: ignore[arg-type]
        "server-usage": _issue(where, "server-usage", ca, usage=ExtendedKeyUsageOID.SERVER_AUTH),  # type: ignore[arg-type]
        "good": _issue(where, "good", ca),  # type: ignore[arg-type]
    }


def _tls_get(server: KubeliteProcess, path: str, cert: tuple[Path, Path]) -> tuple[int, bytes]:
    context = ssl.create_default_context(cafile=str(server.data_dir / "pki" / "ca.crt"))
    context.load_cert_chain(*cert)
    with _connect(server.secure_port) as raw, context.wrap_socket(raw, server_hostname="127.0.0.1") as sock:
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
        return _response(sock)


UNAUTHORIZED = {
    "kind": "Status",
    "apiVersion": "v1",
    "metadata": {},
    "status": "Failure",
    "message": "Unauthorized",
    "reason": "Unauthorized",
    "code": 401,
}


@pytest.mark.parametrize("which", ["other-ca", "expired", "server-usage"])
@pytest.mark.parametrize("path", ["/api/v1/namespaces", "/healthz"])
def test_an_unverifiable_client_certificate_gets_401_over_raw_tls(
    server: KubeliteProcess, bad_certs: dict[str, tuple[Path, Path]], which: str, path: str
) -> None:
    status, body = _tls_get(server, path, bad_certs[which])
    assert (status, json.loads(body)) == (401, UNAUTHORIZED)


def test_a_client_certificate_from_the_ca_authenticates(
    server: KubeliteProcess, bad_certs: dict[str, tuple[Path, Path]]
) -> None:
    status, body = _tls_get(server, "/api/v1/namespaces/default", bad_certs["good"])
    assert status == 200 and json.loads(body)["metadata"]["name"] == "default"


def _kubeconfig(server: KubeliteProcess, where: Path, cert: tuple[Path, Path]) -> Path:
    path = where / f"{cert[0].stem}.kubeconfig"
    path.write_text(
        json.dumps(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [
                    {
                        "name": "k",
                        "cluster": {
                            "server": server.secure_url,
                            "certificate-authority": str(server.data_dir / "pki" / "ca.crt"),
                        },
                    }
                ],
                "users": [{"name": "u", "user": {"client-certificate": str(cert[0]), "client-key": str(cert[1])}}],
                "contexts": [{"name": "c", "context": {"cluster": "k", "user": "u"}}],
                "current-context": "c",
            }
        )
    )
    return path


@pytest.mark.parametrize("which", ["other-ca", "expired", "server-usage"])
def test_kubectl_with_an_unverifiable_client_certificate_must_log_in(
    server: KubeliteProcess, bad_certs: dict[str, tuple[Path, Path]], tmp_path: Path, which: str
) -> None:
    kubeconfig = _kubeconfig(server, tmp_path, bad_certs[which])
    result = subprocess.run(
        [KUBECTL, "--kubeconfig", str(kubeconfig), "--cache-dir", str(tmp_path / "cache"), "get", "namespaces"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "KUBECONFIG": "/dev/null", "HOME": str(tmp_path)},
    )
    assert result.returncode == 1
    # kubectl's first request is discovery, whose client reports a 401 this way (as against kube-apiserver)
    assert result.stderr.strip().splitlines()[-1] == (
        "error: You must be logged in to the server (the server has asked for the client to provide credentials)"
    )


def test_kubectl_with_a_client_certificate_from_the_ca_works(
    server: KubeliteProcess, bad_certs: dict[str, tuple[Path, Path]], tmp_path: Path
) -> None:
    kubeconfig = _kubeconfig(server, tmp_path, bad_certs["good"])
    result = subprocess.run(
        [KUBECTL, "--kubeconfig", str(kubeconfig), "--cache-dir", str(tmp_path / "cache"), "get", "ns", "default",
         "-o", "name"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "KUBECONFIG": "/dev/null", "HOME": str(tmp_path)},
    )
    assert (result.returncode, result.stdout) == (0, "namespace/default\n"), result.stderr


# --- the insecure port ----------------------------------------------------------------------------------


def _serve_args(data_dir: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "kubelite", "serve", "--data-dir", str(data_dir), "--secure-port", "-1", *extra]


def test_a_non_loopback_insecure_address_is_refused(tmp_path: Path) -> None:
    result = subprocess.run(
        _serve_args(tmp_path / "data", "--insecure-port", "0", "--insecure-bind-address", "0.0.0.0"),
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 2
    assert result.stderr == (
        "kubelite: --insecure-bind-address 0.0.0.0 is not a loopback address, and the insecure port gives every"
        " caller cluster-admin without credentials; bind it to 127.0.0.1 or ::1, or acknowledge the exposure"
        " with --insecure-allow-non-loopback\n"
    )
    assert not (tmp_path / "data").exists()


def test_an_acknowledged_non_loopback_insecure_address_serves_and_warns_at_every_start(tmp_path: Path) -> None:
    proc = KubeliteProcess(
        tmp_path / "data", extra_args=["--insecure-bind-address", "0.0.0.0", "--insecure-allow-non-loopback"]
    )
    try:
        for _ in range(2):
            proc.start()
            assert proc.http("GET", "/healthz").status == 200
            proc.stop()
        assert proc.log_path is not None
        warnings = re.findall(
            r"WARNING kubelite: the insecure port on 0\.0\.0\.0 gives cluster-admin to anyone who can reach it,"
            r" without credentials \(--insecure-allow-non-loopback\)",
            proc.log_path.read_text(),
        )
        assert len(warnings) == 2
    finally:
        proc.stop()


# --- signals during start-up ----------------------------------------------------------------------------


def _wait_until_store_open(pid: int, database: Path) -> None:
    """Until the process holds the store's file open (start-up has reached it), then a moment more."""
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError):
            if any(os.readlink(fd) == str(database) for fd in Path(f"/proc/{pid}/fd").iterdir()):
                time.sleep(1.0)  # its first write is now waiting for the lock
                return
        time.sleep(0.05)
    raise AssertionError("start-up never opened the store")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_ends_a_start_up_stuck_on_a_locked_store(tmp_path: Path, sig: int) -> None:
    data_dir = tmp_path / "data"
    KubeliteProcess(data_dir).start().stop()  # a store to come back to
    database = sqlite3.connect(data_dir / "kubelite.db", timeout=5, isolation_level=None)
    database.execute("BEGIN EXCLUSIVE")  # the server's start-up now waits for the lock (10 s busy timeout)
    try:
        log = (tmp_path / "server.log").open("w")
        child = subprocess.Popen(
            _serve_args(data_dir, "--insecure-port", "0"), stdout=subprocess.PIPE, stderr=log, text=True
        )
        _wait_until_store_open(child.pid, data_dir / "kubelite.db")
        assert child.poll() is None
        signalled = time.monotonic()
        child.send_signal(sig)
        try:
            code = child.wait(timeout=8)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
            raise
        # a store write stuck on the lock is given 2 s to unwind (nothing was acknowledged), then not waited for
        assert time.monotonic() - signalled < 4
        assert code == 0, (tmp_path / "server.log").read_text()
        assert child.stdout is not None and "ready" not in child.stdout.read()
        child.stdout.close()
        assert "Traceback" not in (tmp_path / "server.log").read_text()
    finally:
        database.rollback()
        database.close()
        log.close()


def _handles_sigterm(pid: int) -> bool:
    """Whether the process has its own SIGTERM handler yet (the interpreter alone has none)."""
    status = Path(f"/proc/{pid}/status").read_text()
    caught = int(re.search(r"^SigCgt:\s*([0-9a-f]+)$", status, re.MULTILINE).group(1), 16)  # type: ignore[union-attr]
    return bool(caught & (1 << (signal.SIGTERM - 1)))


@pytest.mark.parametrize("stage", ["importing", "starting"])
def test_a_signal_early_in_start_up_exits_cleanly(tmp_path: Path, stage: str) -> None:
    child = subprocess.Popen(
        _serve_args(tmp_path / "data", "--insecure-port", "0"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    # the first moment a Python program can: its handler is installed, the server's modules not yet imported
    deadline = time.monotonic() + 10
    while not _handles_sigterm(child.pid) and time.monotonic() < deadline:
        time.sleep(0.005)
    if stage == "starting":
        time.sleep(1.0)
    child.send_signal(signal.SIGTERM)
    try:
        _, stderr = child.communicate(timeout=8)
    except subprocess.TimeoutExpired:
        child.kill()
        child.communicate()
        raise
    assert child.returncode == 0, stderr
    assert "Traceback" not in stderr


def _refuses_connections(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return True
    return False


@pytest.mark.parametrize("second", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_second_signal_exits_at_once_with_code_1(tmp_path: Path, second: int) -> None:
    proc = KubeliteProcess(tmp_path / "data").start()
    assert proc.proc is not None and proc.log_path is not None
    child = proc.proc
    try:
        # a request in flight: its body is still on its way, and a graceful shutdown waits for it (up to 1 s)
        upload = _connect(proc.insecure_port)
        upload.sendall(
            b"POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"kind\": \"ConfigMap\", "
        )
        time.sleep(0.3)
        # a request answered on another connection after it: the server has read the upload's head by now, and
        # its handler waits for the rest of the body
        assert _get(proc.insecure_port, "/healthz")[0] == 200
        child.send_signal(signal.SIGTERM)
        # the shutdown is under way: the port is closed, the process waits for the request in flight
        deadline = time.monotonic() + 5
        while not _refuses_connections(proc.insecure_port) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert _refuses_connections(proc.insecure_port)
        assert child.poll() is None
        signalled = time.monotonic()
        child.send_signal(second)
        try:
            child.wait(timeout=8)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
            raise
        assert time.monotonic() - signalled < 1.5
        assert child.returncode == 1
        assert f"second signal {signal.Signals(second).name}: exiting now" in proc.log_path.read_text()
        upload.close()
    finally:
        proc.stop()
