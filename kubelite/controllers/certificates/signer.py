"""What kube's CSR signing controller does with one CertificateSigningRequest (no I/O but the CA it is given).

Three of kube's built-in signers are served with kubelite's cluster CA: kube-apiserver-client (any client
certificate, usages within client auth, digital signature and key encipherment), kube-apiserver-client-kubelet
(a node's client certificate: O=system:nodes, CN=system:node:<name>, no SANs) and kubelet-serving (a node's
serving certificate: O=system:nodes, CN=system:node:<name>, DNS or IP SANs). A request is signed only once it
is Approved, not Denied and not Failed, and has no certificate yet; one a recognised signer refuses is marked
Failed with reason SignerValidationFailure. The certificate lasts the signer's TTL (kube's
--cluster-signing-duration, one year) or the request's expirationSeconds when shorter, at least 10 minutes.
"""

from __future__ import annotations

import base64
import datetime as dt
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed448, ed25519, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID, ObjectIdentifier

KUBE_APISERVER_CLIENT = "kubernetes.io/kube-apiserver-client"
KUBE_APISERVER_CLIENT_KUBELET = "kubernetes.io/kube-apiserver-client-kubelet"
KUBELET_SERVING = "kubernetes.io/kubelet-serving"
SIGNERS = (KUBE_APISERVER_CLIENT, KUBE_APISERVER_CLIENT_KUBELET, KUBELET_SERVING)

#: --cluster-signing-duration's default
DEFAULT_TTL = dt.timedelta(days=365)
#: the least a requested duration is honoured down to (twice the backdate)
MIN_DURATION = dt.timedelta(minutes=10)
#: certificates start this much in the past, for peers whose clocks lag
BACKDATE = dt.timedelta(minutes=5)
#: a duration this short is not cut by the backdate
SHORT = dt.timedelta(hours=8)

FAILED_REASON = "SignerValidationFailure"

_KEY_USAGES = {
    "signing": "digital_signature",
    "digital signature": "digital_signature",
    "content commitment": "content_commitment",
    "key encipherment": "key_encipherment",
    "key agreement": "key_agreement",
    "data encipherment": "data_encipherment",
    "cert sign": "key_cert_sign",
    "crl sign": "crl_sign",
    "encipher only": "encipher_only",
    "decipher only": "decipher_only",
}
_EXT_KEY_USAGES: dict[str, ObjectIdentifier] = {
    "any": ExtendedKeyUsageOID.ANY_EXTENDED_KEY_USAGE,
    "server auth": ExtendedKeyUsageOID.SERVER_AUTH,
    "client auth": ExtendedKeyUsageOID.CLIENT_AUTH,
    "code signing": ExtendedKeyUsageOID.CODE_SIGNING,
    "email protection": ExtendedKeyUsageOID.EMAIL_PROTECTION,
    "s/mime": ExtendedKeyUsageOID.EMAIL_PROTECTION,
    "ipsec end system": ObjectIdentifier("1.3.6.1.5.5.7.3.5"),
    "ipsec tunnel": ObjectIdentifier("1.3.6.1.5.5.7.3.6"),
    "ipsec user": ObjectIdentifier("1.3.6.1.5.5.7.3.7"),
    "timestamping": ExtendedKeyUsageOID.TIME_STAMPING,
    "ocsp signing": ExtendedKeyUsageOID.OCSP_SIGNING,
    "microsoft sgc": ObjectIdentifier("1.3.6.1.4.1.311.10.3.3"),
    "netscape sgc": ObjectIdentifier("2.16.840.1.113730.4.1"),
}

_KUBELET_CLIENT_USAGES = (
    {"digital signature", "key encipherment", "client auth"},
    {"digital signature", "client auth"},
)
_KUBELET_SERVING_USAGES = (
    {"digital signature", "key encipherment", "server auth"},
    {"digital signature", "server auth"},
)


class SignerValidationError(ValueError):
    """A recognised signer refuses the request: the CSR is marked Failed with this message."""


