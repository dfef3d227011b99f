"""The PKI of the secure port: a cluster CA, the apiserver's serving certificate and the admin client cert.

kubelite creates these on first start, the way `kubeadm init` populates /etc/kubernetes/pki and writes
admin.conf, so a fresh data directory is immediately usable over HTTPS by kubectl and client libraries.
Later starts reuse what is on disk; a certificate is only re-issued when it no longer fits (missing, not
signed by the current CA, expiring, or — for the serving cert — not covering the requested names), so
kubeconfigs handed out earlier keep working. ECDSA P-256 keeps key generation to milliseconds.
"""

from __future__ import annotations

import base64
import datetime as dt
import ipaddress
import logging
import os
import ssl
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml
from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from kubelite.auth.handshake import request_any_client_certificate
from kubelite.auth.user import SYSTEM_MASTERS
from kubelite.util.permissions import PRIVATE_FILE, tighten

CA_COMMON_NAME = "kubelite-ca"
APISERVER_COMMON_NAME = "kube-apiserver"
ADMIN_USER = "kubelite-admin"
ADMIN_GROUP = SYSTEM_MASTERS

CA_VALIDITY = dt.timedelta(days=3650)
LEAF_VALIDITY = dt.timedelta(days=365)
#: issued certificates start slightly in the past so a peer whose clock lags a little still accepts them
BACKDATE = dt.timedelta(minutes=5)
#: a leaf this close to expiry is re-issued at start-up rather than left to fail mid-run
RENEW_BEFORE = dt.timedelta(days=30)

CLUSTER_DOMAIN = "cluster.local"
#: names in-cluster clients use for the apiserver (the `kubernetes` Service), plus loopback
DEFAULT_SERVING_HOSTS: tuple[str, ...] = (
    "localhost",
    "kubernetes",
    "kubernetes.default",
    "kubernetes.default.svc",
    f"kubernetes.default.svc.{CLUSTER_DOMAIN}",
)
DEFAULT_SERVING_IPS: tuple[str, ...] = ("127.0.0.1", "::1")

_IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class PKI:
    """Where the certificates and keys live, and the TLS contexts built from them."""

    cert_dir: Path
    ca_cert: Path
    ca_key: Path
    apiserver_cert: Path
    apiserver_key: Path
    admin_cert: Path
    admin_key: Path

    @classmethod
    def at(cls, cert_dir: Path) -> PKI:
        return cls(
            cert_dir=cert_dir,
            ca_cert=cert_dir / "ca.crt",
            ca_key=cert_dir / "ca.key",
            apiserver_cert=cert_dir / "apiserver.crt",
            apiserver_key=cert_dir / "apiserver.key",
            admin_cert=cert_dir / "admin.crt",
            admin_key=cert_dir / "admin.key",
        )

    def server_ssl_context(self) -> ssl.SSLContext:
        """The secure port's context: serves apiserver.crt and asks for (but does not demand) a client cert.

        Any client cert is accepted in the handshake, as kube-apiserver's is: the x509 authenticator verifies
        it against the CA for each request and answers 401 when it does not verify. Without one the request
        goes on to the other authenticators (tokens, anonymous), as kube-apiserver allows.
        """
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.minimum_version = ssl.TLSVersion.TLSv1_2
        ctx.load_cert_chain(self.apiserver_cert, self.apiserver_key)
        ctx.load_verify_locations(cafile=self.ca_cert)
        ctx.verify_mode = ssl.CERT_OPTIONAL
        try:
            request_any_client_certificate(ctx)
        except (OSError, AttributeError, RuntimeError) as exc:
            # still safe: OpenSSL then verifies in the handshake, and the authenticator verifies again; only the
            # answer to a bad certificate differs (a broken handshake instead of a 401)
            log.warning("client certificates are verified in the TLS handshake: %s", exc)
        ctx.set_alpn_protocols(["http/1.1"])
        return ctx

    def client_ssl_context(self, *, client_cert: bool = True) -> ssl.SSLContext:
        """A client context trusting the CA, presenting the admin cert unless `client_cert` is false."""
        ctx = ssl.create_default_context(cafile=self.ca_cert)
        if client_cert:
            ctx.load_cert_chain(self.admin_cert, self.admin_key)
        return ctx


