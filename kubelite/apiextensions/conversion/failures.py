"""The words Go's net/http, crypto/tls, crypto/x509 and client-go's rest client use for a failed webhook call.

kube passes these texts on to the client inside its conversion error (`conversion webhook for ... failed:
Post "https://...": dial tcp 10.0.0.7:443: connect: connection refused`), so users who know them recognise
them here. Python reports the same failures in its own terms (OpenSSL reason codes, errno values); this
module translates them, once, at the edge of the transport.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import os
import ssl

from cryptography import x509

from kubelite.apimachinery import gofmt

#: client-go quotes at most this much of an unstructured error body
MAX_ERROR_BODY = 2048

#: OpenSSL's name of a TLS alert received -> Go's text of it (crypto/tls alert.go)
_ALERTS = {
    "BAD_CERTIFICATE": "bad certificate",
    "UNSUPPORTED_CERTIFICATE": "unsupported certificate",
    "CERTIFICATE_REVOKED": "revoked certificate",
    "CERTIFICATE_EXPIRED": "expired certificate",
    "CERTIFICATE_UNKNOWN": "unknown certificate",
    "UNKNOWN_CA": "unknown certificate authority",
    "ACCESS_DENIED": "access denied",
    "DECODE_ERROR": "error decoding message",
    "DECRYPT_ERROR": "error decrypting message",
    "PROTOCOL_VERSION": "protocol version not supported",
    "INSUFFICIENT_SECURITY": "insufficient security level",
    "INTERNAL_ERROR": "internal error",
    "HANDSHAKE_FAILURE": "handshake failure",
    "CERTIFICATE_REQUIRED": "certificate required",
    "NO_APPLICATION_PROTOCOL": "no application protocol",
    "UNRECOGNIZED_NAME": "unrecognized name",
}
#: what OpenSSL says when the peer answered a ClientHello in plain text
_PLAINTEXT_PEER = {"WRONG_VERSION_NUMBER", "RECORD_LAYER_FAILURE", "PACKET_LENGTH_TOO_LONG", "HTTP_REQUEST"}


def dial_failure(address: str, error: OSError | None) -> str:
    """net.OpError of a failed connect: `dial tcp 127.0.0.1:8443: connect: connection refused`."""
    if error is not None and error.errno:
        reason = os.strerror(error.errno).lower()
    else:
        reason = str(error).lower() if error is not None else "connection failed"
    return f"dial tcp {address}: connect: {reason}"


def tls_failure(error: BaseException | None) -> str:
    """A handshake that failed for another reason than the peer's certificate."""
    reason = str(getattr(error, "reason", None) or error or "")
    if reason in _PLAINTEXT_PEER:
        return "http: server gave HTTP response to HTTPS client"
    for suffix, text in _ALERTS.items():
        if reason.endswith("ALERT_" + suffix):
            return f"remote error: tls: {text}"
    return f"tls: {reason.lower().replace('_', ' ')}"


def x509_failure(error: ssl.SSLCertVerificationError, host: str, peer: x509.Certificate | None) -> str:
    """Go's x509 verification error for what OpenSSL reports (`peer` names the names a mismatch lists)."""
    code = error.verify_code
    if code in (2, 18, 19, 20, 21):  # no chain to a trusted root
        return "x509: certificate signed by unknown authority"
    if code in (62, 64):
        return hostname_failure(host, peer)
    if code in (9, 10):
        return "x509: certificate has expired or is not yet valid"
    return f"x509: {error.verify_message}"


def hostname_failure(host: str, peer: x509.Certificate | None) -> str:
    """x509.HostnameError: the names the certificate is valid for, and the one asked for."""
    if peer is None:
        return f"x509: certificate is not valid for {host}"
    try:
        san = peer.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        san = None
    try:
        ipaddress.ip_address(host)
        asked_ip = True
    except ValueError:
        asked_ip = False
    if asked_ip:
        ips = [str(ip) for ip in san.get_values_for_type(x509.IPAddress)] if san else []
        if not ips:
            return f"x509: cannot validate certificate for {host} because it doesn't contain any IP SANs"
        valid = ", ".join(ips)
    else:
        if san is None:
            return "x509: certificate relies on legacy Common Name field, use SANs instead"
        valid = ", ".join(san.get_values_for_type(x509.DNSName))
    if not valid:
        return f"x509: certificate is not valid for any names, but wanted to match {host}"
    return f"x509: certificate is valid for {valid}, not {host}"


async def peer_certificate(host: str, port: int, server_name: str, timeout: float) -> x509.Certificate | None:
    """The certificate a peer presents, fetched without trusting it, to name what it is valid for; None when
    it cannot be had in `timeout`. Nothing is sent over the connection."""
    insecure = ssl.create_default_context()
    insecure.check_hostname = False
    insecure.verify_mode = ssl.CERT_NONE
    try:
        async with asyncio.timeout(timeout):
            _, writer = await asyncio.open_connection(host, port, ssl=insecure, server_hostname=server_name)
            try:
                ssl_object = writer.get_extra_info("ssl_object")
                der = ssl_object.getpeercert(binary_form=True) if ssl_object is not None else None
            finally:
                writer.close()
    except (OSError, TimeoutError, ssl.SSLError):
        return None
    return x509.load_der_x509_certificate(der) if der else None


def generic_server_message(code: int, body: bytes, content_type: str | None) -> str:
    """apimachinery's NewGenericServerResponse message for a non-2xx answer without a Status body."""
    text_response = True
    if content_type:
        text_response = content_type.split(";", 1)[0].strip().lower().startswith("text/")
    server_message = "unknown"
    if text_response:
        server_message = body[:MAX_ERROR_BODY].decode("utf-8", errors="replace").strip()
    fixed = {
        400: "the server rejected our request for an unknown reason",
        401: "the server has asked for the client to provide credentials",
        404: "the server could not find the requested resource",
        405: "the server does not allow this method on the requested resource",
        409: "the server reported a conflict",
        422: "the server rejected our request due to an error in our request",
        429: "the server has received too many requests and has asked us to try again later",
        503: "the server is currently unable to handle the request",
        504: "the server was unable to return a response in the time allotted, but may still be processing the request",
    }
    if code in fixed:
        return fixed[code]
    if code in (403, 415):
        return server_message
    if code == 406:
        if server_message in ("", "unknown"):
            return "the server was unable to respond with a content type that the client supports"
        return server_message
    if code >= 500:
        return f"an error on the server ({gofmt.quote(server_message)}) has prevented the request from succeeding"
    return f"the server responded with the status code {code} but did not return more information"


def failure_status_message(body: bytes) -> str | None:
    """The message of a v1 Status with status Failure in an error answer's body, which client-go prefers."""
    try:
        status = json.loads(body)
    except (ValueError, RecursionError):
        return None
    if (
        isinstance(status, dict)
        and status.get("kind") == "Status"
        and status.get("apiVersion") in (None, "", "v1")
        and status.get("status") == "Failure"
    ):
        message = status.get("message")
        return message if isinstance(message, str) else ""
    return None
