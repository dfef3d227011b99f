"""The secure port's PKI, the admin kubeconfig and x509 client-cert authentication, over real TLS."""

from __future__ import annotations

import asyncio
import base64
import datetime as dt
import hashlib
import ipaddress
import json
import ssl
import stat
import subprocess
import time
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import yaml
from aiohttp import web
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from kubelite.auth import certs
from kubelite.auth.authn.x509 import UID_OID, CertificateAuthError, X509Authenticator, authenticate_peer_cert
from kubelite.auth.certs import PKI, ensure_pki, first_service_ip, write_kubeconfig
from kubelite.auth.user import CREDENTIAL_ID_KEY, UserInfo

KUBECTL = Path(__file__).resolve().parents[2] / ".venv" / "bin" / "kubectl"
HOSTS = ["node-1.example"]
IPS = ["192.0.2.10", "10.96.0.1"]
DEFAULT_DNS = [
    "localhost",
    "kubernetes",
    "kubernetes.default",
    "kubernetes.default.svc",
    "kubernetes.default.svc.cluster.local",
]


def _load(path: Path) -> x509.Certificate:
    return x509.load_pem_x509_certificate(path.read_bytes())


def _snapshot(pki: PKI) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(pki.cert_dir.iterdir())}


def _run(coro_fn: Callable[[], Coroutine[Any, Any, None]]) -> None:
    asyncio.run(coro_fn())


@pytest.fixture
def pki(tmp_path: Path) -> PKI:
    return ensure_pki(tmp_path / "pki", hosts=HOSTS, ips=IPS)


# --- files and certificate contents ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "mode"),
    [
        ("ca.crt", 0o644),
        ("ca.key", 0o600),
        ("apiserver.crt", 0o644),
        ("apiserver.key", 0o600),
        ("admin.crt", 0o644),
        ("admin.key", 0o600),
    ],
    ids=lambda v: str(v),
)
def test_files_and_modes(pki: PKI, name: str, mode: int) -> None:
    assert stat.S_IMODE((pki.cert_dir / name).stat().st_mode) == mode


def test_only_the_six_files_are_left(pki: PKI) -> None:
    assert sorted(p.name for p in pki.cert_dir.iterdir()) == [
        "admin.crt", "admin.key", "apiserver.crt", "apiserver.key", "ca.crt", "ca.key",
    ]  # fmt: skip


@pytest.mark.parametrize("name", ["ca.key", "apiserver.key", "admin.key"], ids=str)
def test_keys_are_ecdsa_p256(pki: PKI, name: str) -> None:
    pem = (pki.cert_dir / name).read_bytes()
    assert pem.startswith(b"-----BEGIN EC PRIVATE KEY-----\n")
    key = serialization.load_pem_private_key(pem, password=None)
    assert isinstance(key, ec.EllipticCurvePrivateKey)
    assert key.curve.name == "secp256r1"


def test_ca_certificate(pki: PKI) -> None:
    ca = _load(pki.ca_cert)
    assert ca.subject.rfc4514_string() == "CN=kubelite-ca"
    assert ca.issuer == ca.subject
    ca.verify_directly_issued_by(ca)
    assert ca.extensions.get_extension_for_class(x509.BasicConstraints).value.ca is True
    assert ca.not_valid_after_utc - ca.not_valid_before_utc == dt.timedelta(days=3650, minutes=5)
    assert isinstance(ca.signature_hash_algorithm, hashes.SHA256)


@pytest.mark.parametrize(
    ("name", "subject", "eku", "cert_sign", "validity"),
    [
        ("ca.crt", "CN=kubelite-ca", None, True, dt.timedelta(days=3650, minutes=5)),
        (
            "apiserver.crt",
            "CN=kube-apiserver",
            [ExtendedKeyUsageOID.SERVER_AUTH],
            False,
            dt.timedelta(days=365, minutes=5),
        ),
        (
            "admin.crt",
            "CN=kubelite-admin,O=system:masters",
            [ExtendedKeyUsageOID.CLIENT_AUTH],
            False,
            dt.timedelta(days=365, minutes=5),
        ),
    ],
    ids=["ca", "apiserver", "admin"],
)
def test_usages_subjects_and_validity(
    pki: PKI,
    name: str,
    subject: str,
    eku: list[x509.ObjectIdentifier] | None,
    cert_sign: bool,
    validity: dt.timedelta,
) -> None:
    cert = _load(pki.cert_dir / name)
    assert cert.subject.rfc4514_string() == subject
    ku_ext = cert.extensions.get_extension_for_class(x509.KeyUsage)
    assert ku_ext.critical is True
    ku = ku_ext.value
    assert (ku.digital_signature, ku.key_cert_sign, ku.key_encipherment, ku.crl_sign) == (
        True,
        cert_sign,
        False,
        False,
    )
    if eku is None:
        with pytest.raises(x509.ExtensionNotFound):
            cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage)
    else:
        assert list(cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value) == eku
        assert cert.extensions.get_extension_for_class(x509.BasicConstraints).value.ca is False
        cert.verify_directly_issued_by(_load(pki.ca_cert))
    assert cert.not_valid_after_utc - cert.not_valid_before_utc == validity


