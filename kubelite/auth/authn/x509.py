"""x509 client-certificate authentication: the identity in a TLS peer certificate (kube's x509 authenticator).

The TLS layer has already checked the chain against the client CA during the handshake; this module turns
the verified leaf into a UserInfo the way kube-apiserver's CommonNameUserConversion does: user = subject CN,
groups = subject O values, uid = the Kubernetes UID attribute when present, and the certificate's SHA-256
fingerprint as the credential id. It also insists on the clientAuth usage kube verifies chains for, so a
serving certificate from the same CA cannot be replayed as a client identity.
"""

from __future__ import annotations

import hashlib

from cryptography import x509
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from kubelite.auth.user import CREDENTIAL_ID_KEY, UserInfo

#: subject attribute carrying the user's UID (kube's `AllowParsingUserUIDFromCertAuth`, on by default)
UID_OID = x509.ObjectIdentifier("1.3.6.1.4.1.57683.2")

_CLIENT_USAGES = frozenset({ExtendedKeyUsageOID.CLIENT_AUTH, ExtendedKeyUsageOID.ANY_EXTENDED_KEY_USAGE})


class CertificateAuthError(Exception):
    """A certificate was presented but names no usable identity: answer 401, do not fall back to anonymous."""


def authenticate_peer_cert(der: bytes | None) -> UserInfo | None:
    """The user a verified peer certificate names, or None when there is no certificate or it has no CN.

    Raises CertificateAuthError for a certificate that is unusable for client authentication.
    """
    if not der:
        return None
    try:
        cert = x509.load_der_x509_certificate(der)
    except ValueError as e:
        raise CertificateAuthError(f"unable to parse client certificate: {e}") from e

    _require_client_auth(cert)

    subject = cert.subject
    # Like Go's pkix.Name, the last CN wins when a subject repeats it.
    common_names = [_text(a) for a in subject.get_attributes_for_oid(NameOID.COMMON_NAME)]
    if not common_names or not common_names[-1]:
        return None
    groups = tuple(_text(a) for a in subject.get_attributes_for_oid(NameOID.ORGANIZATION_NAME))
    fingerprint = hashlib.sha256(der).hexdigest()
    return UserInfo(
        name=common_names[-1],
        uid=_uid(subject),
        groups=groups,
        extra={CREDENTIAL_ID_KEY: (f"X509SHA256={fingerprint}",)},
    )


def _require_client_auth(cert: x509.Certificate) -> None:
    try:
        usages = cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value
    except x509.ExtensionNotFound:
        # No EKU extension means the certificate is not restricted to any purpose.
        return
    if not _CLIENT_USAGES.intersection(usages):
        raise CertificateAuthError("x509: certificate specifies an incompatible key usage")


def _uid(subject: x509.Name) -> str:
    values = subject.get_attributes_for_oid(UID_OID)
    if not values:
        return ""
    uids = []
    for attr in values:
        if not isinstance(attr.value, str):
            raise CertificateAuthError("unable to parse UID into a string")
        uids.append(attr.value)
    if len(uids) != 1:
        raise CertificateAuthError(f"expected 1 UID, but found multiple: [{' '.join(uids)}]")
    if not uids[0]:
        raise CertificateAuthError("UID cannot be an empty string")
    return uids[0]


def _text(attr: x509.NameAttribute) -> str:
    value = attr.value
    return value if isinstance(value, str) else value.decode("utf-8", "replace")
