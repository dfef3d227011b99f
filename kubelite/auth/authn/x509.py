"""x509 client-certificate authentication: the identity in a TLS peer certificate (kube's x509 authenticator).

As in kube-apiserver, the TLS handshake asks for a client certificate but accepts any (or none); this module
decides. `X509Authenticator` verifies the certificate against the client CA bundle (every certificate in it
is a root, as kube's --client-ca-file pool is): chain signature, validity at the time of the request, and
the clientAuth extended key usage, so a serving certificate from the same CA cannot be replayed as a client
identity. A certificate that fails gets a 401, never anonymous access. The verified leaf becomes a UserInfo
the way kube-apiserver's CommonNameUserConversion does: user = subject CN, groups = subject O values,
uid = the Kubernetes UID attribute when present, and the certificate's SHA-256 fingerprint as the
credential id.

Verifying costs about 150 microseconds, so each verified certificate's user is remembered (until the
certificate or the CA expires): a request pays one dictionary lookup.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import time
from pathlib import Path

from cryptography import x509
from cryptography.x509 import verification
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from kubelite.auth.user import CREDENTIAL_ID_KEY, UserInfo

log = logging.getLogger(__name__)

#: subject attribute carrying the user's UID (kube's `AllowParsingUserUIDFromCertAuth`, on by default)
UID_OID = x509.ObjectIdentifier("1.3.6.1.4.1.57683.2")

_CLIENT_USAGES = frozenset({ExtendedKeyUsageOID.CLIENT_AUTH, ExtendedKeyUsageOID.ANY_EXTENDED_KEY_USAGE})


class CertificateAuthError(Exception):
    """A certificate was presented but names no usable identity: answer 401, do not fall back to anonymous."""


#: verified certificates remembered at most; beyond, the memory starts afresh
_CACHE_SIZE = 4096


class X509Authenticator:
    """Verifies peer certificates against a client CA bundle and names their users; one per secure port."""

    def __init__(self, client_ca: Path) -> None:
        self._roots = x509.load_pem_x509_certificates(client_ca.read_bytes())
        self._store = verification.Store(self._roots)
        #: DER of a verified certificate -> (its user, or None when it names none; when it stops being valid)
        self._verified: dict[bytes, tuple[UserInfo | None, float]] = {}

    def authenticate(self, der: bytes | None) -> UserInfo | None:
        """The user a peer certificate names, or None for no certificate or one without a CN.

        Raises CertificateAuthError for a certificate that does not verify or is unusable for client auth.
        """
        if not der:
            return None
        known = self._verified.get(der)
        if known is not None and time.time() < known[1]:
            return known[0]
        user, valid_until = self._verify(der)
        if len(self._verified) >= _CACHE_SIZE:
            self._verified.clear()
        self._verified[der] = (user, valid_until)
        return user

    def _verify(self, der: bytes) -> tuple[UserInfo | None, float]:
        try:
            cert = x509.load_der_x509_certificate(der)
        except ValueError as e:
            raise CertificateAuthError(f"unable to parse client certificate: {e}") from e
        # Go's x509 checks signatures, validity and the CA's constraints, not the WebPKI's leaf profile (a
        # SAN, say), so the leaf's extensions are left to _require_client_auth
        verifier = (
            verification.PolicyBuilder()
            .store(self._store)
            .time(dt.datetime.now(dt.UTC))
            .extension_policies(
                ca_policy=verification.ExtensionPolicy.webpki_defaults_ca(),
                ee_policy=verification.ExtensionPolicy.permit_all(),
            )
            .build_client_verifier()
        )
        try:
            chain = verifier.verify(cert, []).chain
        except verification.VerificationError as e:
            failure = CertificateAuthError(f"verifying certificate {_identifier(cert)} failed: {e}")
            # the client only learns "Unauthorized"; kube-apiserver logs why, too
            log.info("Unable to authenticate the request due to an error: %s", failure)
            raise failure from e
        user = authenticate_peer_cert(der, cert)
        return user, min(c.not_valid_after_utc for c in chain).timestamp()


def _identifier(cert: x509.Certificate) -> str:
    """A certificate's name in errors (kube's certificateIdentifier names it by serial number as well)."""
    return f'SN={cert.serial_number}, subject="{cert.subject.rfc4514_string()}"'


def authenticate_peer_cert(der: bytes | None, cert: x509.Certificate | None = None) -> UserInfo | None:
    """The user an already verified peer certificate names, or None when there is none or it has no CN.

    Raises CertificateAuthError for a certificate that is unusable for client authentication.
    """
    if not der:
        return None
    if cert is None:
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