def test_admin_subject_attributes(pki: PKI) -> None:
    admin = _load(pki.admin_cert)
    assert [a.value for a in admin.subject.get_attributes_for_oid(NameOID.COMMON_NAME)] == ["kubelite-admin"]
    assert [a.value for a in admin.subject.get_attributes_for_oid(NameOID.ORGANIZATION_NAME)] == [
        "system:masters"
    ]


@pytest.mark.parametrize(
    ("hosts", "ips", "dns", "addrs"),
    [
        ([], [], DEFAULT_DNS, ["127.0.0.1", "::1"]),
        (HOSTS, IPS, [*DEFAULT_DNS, "node-1.example"], ["127.0.0.1", "::1", "192.0.2.10", "10.96.0.1"]),
        (["0.0.0.0"], ["::"], DEFAULT_DNS, ["127.0.0.1", "::1"]),
        (["Node-1.Example", "192.0.2.7", "[2001:db8::1]"], [], [*DEFAULT_DNS, "node-1.example"],
         ["127.0.0.1", "::1", "192.0.2.7", "2001:db8::1"]),
        (["localhost", "kubernetes"], ["127.0.0.1"], DEFAULT_DNS, ["127.0.0.1", "::1"]),
    ],
    ids=["defaults-only", "bind-and-service-ip", "wildcard-bind-skipped", "host-forms", "duplicates-merged"],
)  # fmt: skip
def test_serving_sans(
    tmp_path: Path, hosts: list[str], ips: list[str], dns: list[str], addrs: list[str]
) -> None:
    pki = ensure_pki(tmp_path, hosts=hosts, ips=ips)
    san = _load(pki.apiserver_cert).extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert san.get_values_for_type(x509.DNSName) == dns
    assert san.get_values_for_type(x509.IPAddress) == [ipaddress.ip_address(a) for a in addrs]


@pytest.mark.parametrize(
    ("cidr", "ip"),
    [("10.96.0.0/12", "10.96.0.1"), ("10.0.0.0/24", "10.0.0.1"), ("fd00:10:96::/112", "fd00:10:96::1")],
    ids=["kubeadm-default", "ipv4-24", "ipv6"],
)
def test_first_service_ip(cidr: str, ip: str) -> None:
    assert first_service_ip(cidr) == ip


# --- reuse and re-issue ----------------------------------------------------------------------------------


def test_second_call_reuses_everything(pki: PKI) -> None:
    before = _snapshot(pki)
    again = ensure_pki(pki.cert_dir, hosts=HOSTS, ips=IPS)
    assert again == pki
    assert _snapshot(pki) == before


@pytest.mark.parametrize(
    ("hosts", "ips", "changed"),
    [
        ([], [], []),
        (["node-1.example"], ["10.96.0.1"], []),
        (["NODE-1.example"], [], []),
        (["node-2.example"], [], ["apiserver.crt", "apiserver.key"]),
        (HOSTS, ["192.0.2.11"], ["apiserver.crt", "apiserver.key"]),
    ],
    ids=["subset-of-sans", "same-names", "case-insensitive", "new-host", "new-ip"],
)
def test_serving_cert_reissued_only_when_sans_do_not_cover(
    pki: PKI, hosts: list[str], ips: list[str], changed: list[str]
) -> None:
    before = _snapshot(pki)
    ensure_pki(pki.cert_dir, hosts=hosts, ips=ips)
    after = _snapshot(pki)
    assert sorted(name for name in before if before[name] != after[name]) == changed
    _load(pki.apiserver_cert).verify_directly_issued_by(_load(pki.ca_cert))


