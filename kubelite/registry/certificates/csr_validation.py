"""CertificateSigningRequest validation (kube's pkg/apis/certificates/validation), on v1 JSON.

One set of rules serves create, update, /status and /approval; what differs is what each path may change
(`Options`): only /approval may add or change Approved and Denied, only /status may set the certificate, and
no path may drop an Approved, Denied or Failed condition once it is there.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cryptography import x509

from kubelite.apimachinery.meta import Obj
from kubelite.apimachinery.validation import (
    FieldError,
    is_dns1123_label,
    is_dns1123_subdomain,
)

LEGACY_UNKNOWN_SIGNER = "kubernetes.io/legacy-unknown"
APPROVED, DENIED, FAILED = "Approved", "Denied", "Failed"
#: these condition types may only ever be True
TRUE_ONLY_TYPES = frozenset({APPROVED, DENIED, FAILED})
ALL_STATUS_VALUES = ("False", "True", "Unknown")
MIN_EXPIRATION_SECONDS = 600

VALID_USAGES = tuple(
    sorted(
        (
            "signing",
            "digital signature",
            "content commitment",
            "key encipherment",
            "key agreement",
            "data encipherment",
            "cert sign",
            "crl sign",
            "encipher only",
            "decipher only",
            "any",
            "server auth",
            "client auth",
            "code signing",
            "email protection",
            "s/mime",
            "ipsec end system",
            "ipsec tunnel",
            "ipsec user",
            "timestamping",
            "ocsp signing",
            "microsoft sgc",
            "netscape sgc",
        )
    )
)

_DNS1123_SUBDOMAIN_MAX = 253
_DNS1123_LABEL_MAX = 63


@dataclass(frozen=True)
class Options:
    allow_setting_approval_conditions: bool = False
    allow_setting_certificate: bool = False
    #: tolerated when the stored object already has both (compatibility)
    allow_both_approved_and_denied: bool = False
    allow_duplicate_condition_types: bool = False
    allow_empty_condition_type: bool = False
    allow_arbitrary_certificate: bool = False
    allow_unknown_usages: bool = False
    allow_duplicate_usages: bool = False
    allow_resetting_certificate: bool = False


def _spec(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    spec = obj.get("spec")
    return spec if isinstance(spec, dict) else {}


def _status(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    status = obj.get("status")
    return status if isinstance(status, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def conditions_of(obj: Mapping[str, Any]) -> list[Obj]:
    found = _status(obj).get("conditions")
    return [c for c in found if isinstance(c, dict)] if isinstance(found, list) else []


def decode_bytes(value: Any) -> bytes | None:
    """A []byte field of the JSON form (standard base64); None when it is not valid base64."""
    if not isinstance(value, str):
        return None
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return None


def _pem_blocks(data: bytes) -> list[tuple[str, bool, bytes]]:
    """Go's pem.Decode over the whole input: (type, has headers, DER) of each well-formed block."""
    blocks: list[tuple[str, bool, bytes]] = []
    text = data.decode("latin-1")
    while True:
        start = text.find("-----BEGIN ")
        if start < 0:
            return blocks
        head_end = text.find("-----", start + 11)
        if head_end < 0:
            return blocks
        kind = text[start + 11 : head_end]
        end_marker = f"-----END {kind}-----"
        end = text.find(end_marker, head_end)
        if end < 0:
            return blocks
        body = text[head_end + 5 : end].strip("\r\n")
        lines = body.splitlines()
        headers = False
        if any(":" in line for line in lines):
            headers = True
            blank = next((i for i, line in enumerate(lines) if not line.strip()), len(lines) - 1)
            lines = lines[blank + 1 :]
        try:
            der = base64.b64decode("".join(line.strip() for line in lines), validate=True)
        except (binascii.Error, ValueError):
            text = text[end + len(end_marker) :]
            continue
        blocks.append((kind, headers, der))
        text = text[end + len(end_marker) :]


def parse_csr(request: bytes) -> x509.CertificateSigningRequest:
    """certificates.ParseCSR: the first PEM block must be a CERTIFICATE REQUEST holding a PKCS#10 request."""
    blocks = _pem_blocks(request)
    if not blocks or blocks[0][0] != "CERTIFICATE REQUEST":
        raise ValueError("PEM block type must be CERTIFICATE REQUEST")
    try:
        return x509.load_der_x509_csr(blocks[0][2])
    except ValueError as exc:
        raise ValueError(f"x509: malformed certificate request: {exc}") from None


