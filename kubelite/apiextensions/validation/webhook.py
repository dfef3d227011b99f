"""A conversion webhook's client configuration: k8s.io/apiserver's webhook.ValidateWebhookURL,
ValidateWebhookService and ValidateCABundle, with their words.

The URL is judged the way Go's net/url parses it (`gourl`); the CA bundle must hold at least one PEM certificate, as
client-go's transport requires before it builds a TLS config.
"""

from __future__ import annotations

import re
from typing import Any

from cryptography import x509

from kubelite.apiextensions.validation import gourl
from kubelite.apiextensions.validation.internal import bytes_value, decode_base64
from kubelite.apimachinery.validation import FieldError, is_dns1123_subdomain

_URL_FORM = "; desired format: https://host[/path]"


def validate_webhook_url(path: str, url: str) -> list[FieldError]:
    try:
        parts = gourl.parse(url)
    except gourl.URLError as exc:
        return [FieldError.required(path, f"url must be a valid URL: {exc}{_URL_FORM}")]
    errs: list[FieldError] = []
    if parts.scheme != "https":
        errs.append(FieldError.invalid(path, parts.scheme, "'https' is the only allowed URL scheme" + _URL_FORM))
    if not parts.host:
        errs.append(FieldError.invalid(path, parts.host, "host must be specified" + _URL_FORM))
    if parts.user is not None:
        errs.append(FieldError.invalid(path, parts.user, "user information is not permitted in the URL"))
    if parts.fragment:
        errs.append(FieldError.invalid(path, parts.fragment, "fragments are not permitted in the URL"))
    if parts.raw_query:
        errs.append(FieldError.invalid(path, parts.raw_query, "query parameters are not permitted in the URL"))
    return errs


def validate_webhook_service(path: str, service: dict[str, Any]) -> list[FieldError]:
    errs: list[FieldError] = []
    name, namespace = service.get("name"), service.get("namespace")
    if not isinstance(name, str) or not name:
        errs.append(FieldError.required(f"{path}.name"))
    if not isinstance(namespace, str) or not namespace:
        errs.append(FieldError.required(f"{path}.namespace"))
    port = service.get("port", 443)
    if not isinstance(port, int) or isinstance(port, bool):
        port = 443 if port is None else 0
    if not 1 <= port <= 65535:
        errs.append(
            FieldError.invalid(f"{path}.port", port, "port is not valid: must be between 1 and 65535, inclusive")
        )
    url_path = service.get("path")
    if not isinstance(url_path, str) or url_path in ("", "/"):
        return errs
    if url_path == "//":
        return [*errs, FieldError.invalid(f"{path}.path", url_path, "segment[0] may not be empty")]
    if not url_path.startswith("/"):
        errs.append(FieldError.invalid(f"{path}.path", url_path, "must start with a '/'"))
    to_check = url_path[1:]
    if to_check.endswith("/"):
        to_check = to_check[:-1]
    for i, step in enumerate(to_check.split("/")):
        if not step:
            errs.append(FieldError.invalid(f"{path}.path", url_path, f"segment[{i}] may not be empty"))
            continue
        for failure in is_dns1123_subdomain(step):
            errs.append(FieldError.invalid(f"{path}.path", url_path, f"segment[{i}]: {failure}"))
    return errs


_PEM_BLOCK_RE = re.compile(rb"-----BEGIN ([^-\r\n]*)-----\r?\n(.*?)-----END \1-----", re.DOTALL)


def _ca_bundle_error(data: bytes) -> str | None:
    """Why client-go could not build a root pool of `data`, None when it holds a certificate."""
    blocks = _PEM_BLOCK_RE.findall(data)
    for kind, body in blocks:
        if kind != b"CERTIFICATE" or b":" in body.split(b"\n", 1)[0]:
            continue
        pem = b"-----BEGIN CERTIFICATE-----\n" + body + b"-----END CERTIFICATE-----\n"
        try:
            x509.load_pem_x509_certificate(pem)
        except ValueError:
            return "unable to load root certificates: failed to parse certificate: x509: malformed certificate"
        return None
    if not blocks:
        return "unable to load root certificates: unable to parse bytes as PEM block"
    return "unable to load root certificates: no valid certificate authority data seen"


def validate_ca_bundle(path: str, ca_bundle: str) -> list[FieldError]:
    data = decode_base64(ca_bundle)
    if data is None:
        return []  # not base64: the decoder rejects the object before validation
    if reason := _ca_bundle_error(data):
        return [FieldError.invalid(path, bytes_value(ca_bundle), reason)]
    return []