@pytest.mark.parametrize(
    ("tamper", "changed"),
    [
        ("ca.key", ["admin.crt", "admin.key", "apiserver.crt", "apiserver.key", "ca.crt", "ca.key"]),
        ("ca.crt", ["admin.crt", "admin.key", "apiserver.crt", "apiserver.key", "ca.crt", "ca.key"]),
        ("admin.key", ["admin.crt", "admin.key"]),
        ("admin.crt", ["admin.crt", "admin.key"]),
        ("apiserver.key", ["apiserver.crt", "apiserver.key"]),
    ],
    ids=["ca-key-gone", "ca-cert-gone", "admin-key-gone", "admin-cert-gone", "serving-key-gone"],
)
def test_missing_files_are_reissued(pki: PKI, tamper: str, changed: list[str]) -> None:
    before = _snapshot(pki)
    (pki.cert_dir / tamper).unlink()
    ensure_pki(pki.cert_dir, hosts=HOSTS, ips=IPS)
    after = _snapshot(pki)
    assert sorted(after) == sorted(before)
    assert sorted(name for name in before if before[name] != after[name]) == changed
    ca = _load(pki.ca_cert)
    for leaf in (pki.apiserver_cert, pki.admin_cert):
        _load(leaf).verify_directly_issued_by(ca)


def test_mismatched_key_is_reissued(pki: PKI) -> None:
    pki.admin_key.write_bytes(pki.apiserver_key.read_bytes())
    ensure_pki(pki.cert_dir, hosts=HOSTS, ips=IPS)
    key = serialization.load_pem_private_key(pki.admin_key.read_bytes(), password=None)
    assert key.public_key() == _load(pki.admin_cert).public_key()


def test_leaves_near_expiry_are_renewed_but_ca_kept(pki: PKI, monkeypatch: pytest.MonkeyPatch) -> None:
    before = _snapshot(pki)
    monkeypatch.setattr(certs, "RENEW_BEFORE", dt.timedelta(days=400))
    ensure_pki(pki.cert_dir, hosts=HOSTS, ips=IPS)
    after = _snapshot(pki)
    assert sorted(name for name in before if before[name] != after[name]) == [
        "admin.crt", "admin.key", "apiserver.crt", "apiserver.key",
    ]  # fmt: skip


def test_startup_cost(tmp_path: Path) -> None:
    start = time.perf_counter()
    ensure_pki(tmp_path, hosts=HOSTS, ips=IPS)
    first = time.perf_counter() - start
    start = time.perf_counter()
    ensure_pki(tmp_path, hosts=HOSTS, ips=IPS)
    second = time.perf_counter() - start
    assert first < 1.0, first
    assert second < 1.0, second


# --- kubeconfig ------------------------------------------------------------------------------------------


def _kubeconfig(pki: PKI, server_url: str = "https://127.0.0.1:6443") -> Path:
    path = pki.cert_dir.parent / "admin.kubeconfig"
    write_kubeconfig(path, server_url=server_url, pki=pki)
    return path


def test_kubeconfig_shape(pki: PKI) -> None:
    path = _kubeconfig(pki)

    def b64(p: Path) -> str:
        return base64.b64encode(p.read_bytes()).decode()

    assert yaml.safe_load(path.read_text()) == {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {
                "name": "kubelite",
                "cluster": {
                    "certificate-authority-data": b64(pki.ca_cert),
                    "server": "https://127.0.0.1:6443",
                },
            }
        ],
        "contexts": [{"name": "kubelite", "context": {"cluster": "kubelite", "user": "kubelite-admin"}}],
        "current-context": "kubelite",
        "preferences": {},
        "users": [
            {
                "name": "kubelite-admin",
                "user": {
                    "client-certificate-data": b64(pki.admin_cert),
                    "client-key-data": b64(pki.admin_key),
                },
            }
        ],
    }
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert sorted(p.name for p in path.parent.iterdir()) == ["admin.kubeconfig", "pki"]


def test_kubeconfig_rewrite_replaces_file(pki: PKI) -> None:
    path = _kubeconfig(pki)
    write_kubeconfig(path, server_url="https://10.0.0.1:6443", pki=pki, cluster_name="c", user="u")
    config = yaml.safe_load(path.read_text())
    assert (config["clusters"][0]["name"], config["clusters"][0]["cluster"]["server"]) == (
        "c",
        "https://10.0.0.1:6443",
    )
    assert config["contexts"] == [{"name": "kubelite", "context": {"cluster": "c", "user": "u"}}]
    assert config["users"][0]["name"] == "u"