def _request_error(raw: Any) -> str | None:
    data = decode_bytes(raw) if raw is not None else b""
    if data is None:
        data = b""
    try:
        csr = parse_csr(data)
    except ValueError as exc:
        return str(exc)
    if not csr.is_signature_valid:
        return "x509: signature verification failure"
    return None


def _certificate_error(data: bytes) -> str | None:
    if not data:
        return None
    blocks = _pem_blocks(data)
    if not blocks:
        return "must contain at least one CERTIFICATE PEM block"
    for kind, headers, der in blocks:
        if kind != "CERTIFICATE":
            return f'only CERTIFICATE PEM blocks are allowed, found "{kind}"'
        if headers:
            return "no PEM block headers are permitted"
        try:
            x509.load_der_x509_certificate(der)
        except ValueError as exc:
            return f"x509: malformed certificate: {exc}"
    return None


def validate_signer_name(field: str, signer: str) -> list[FieldError]:
    """ValidateCertificateSigningRequestSignerName: `<fqdn>/<path>` of at most 571 characters."""
    if not signer:
        return [FieldError.required(field, "signerName must be provided")]
    segments = signer.split("/")
    if len(segments) != 2:
        return [
            FieldError.invalid(
                field, signer, "must be a fully qualified domain and path of the form 'example.com/signer-name'"
            )
        ]
    domain, path = segments
    errors: list[FieldError] = []
    if len(domain) > _DNS1123_SUBDOMAIN_MAX:
        errors.append(FieldError.too_long(field, domain, _DNS1123_SUBDOMAIN_MAX))
    labels = domain.split(".")
    for label in labels:
        found = is_dns1123_label(label)
        if found:
            errors += [FieldError.invalid(field, domain, f'validating label "{label}": {msg}') for msg in found]
            break
    if len(labels) < 2:
        errors.append(
            FieldError.invalid(field, domain, "should be a domain with at least two segments separated by dots")
        )
    for label in path.split("."):
        found = is_dns1123_subdomain(label)
        if found:
            errors += [FieldError.invalid(field, path, f'validating label "{label}": {msg}') for msg in found]
            break
    longest = _DNS1123_SUBDOMAIN_MAX + (_DNS1123_SUBDOMAIN_MAX + _DNS1123_LABEL_MAX + 1) + 1
    if len(signer) > longest:
        errors.append(FieldError.too_long(field, signer, longest))
    return errors


def _validate_conditions(obj: Obj, opts: Options) -> list[FieldError]:
    errors: list[FieldError] = []
    seen: set[str] = set()
    approved = denied = False
    for i, condition in enumerate(conditions_of(obj)):
        path = f"status.conditions[{i}]"
        kind = str(condition.get("type") or "")
        if not opts.allow_empty_condition_type and not kind:
            errors.append(FieldError.required(f"{path}.type"))
        allowed = ("True",) if kind in TRUE_ONLY_TYPES else ALL_STATUS_VALUES
        status = condition.get("status") or ""
        if not status:
            errors.append(FieldError.required(f"{path}.status"))
        elif status not in allowed:
            errors.append(FieldError.not_supported(f"{path}.status", status, allowed))
        if not opts.allow_both_approved_and_denied:
            if kind == APPROVED:
                approved = True
                if denied:
                    errors.append(
                        FieldError.invalid(
                            f"{path}.type", kind, "Approved and Denied conditions are mutually exclusive"
                        )
                    )
            elif kind == DENIED:
                denied = True
                if approved:
                    errors.append(
                        FieldError.invalid(
                            f"{path}.type", kind, "Approved and Denied conditions are mutually exclusive"
                        )
                    )
        if not opts.allow_duplicate_condition_types:
            if kind in seen:
                errors.append(FieldError.duplicate(f"{path}.type", kind))
            seen.add(kind)
    return errors