def first_service_ip(service_cidr: str) -> str:
    """The address the `kubernetes` Service gets: the first host of the service CIDR (10.96.0.0/12 -> .1)."""
    network = ipaddress.ip_network(service_cidr, strict=False)
    return str(network.network_address + 1)


def ensure_pki(cert_dir: Path, *, hosts: Sequence[str], ips: Sequence[str]) -> PKI:
    """Create the CA, serving and admin certificates under `cert_dir`, reusing whatever still fits.

    The serving cert covers DEFAULT_SERVING_HOSTS / DEFAULT_SERVING_IPS plus `hosts` and `ips` (a host that
    parses as an IP counts as an IP; wildcard bind addresses such as 0.0.0.0 are not names and are skipped).
    """
    pki = PKI.at(cert_dir)
    cert_dir.mkdir(parents=True, exist_ok=True)
    for key_path in (pki.ca_key, pki.apiserver_key, pki.admin_key):
        tighten(key_path, PRIVATE_FILE)  # a key found readable by others is made private again, with a warning
    now = dt.datetime.now(dt.UTC)

    ca = _load_pair(pki.ca_cert, pki.ca_key)
    ca_reused = ca is not None and _is_ca(ca[0]) and now < ca[0].not_valid_after_utc
    if ca is None or not ca_reused:
        ca = _issue_ca(now)
        _write_pair(pki.ca_cert, pki.ca_key, *ca)
    ca_cert, ca_key = ca

    want_dns, want_ips = _serving_names(hosts, ips)
    serving = _load_pair(pki.apiserver_cert, pki.apiserver_key)
    if serving is None or not (
        _leaf_is_current(serving[0], ca_cert, now) and _covers(serving[0], want_dns, want_ips)
    ):
        key = ec.generate_private_key(ec.SECP256R1())
        san = x509.SubjectAlternativeName(
            [x509.DNSName(h) for h in want_dns] + [x509.IPAddress(ip) for ip in want_ips]
        )
        subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, APISERVER_COMMON_NAME)])
        cert = _issue_leaf(subject, key, ca_cert, ca_key, now, ExtendedKeyUsageOID.SERVER_AUTH, san)
        _write_pair(pki.apiserver_cert, pki.apiserver_key, cert, key)

    admin_subject = x509.Name(
        [
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, ADMIN_GROUP),
            x509.NameAttribute(NameOID.COMMON_NAME, ADMIN_USER),
        ]
    )
    admin = _load_pair(pki.admin_cert, pki.admin_key)
    if admin is None or not (_leaf_is_current(admin[0], ca_cert, now) and admin[0].subject == admin_subject):
        key = ec.generate_private_key(ec.SECP256R1())
        cert = _issue_leaf(admin_subject, key, ca_cert, ca_key, now, ExtendedKeyUsageOID.CLIENT_AUTH, None)
        _write_pair(pki.admin_cert, pki.admin_key, cert, key)
    return pki


def write_kubeconfig(
    path: Path,
    *,
    server_url: str,
    pki: PKI,
    cluster_name: str = "kubelite",
    user: str = ADMIN_USER,
) -> None:
    """Write a self-contained kubeconfig (certs embedded as *-data), shaped like kubeadm's admin.conf."""

    def b64(p: Path) -> str:
        return base64.b64encode(p.read_bytes()).decode("ascii")

    context = "kubelite"
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {
                "name": cluster_name,
                "cluster": {"certificate-authority-data": b64(pki.ca_cert), "server": server_url},
            }
        ],
        "contexts": [{"name": context, "context": {"cluster": cluster_name, "user": user}}],
        "current-context": context,
        "preferences": {},
        "users": [
            {
                "name": user,
                "user": {
                    "client-certificate-data": b64(pki.admin_cert),
                    "client-key-data": b64(pki.admin_key),
                },
            }
        ],
    }
    text = yaml.safe_dump(config, default_flow_style=False, sort_keys=False)
    # The file holds the admin private key, hence owner-only.
    _atomic_write(path, text.encode("utf-8"), mode=0o600)


# --- issuing ---------------------------------------------------------------------------------------------

_Pair = tuple[x509.Certificate, ec.EllipticCurvePrivateKey]


def _issue_ca(now: dt.datetime) -> _Pair:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, CA_COMMON_NAME)])
    ski = x509.SubjectKeyIdentifier.from_public_key(key.public_key())
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - BACKDATE)
        .not_valid_after(now + CA_VALIDITY)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(_key_usage(cert_sign=True), critical=True)
        .add_extension(ski, critical=False)
        .sign(key, hashes.SHA256())
    )
    return cert, key