def test_kubeconfig_loads_with_python_client(pki: PKI) -> None:
    from kubernetes import client, config

    cfg = client.Configuration()
    config.load_kube_config(config_file=str(_kubeconfig(pki)), client_configuration=cfg)
    assert cfg.host == "https://127.0.0.1:6443"
    assert Path(cfg.ssl_ca_cert).read_bytes() == pki.ca_cert.read_bytes()
    assert Path(cfg.cert_file).read_bytes() == pki.admin_cert.read_bytes()
    assert Path(cfg.key_file).read_bytes() == pki.admin_key.read_bytes()


def test_kubeconfig_loads_with_kubectl(pki: PKI) -> None:
    path = _kubeconfig(pki)
    out = subprocess.run(
        [str(KUBECTL), "config", "view", "--raw", "--kubeconfig", str(path), "-o", "json"],
        check=True,
        capture_output=True,
        text=True,
        timeout=30,
    ).stdout
    view = json.loads(out)
    assert view["current-context"] == "kubelite"
    assert view["clusters"][0]["cluster"]["server"] == "https://127.0.0.1:6443"
    user = view["users"][0]["user"]
    assert base64.b64decode(user["client-certificate-data"]) == pki.admin_cert.read_bytes()
    assert base64.b64decode(user["client-key-data"]) == pki.admin_key.read_bytes()


# --- x509 authenticator ----------------------------------------------------------------------------------


def _client_cert(
    pki: PKI,
    attrs: list[tuple[x509.ObjectIdentifier, str]],
    eku: list[x509.ObjectIdentifier] | None = None,
) -> bytes:
    ca_key = serialization.load_pem_private_key(pki.ca_key.read_bytes(), password=None)
    assert isinstance(ca_key, ec.EllipticCurvePrivateKey)
    key = ec.generate_private_key(ec.SECP256R1())
    now = dt.datetime.now(dt.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(oid, value) for oid, value in attrs]))
        .issuer_name(_load(pki.ca_cert).subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now)
        .not_valid_after(now + dt.timedelta(days=1))
    )
    if eku is not None:
        builder = builder.add_extension(x509.ExtendedKeyUsage(eku), critical=False)
    return builder.sign(ca_key, hashes.SHA256()).public_bytes(serialization.Encoding.DER)


CN, ORG = NameOID.COMMON_NAME, NameOID.ORGANIZATION_NAME
CLIENT, SERVER, ANY = (
    ExtendedKeyUsageOID.CLIENT_AUTH,
    ExtendedKeyUsageOID.SERVER_AUTH,
    ExtendedKeyUsageOID.ANY_EXTENDED_KEY_USAGE,
)


@pytest.mark.parametrize(
    ("attrs", "eku", "name", "uid", "groups"),
    [
        ([(CN, "alice")], [CLIENT], "alice", "", ()),
        ([(ORG, "dev"), (ORG, "ops"), (CN, "bob")], [CLIENT], "bob", "", ("dev", "ops")),
        ([(CN, "system:node:n1"), (ORG, "system:nodes")], None, "system:node:n1", "", ("system:nodes",)),
        ([(CN, "carol")], [SERVER, CLIENT], "carol", "", ()),
        ([(CN, "dave")], [ANY], "dave", "", ()),
        ([(CN, "first"), (CN, "last")], [CLIENT], "last", "", ()),
        ([(CN, "erin"), (UID_OID, "1234-abcd")], [CLIENT], "erin", "1234-abcd", ()),
    ],
    ids=["cn-only", "groups-in-order", "no-eku", "server-and-client", "any-eku", "last-cn-wins", "uid"],
)
def test_authenticate_peer_cert(
    pki: PKI,
    attrs: list[tuple[x509.ObjectIdentifier, str]],
    eku: list[x509.ObjectIdentifier] | None,
    name: str,
    uid: str,
    groups: tuple[str, ...],
) -> None:
    der = _client_cert(pki, attrs, eku)
    fingerprint = hashlib.sha256(der).hexdigest()
    assert authenticate_peer_cert(der) == UserInfo(
        name=name, uid=uid, groups=groups, extra={CREDENTIAL_ID_KEY: (f"X509SHA256={fingerprint}",)}
    )