@dataclass(frozen=True)
class CertificateAuthority:
    cert: x509.Certificate
    key: Any  # a private key cryptography can sign with

    @classmethod
    def from_pem(cls, cert_pem: bytes, key_pem: bytes) -> CertificateAuthority:
        return cls(x509.load_pem_x509_certificate(cert_pem), serialization.load_pem_private_key(key_pem, None))


def _conditions(csr: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    found = (csr.get("status") or {}).get("conditions") or []
    return [c for c in found if isinstance(c, Mapping)]


def has_true_condition(csr: Mapping[str, Any], kind: str) -> bool:
    return any(c.get("type") == kind and c.get("status") == "True" for c in _conditions(csr))


def is_approved(csr: Mapping[str, Any]) -> bool:
    """IsCertificateRequestApproved: Approved and not Denied."""
    kinds = {c.get("type") for c in _conditions(csr)}
    return "Approved" in kinds and "Denied" not in kinds


def wants_signing(csr: Mapping[str, Any]) -> bool:
    """Approved, not Failed, one of our signers, and no certificate yet."""
    spec, status = csr.get("spec") or {}, csr.get("status") or {}
    return (
        not status.get("certificate")
        and is_approved(csr)
        and not has_true_condition(csr, "Failed")
        and spec.get("signerName") in SIGNERS
    )


def _organizations(req: x509.CertificateSigningRequest) -> list[str]:
    return [str(a.value) for a in req.subject.get_attributes_for_oid(NameOID.ORGANIZATION_NAME)]


def common_name(req: x509.CertificateSigningRequest) -> str:
    found = req.subject.get_attributes_for_oid(NameOID.COMMON_NAME)
    return str(found[0].value) if found else ""


def _sans(req: x509.CertificateSigningRequest) -> x509.SubjectAlternativeName | None:
    try:
        return req.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return None


def _san_values(req: x509.CertificateSigningRequest, kind: type[x509.GeneralName]) -> list[Any]:
    sans = _sans(req)
    return [] if sans is None else list(sans.get_values_for_type(kind))  # type: ignore[arg-type]


def _usages_error(usages: set[str], allowed: Sequence[set[str]]) -> None:
    if usages not in allowed:
        raise SignerValidationError(f"usages did not match [{' '.join(sorted(allowed[0]))}]")


def _check_node(req: x509.CertificateSigningRequest) -> None:
    if _organizations(req) != ["system:nodes"]:
        raise SignerValidationError("subject organization is not system:nodes")


def validate_for_signer(req: x509.CertificateSigningRequest, usages: Sequence[str], signer: str) -> None:
    """The signer's isRequestForSignerFn: raises SignerValidationError with kube's message."""
    if signer == KUBE_APISERVER_CLIENT:
        has_client_auth = False
        for usage in usages:
            if usage in ("digital signature", "key encipherment"):
                continue
            if usage == "client auth":
                has_client_auth = True
                continue
            raise SignerValidationError(f"invalid usage for client certificate: {usage}")
        if not has_client_auth:
            raise SignerValidationError("missing required usage for client certificate: client auth")
        return
    _check_node(req)
    if signer == KUBE_APISERVER_CLIENT_KUBELET:
        if _san_values(req, x509.DNSName):
            raise SignerValidationError("DNS subjectAltNames are not allowed")
        if _san_values(req, x509.RFC822Name):
            raise SignerValidationError("Email subjectAltNames are not allowed")
        if _san_values(req, x509.IPAddress):
            raise SignerValidationError("IP subjectAltNames are not allowed")
        if _san_values(req, x509.UniformResourceIdentifier):
            raise SignerValidationError("URI subjectAltNames are not allowed")
        if not common_name(req).startswith("system:node:"):
            raise SignerValidationError("subject common name does not begin with 'system:node:'")
        _usages_error(set(usages), _KUBELET_CLIENT_USAGES)
        return
    if signer == KUBELET_SERVING:
        if not _san_values(req, x509.DNSName) and not _san_values(req, x509.IPAddress):
            raise SignerValidationError("DNS or IP subjectAltName is required")
        if _san_values(req, x509.RFC822Name):
            raise SignerValidationError("Email subjectAltNames are not allowed")
        if _san_values(req, x509.UniformResourceIdentifier):
            raise SignerValidationError("URI subjectAltNames are not allowed")
        _usages_error(set(usages), _KUBELET_SERVING_USAGES)
        if not common_name(req).startswith("system:node:"):
            raise SignerValidationError("subject common name does not begin with 'system:node:'")
        return
    raise ValueError(f"not one of kubelite's signers: {signer}")


def duration(expiration_seconds: int | None, ttl: dt.timedelta = DEFAULT_TTL) -> dt.timedelta:
    """The signer's TTL, or the requested duration when shorter (never below 10 minutes)."""
    if expiration_seconds is None:
        return ttl
    requested = dt.timedelta(seconds=expiration_seconds)
    return min(ttl, max(MIN_DURATION, requested))


def validity(now: dt.datetime, length: dt.timedelta, ca_not_after: dt.datetime) -> tuple[dt.datetime, dt.datetime]:
    """notBefore is backdated; a short certificate keeps its whole length from now, a long one loses the
    backdate; neither outlives the CA."""
    not_before = now - BACKDATE
    not_after = now + length if length <= SHORT else not_before + length
    return not_before, min(not_after, ca_not_after)


def sign(
    ca: CertificateAuthority,
    req: x509.CertificateSigningRequest,
    usages: Sequence[str],
    length: dt.timedelta,
    now: dt.datetime,
) -> bytes:
    """A certificate for the request's subject, SANs and public key, as PEM."""
    public_key = req.public_key()
    signable = rsa.RSAPublicKey | ec.EllipticCurvePublicKey | ed25519.Ed25519PublicKey | ed448.Ed448PublicKey
    if not isinstance(public_key, signable):
        raise ValueError("unsupported public key type")
    not_before, not_after = validity(now, length, ca.cert.not_valid_after_utc)
    builder = (
        x509.CertificateBuilder()
        .subject_name(req.subject)
        .issuer_name(ca.cert.subject)
        .public_key(public_key)
        .serial_number(secrets.randbits(127) | 1)
        .not_valid_before(not_before)
        .not_valid_after(not_after)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
    )
    flags = {name: False for name in set(_KEY_USAGES.values())}
    for usage in usages:
        if usage in _KEY_USAGES:
            flags[_KEY_USAGES[usage]] = True
    if any(flags.values()):
        if not flags["key_agreement"]:
            flags["encipher_only"] = flags["decipher_only"] = False
        builder = builder.add_extension(x509.KeyUsage(**flags), critical=True)
    extended = list(dict.fromkeys(_EXT_KEY_USAGES[u] for u in usages if u in _EXT_KEY_USAGES))
    if extended:
        builder = builder.add_extension(x509.ExtendedKeyUsage(extended), critical=False)
    try:
        key_id = ca.cert.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value
        builder = builder.add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(key_id), critical=False
        )
    except x509.ExtensionNotFound:
        pass
    sans = _sans(req)
    if sans is not None and len(sans):
        builder = builder.add_extension(sans, critical=False)
    algorithm = None if isinstance(ca.key, ed25519.Ed25519PrivateKey | ed448.Ed448PrivateKey) else hashes.SHA256()
    return builder.sign(ca.key, algorithm).public_bytes(serialization.Encoding.PEM)


def encode(pem: bytes) -> str:
    """The []byte field's JSON form."""
    return base64.b64encode(pem).decode()


def failed_condition(message: str, now: str) -> dict[str, Any]:
    return {
        "type": "Failed",
        "status": "True",
        "reason": FAILED_REASON,
        "message": message,
        "lastUpdateTime": now,
    }