def _issue_leaf(
    subject: x509.Name,
    key: ec.EllipticCurvePrivateKey,
    ca_cert: x509.Certificate,
    ca_key: ec.EllipticCurvePrivateKey,
    now: dt.datetime,
    usage: x509.ObjectIdentifier,
    san: x509.SubjectAlternativeName | None,
) -> x509.Certificate:
    ca_ski = ca_cert.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - BACKDATE)
        .not_valid_after(min(now + LEAF_VALIDITY, ca_cert.not_valid_after_utc))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(_key_usage(cert_sign=False), critical=True)
        .add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(ca_ski), critical=False)
    )
    if san is not None:
        builder = builder.add_extension(san, critical=False)
    return builder.sign(ca_key, hashes.SHA256())


def _key_usage(*, cert_sign: bool) -> x509.KeyUsage:
    # ECDSA keys only sign; key encipherment is an RSA notion and is deliberately left out.
    return x509.KeyUsage(
        digital_signature=True,
        content_commitment=False,
        key_encipherment=False,
        data_encipherment=False,
        key_agreement=False,
        key_cert_sign=cert_sign,
        crl_sign=False,
        encipher_only=False,
        decipher_only=False,
    )


# --- checking what is on disk ----------------------------------------------------------------------------


def _serving_names(hosts: Iterable[str], ips: Iterable[str]) -> tuple[list[str], list[_IPAddress]]:
    dns: dict[str, None] = dict.fromkeys(DEFAULT_SERVING_HOSTS)
    addrs: dict[_IPAddress, None] = {ipaddress.ip_address(ip): None for ip in DEFAULT_SERVING_IPS}
    for host in hosts:
        host = host.strip().strip("[]")
        if not host:
            continue
        try:
            addrs[ipaddress.ip_address(host)] = None
        except ValueError:
            dns[host.lower()] = None
    for ip in ips:
        addrs[ipaddress.ip_address(ip.strip().strip("[]"))] = None
    return list(dns), [a for a in addrs if not a.is_unspecified]


def _covers(cert: x509.Certificate, dns: Sequence[str], ips: Sequence[_IPAddress]) -> bool:
    try:
        san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return False
    have_dns = {name.lower() for name in san.get_values_for_type(x509.DNSName)}
    have_ips = set(san.get_values_for_type(x509.IPAddress))
    return set(dns) <= have_dns and set(ips) <= have_ips


def _is_ca(cert: x509.Certificate) -> bool:
    try:
        return bool(cert.extensions.get_extension_for_class(x509.BasicConstraints).value.ca)
    except x509.ExtensionNotFound:
        return False


def _leaf_is_current(cert: x509.Certificate, ca_cert: x509.Certificate, now: dt.datetime) -> bool:
    if now + RENEW_BEFORE >= cert.not_valid_after_utc:
        return False
    try:
        cert.verify_directly_issued_by(ca_cert)
    except (ValueError, TypeError, InvalidSignature):
        return False
    return True


def _load_pair(cert_path: Path, key_path: Path) -> _Pair | None:
    """The cert and its key, or None when either is missing, unreadable, not ECDSA, or they do not match."""
    try:
        cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
        key = serialization.load_pem_private_key(key_path.read_bytes(), password=None)
    except (OSError, ValueError, TypeError):
        return None
    if not isinstance(key, ec.EllipticCurvePrivateKey) or key.public_key() != cert.public_key():
        return None
    return cert, key


# --- writing ---------------------------------------------------------------------------------------------


def _write_pair(
    cert_path: Path, key_path: Path, cert: x509.Certificate, key: ec.EllipticCurvePrivateKey
) -> None:
    # The key goes first: a crash in between leaves a cert without its key, which the next start rejects.
    key_pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption(),
    )
    _atomic_write(key_path, key_pem, mode=0o600)
    _atomic_write(cert_path, cert.public_bytes(serialization.Encoding.PEM), mode=0o644)


def _atomic_write(path: Path, data: bytes, *, mode: int) -> None:
    """Replace `path` in one step so readers (and a crash) never see a half-written file."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            # mkstemp creates the file 0600; widen only after, so a key is never briefly world-readable.
            os.fchmod(f.fileno(), mode)
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