@pytest.mark.parametrize(
    ("attrs", "eku"),
    [([(ORG, "dev")], [CLIENT]), ([], [CLIENT]), ([(ORG, "dev")], None)],
    ids=["groups-only", "empty-subject", "no-eku"],
)
def test_certificate_without_cn_is_no_user(
    pki: PKI, attrs: list[tuple[x509.ObjectIdentifier, str]], eku: list[x509.ObjectIdentifier] | None
) -> None:
    assert authenticate_peer_cert(_client_cert(pki, attrs, eku)) is None


@pytest.mark.parametrize("der", [None, b""], ids=["none", "empty"])
def test_no_certificate_is_no_user(der: bytes | None) -> None:
    assert authenticate_peer_cert(der) is None


@pytest.mark.parametrize(
    ("attrs", "eku", "message"),
    [
        ([(CN, "mallory")], [SERVER], "x509: certificate specifies an incompatible key usage"),
        ([(CN, "u"), (UID_OID, "a"), (UID_OID, "b")], [CLIENT], "expected 1 UID, but found multiple: [a b]"),
        ([(CN, "u"), (UID_OID, "")], [CLIENT], "UID cannot be an empty string"),
    ],
    ids=["server-only-eku", "two-uids", "empty-uid"],
)
def test_unusable_certificate_raises(
    pki: PKI, attrs: list[tuple[x509.ObjectIdentifier, str]], eku: list[x509.ObjectIdentifier], message: str
) -> None:
    with pytest.raises(CertificateAuthError) as info:
        authenticate_peer_cert(_client_cert(pki, attrs, eku))
    assert str(info.value) == message


def test_garbage_der_raises() -> None:
    with pytest.raises(CertificateAuthError, match=r"^unable to parse client certificate: "):
        authenticate_peer_cert(b"\x30\x03\x02\x01\x00")


def test_admin_cert_authenticates_as_admin(pki: PKI) -> None:
    der = _load(pki.admin_cert).public_bytes(serialization.Encoding.DER)
    user = authenticate_peer_cert(der)
    assert user is not None
    assert (user.name, user.uid, user.groups) == ("kubelite-admin", "", ("system:masters",))


# --- end to end over TLS ---------------------------------------------------------------------------------


async def _whoami(request: web.Request) -> web.Response:
    assert request.transport is not None
    ssl_object = request.transport.get_extra_info("ssl_object")
    user = authenticate_peer_cert(ssl_object.getpeercert(binary_form=True))
    body = {"user": user.name if user else None, "groups": list(user.groups) if user else []}
    return web.json_response(body)


@asynccontextmanager
async def _serve(pki: PKI) -> AsyncIterator[int]:
    app = web.Application()
    app.router.add_get("/whoami", _whoami)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=pki.server_ssl_context())
    await site.start()
    try:
        yield runner.addresses[0][1]
    finally:
        await runner.cleanup()


async def _get(port: int, ctx: ssl.SSLContext, server_hostname: str | None = None) -> dict[str, Any]:
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"https://127.0.0.1:{port}/whoami", ssl=ctx, server_hostname=server_hostname) as resp,
    ):
        assert resp.status == 200
        body: dict[str, Any] = await resp.json()
        return body


def _foreign_client_context(tmp_path: Path, pki: PKI) -> ssl.SSLContext:
    """Trusts our CA but presents a client cert from another CA with the same name."""
    other = ensure_pki(tmp_path / "other", hosts=[], ips=[])
    ctx = ssl.create_default_context(cafile=pki.ca_cert)
    ctx.load_cert_chain(other.admin_cert, other.admin_key)
    return ctx


@pytest.mark.parametrize(
    ("client_cert", "expected"),
    [
        (True, {"user": "kubelite-admin", "groups": ["system:masters"]}),
        (False, {"user": None, "groups": []}),
    ],
    ids=["admin-cert", "no-client-cert"],
)
def test_tls_peer_cert_reaches_the_app(pki: PKI, client_cert: bool, expected: dict[str, Any]) -> None:
    async def main() -> None:
        async with _serve(pki) as port:
            assert await _get(port, pki.client_ssl_context(client_cert=client_cert)) == expected

    _run(main)