def validate(obj: Obj, opts: Options = Options()) -> list[FieldError]:
    """validateCertificateSigningRequest, without the metadata (the Store checks that)."""
    spec = _spec(obj)
    errors: list[FieldError] = []
    request_error = _request_error(spec.get("request"))
    if request_error is not None:
        errors.append(FieldError.invalid("spec.request", spec.get("request") or "", request_error))
    usages = _list(spec.get("usages"))
    if not usages:
        errors.append(FieldError.required("spec.usages", "usages must be provided"))
    if not opts.allow_unknown_usages:
        for i, usage in enumerate(usages):
            if usage not in VALID_USAGES:
                errors.append(FieldError.not_supported(f"spec.usages[{i}]", usage, VALID_USAGES))
    if not opts.allow_duplicate_usages:
        seen: set[Any] = set()
        for i, usage in enumerate(usages):
            key = str(usage)
            if key in seen:
                errors.append(FieldError.duplicate(f"spec.usages[{i}]", usage))
            seen.add(key)
    signer = str(spec.get("signerName") or "")
    if signer == LEGACY_UNKNOWN_SIGNER:
        errors.append(
            FieldError.invalid("spec.signerName", signer, "the legacy signerName is not allowed via this API version")
        )
    else:
        errors += validate_signer_name("spec.signerName", signer)
    expiration = spec.get("expirationSeconds")
    if isinstance(expiration, int) and not isinstance(expiration, bool) and expiration < MIN_EXPIRATION_SECONDS:
        errors.append(
            FieldError.invalid(
                "spec.expirationSeconds", expiration, "may not specify a duration less than 600 seconds (10 minutes)"
            )
        )
    errors += _validate_conditions(obj, opts)
    if not opts.allow_arbitrary_certificate:
        certificate = decode_bytes(_status(obj).get("certificate")) or b""
        problem = _certificate_error(certificate)
        if problem is not None:
            errors.append(FieldError.invalid("status.certificate", "<certificate data>", problem))
    return errors


def _of_type(obj: Mapping[str, Any], kind: str) -> list[Obj]:
    return [c for c in conditions_of(obj) if c.get("type") == kind]


def options_for(new: Obj, old: Obj | None) -> Options:
    """getValidationOptions: what the stored object already breaks is tolerated in its update."""
    if old is None:
        return Options()
    old_conditions = conditions_of(old)
    types = [str(c.get("type") or "") for c in old_conditions]
    old_spec = _spec(old)
    old_usages = _list(old_spec.get("usages"))
    old_cert = decode_bytes(_status(old).get("certificate")) or b""
    return Options(
        allow_both_approved_and_denied=APPROVED in types and DENIED in types,
        allow_duplicate_condition_types=len(set(types)) != len(types),
        allow_empty_condition_type="" in types,
        allow_arbitrary_certificate=_certificate_error(old_cert) is not None,
        allow_unknown_usages=any(u not in VALID_USAGES for u in old_usages),
        allow_duplicate_usages=len({str(u) for u in old_usages}) != len(old_usages),
    )


def validate_update(new: Obj, old: Obj, *, approval: bool = False, status: bool = False) -> list[FieldError]:
    """validateCertificateSigningRequestUpdate for the main resource, /approval or /status."""
    base = options_for(new, old)
    opts = Options(
        **{**base.__dict__, "allow_setting_approval_conditions": approval, "allow_setting_certificate": status}
    )
    errors = validate(new, opts)
    for kind in (APPROVED, DENIED, FAILED):
        if len(_of_type(new, kind)) < len(_of_type(old, kind)):
            errors.append(
                FieldError.forbidden("status.conditions", f'updates may not remove a condition of type "{kind}"')
            )
    if not opts.allow_setting_approval_conditions:
        for kind in (APPROVED, DENIED):
            before, after = _of_type(old, kind), _of_type(new, kind)
            if len(after) > len(before):
                errors.append(
                    FieldError.forbidden("status.conditions", f'updates may not add a condition of type "{kind}"')
                )
            elif len(after) == len(before) and after != before:
                errors.append(
                    FieldError.forbidden("status.conditions", f'updates may not modify a condition of type "{kind}"')
                )
    new_cert = _status(new).get("certificate") or ""
    old_cert = _status(old).get("certificate") or ""
    if new_cert != old_cert:
        if not opts.allow_setting_certificate:
            errors.append(FieldError.forbidden("status.certificate", "updates may not set certificate content"))
        elif not opts.allow_resetting_certificate and old_cert:
            errors.append(
                FieldError.forbidden("status.certificate", "updates may not modify existing certificate content")
            )
    return errors