def test_client_cert_from_foreign_ca_passes_handshake_and_fails_verification(tmp_path: Path, pki: PKI) -> None:
    """As in kube-apiserver, the handshake takes any client cert; the x509 authenticator refuses it."""

    async def main() -> None:
        async with _serve(pki) as port:
            # the app sees the unverified identity: the handshake did not refuse it
            assert await _get(port, _foreign_client_context(tmp_path, pki)) == {
                "user": "kubelite-admin",
                "groups": ["system:masters"],
            }

    _run(main)
    foreign = _load(PKI.at(tmp_path / "other").admin_cert).public_bytes(serialization.Encoding.DER)
    refused = r'^verifying certificate SN=\d+, subject="CN=kubelite-admin,O=system:masters" failed: .*signature'
    with pytest.raises(CertificateAuthError, match=refused):
        X509Authenticator(pki.ca_cert).authenticate(foreign)


def test_x509_authenticator_verifies_chain_validity_and_usage(tmp_path: Path, pki: PKI) -> None:
    authenticator = X509Authenticator(pki.ca_cert)
    admin = _load(pki.admin_cert).public_bytes(serialization.Encoding.DER)
    user = authenticator.authenticate(admin)
    assert user is not None and (user.name, user.groups) == ("kubelite-admin", ("system:masters",))
    assert authenticator.authenticate(admin) is user  # remembered, not verified again
    assert authenticator.authenticate(None) is None
    with pytest.raises(CertificateAuthError, match="incompatible key usage"):
        authenticator.authenticate(_client_cert(pki, [(CN, "mallory")], [SERVER]))
    ca_cert, ca_key = _load(pki.ca_cert), serialization.load_pem_private_key(pki.ca_key.read_bytes(), None)
    key = ec.generate_private_key(ec.SECP256R1())
    now = dt.datetime.now(dt.UTC)
    expired = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(CN, "old")]))
        .issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=10))
        .not_valid_after(now - dt.timedelta(days=1))
        .sign(ca_key, hashes.SHA256())  # type: ignore[arg-type]
    )
    with pytest.raises(CertificateAuthError, match="not valid at validation time"):
        authenticator.authenticate(expired.public_bytes(serialization.Encoding.DER))


@pytest.mark.parametrize(
    ("server_hostname", "ok"),
    [
        (None, True),
        ("localhost", True),
        ("kubernetes", True),
        ("kubernetes.default.svc", True),
        ("kubernetes.default.svc.cluster.local", True),
        ("node-1.example", True),
        ("kubernetes.default.svc.other.local", False),
        ("evil.example", False),
    ],
    ids=lambda v: str(v),
)
def test_serving_cert_names_verify(pki: PKI, server_hostname: str | None, ok: bool) -> None:
    async def main() -> None:
        async with _serve(pki) as port:
            ctx = pki.client_ssl_context()
            if ok:
                assert (await _get(port, ctx, server_hostname))["user"] == "kubelite-admin"
            else:
                with pytest.raises(aiohttp.ClientConnectorCertificateError):
                    await _get(port, ctx, server_hostname)

    _run(main)


def test_kubectl_authenticates_with_the_kubeconfig(pki: PKI) -> None:
    async def main() -> None:
        async with _serve(pki) as port:
            path = _kubeconfig(pki, f"https://127.0.0.1:{port}")
            proc = await asyncio.create_subprocess_exec(
                str(KUBECTL), "get", "--raw", "/whoami", "--kubeconfig", str(path),
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
            )  # fmt: skip
            out, err = await asyncio.wait_for(proc.communicate(), timeout=30)
            assert proc.returncode == 0, err.decode()
            assert json.loads(out) == {"user": "kubelite-admin", "groups": ["system:masters"]}

    _run(main)


def test_python_client_authenticates_with_the_kubeconfig(pki: PKI) -> None:
    from kubernetes import client, config

    def call(path: Path) -> Any:
        cfg = client.Configuration()
        config.load_kube_config(config_file=str(path), client_configuration=cfg)
        with client.ApiClient(cfg) as api:
            resp = api.call_api("/whoami", "GET", _preload_content=False, _return_http_data_only=True)
            return json.loads(resp.data)

    async def main() -> None:
        async with _serve(pki) as port:
            body = await asyncio.to_thread(call, _kubeconfig(pki, f"https://127.0.0.1:{port}"))
            assert body == {"user": "kubelite-admin", "groups": ["system:masters"]}

    _run(main)
