"""CertificateSigningRequests: validation, the strategies' write rules, the table, and the signer's decisions."""

from __future__ import annotations

import base64
import datetime as dt
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from kubelite.controllers.certificates import signer
from kubelite.registry.catalog import BUILTIN_RESOURCES
from kubelite.registry.certificates import csr_validation
from kubelite.registry.certificates.certificatesigningrequests import (
    CSRApprovalStrategy,
    CSRStatusStrategy,
    CSRStrategy,
    stamp_requestor,
)
from kubelite.registry.tables.certificates import CSR_TABLE, condition_summary
from kubelite.util.clock import FakeClock

SPEC = next(s for s in BUILTIN_RESOURCES if s.resource == "certificatesigningrequests")
NOW = dt.datetime(2026, 1, 1, 12, 0, 0, tzinfo=dt.UTC)


def request_pem(
    cn: str = "alice", orgs: tuple[str, ...] = (), dns: tuple[str, ...] = (), ips: tuple[str, ...] = ()
) -> bytes:
    key = ec.generate_private_key(ec.SECP256R1())
    attrs = [x509.NameAttribute(NameOID.COMMON_NAME, cn)]
    attrs += [x509.NameAttribute(NameOID.ORGANIZATION_NAME, o) for o in orgs]
    builder = x509.CertificateSigningRequestBuilder().subject_name(x509.Name(attrs))
    names: list[x509.GeneralName] = [x509.DNSName(d) for d in dns]
    import ipaddress

    names += [x509.IPAddress(ipaddress.ip_address(i)) for i in ips]
    if names:
        builder = builder.add_extension(x509.SubjectAlternativeName(names), critical=False)
    return builder.sign(key, hashes.SHA256()).public_bytes(serialization.Encoding.PEM)


def csr(**spec: Any) -> dict[str, Any]:
    base = {
        "request": base64.b64encode(request_pem()).decode(),
        "signerName": "kubernetes.io/kube-apiserver-client",
        "usages": ["client auth"],
    }
    return {"metadata": {"name": "x"}, "spec": {**base, **spec}, "status": {}}


def messages(obj: dict[str, Any], **kwargs: Any) -> list[str]:
    return [str(e) for e in csr_validation.validate(obj, **kwargs)]


def test_a_valid_request_passes() -> None:
    assert messages(csr(expirationSeconds=600)) == []


def test_the_request_must_be_a_signed_pem_certificate_request() -> None:
    cert_block = base64.b64encode(b"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n").decode()
    assert messages(csr(request=cert_block)) == [
        f'spec.request: Invalid value: "{cert_block}": PEM block type must be CERTIFICATE REQUEST'
    ]
    garbage = base64.b64encode(b"-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----\n")
    [error] = messages(csr(request=garbage.decode()))
    assert error.startswith(f'spec.request: Invalid value: "{garbage.decode()}": x509: malformed certificate request')
    # a request whose signature does not match its content
    der = bytearray(x509.load_pem_x509_csr(request_pem()).public_bytes(serialization.Encoding.DER))
    der[-1] ^= 1
    tampered = (
        b"-----BEGIN CERTIFICATE REQUEST-----\n"
        + base64.encodebytes(bytes(der))
        + b"-----END CERTIFICATE REQUEST-----\n"
    )
    [error] = messages(csr(request=base64.b64encode(tampered).decode()))
    assert error.endswith(": x509: signature verification failure"), error


@pytest.mark.parametrize(
    ("signer_name", "expected"),
    [
        ("", ["spec.signerName: Required value: signerName must be provided"]),
        (
            "example.com/a/b",
            [
                'spec.signerName: Invalid value: "example.com/a/b": '
                "must be a fully qualified domain and path of the form 'example.com/signer-name'"
            ],
        ),
        (
            "example/signer",
            [
                'spec.signerName: Invalid value: "example": '
                "should be a domain with at least two segments separated by dots"
            ],
        ),
        (
            "kubernetes.io/legacy-unknown",
            [
                'spec.signerName: Invalid value: "kubernetes.io/legacy-unknown": '
                "the legacy signerName is not allowed via this API version"
            ],
        ),
        (
            "Example.com/x",
            [
                'spec.signerName: Invalid value: "Example.com": validating label "Example": a lowercase RFC 1123 '
                "label must consist of lower case alphanumeric characters or '-', and must start and end with an "
                "alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
                "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
            ],
        ),
    ],
)
def test_signer_names(signer_name: str, expected: list[str]) -> None:
    assert messages(csr(signerName=signer_name)) == expected


def test_usages_and_duration() -> None:
    assert messages(csr(usages=[])) == ["spec.usages: Required value: usages must be provided"]
    assert messages(csr(usages=["client auth", "client auth"])) == ['spec.usages[1]: Duplicate value: "client auth"']
    assert messages(csr(expirationSeconds=599)) == [
        "spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 600 seconds (10 minutes)"
    ]


def test_conditions_rules() -> None:
    obj = csr()
    obj["status"] = {
        "conditions": [
            {"type": "Approved", "status": "False"},
            {"type": "Denied", "status": "True"},
            {"type": "Denied", "status": "True"},
            {"type": "", "status": ""},
        ]
    }
    assert messages(obj) == [
        'status.conditions[0].status: Unsupported value: "False": supported values: "True"',
        'status.conditions[1].type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive',
        'status.conditions[2].type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive',
        'status.conditions[2].type: Duplicate value: "Denied"',
        "status.conditions[3].type: Required value",
        "status.conditions[3].status: Required value",
    ]


def test_only_approval_adds_approval_conditions_and_only_status_sets_the_certificate() -> None:
    old = csr()
    new = csr()
    new["spec"] = old["spec"]
    new["status"] = {"conditions": [{"type": "Approved", "status": "True"}]}
    assert [str(e) for e in csr_validation.validate_update(new, old)] == [
        'status.conditions: Forbidden: updates may not add a condition of type "Approved"'
    ]
    assert csr_validation.validate_update(new, old, approval=True) == []
    pem = b"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"
    issued = {**old, "status": {"certificate": base64.b64encode(pem).decode()}}
    assert next(str(e) for e in csr_validation.validate_update(issued, old, status=True)).startswith(
        'status.certificate: Invalid value: "<certificate data>": x509: malformed certificate'
    )
    assert "status.certificate: Forbidden: updates may not set certificate content" in [
        str(e) for e in csr_validation.validate_update(issued, old)
    ]


def test_the_strategies_keep_what_each_path_may_not_change() -> None:
    clock = FakeClock()
    main = CSRStrategy(SPEC)
    created = csr()
    created["status"] = {"conditions": [{"type": "Approved", "status": "True"}]}
    main.prepare_for_create(created)
    assert created["status"] == {}
    stamp_requestor(created, "bob", "u-1", ("devs",), {"scopes": ("a",)})
    assert {k: created["spec"][k] for k in ("username", "uid", "groups", "extra")} == {
        "username": "bob",
        "uid": "u-1",
        "groups": ["devs"],
        "extra": {"scopes": ["a"]},
    }
    stamp_requestor(created, "", "", (), {})
    assert not {"username", "uid", "groups", "extra"} & set(created["spec"])

    old = csr()
    old["status"] = {
        "conditions": [{"type": "Approved", "status": "True", "lastTransitionTime": "2020-01-01T00:00:00Z"}]
    }
    new = {**old, "spec": {"usages": ["server auth"]}, "status": {"certificate": "x"}}
    main.prepare_for_update(new, old)
    assert (new["spec"], new["status"]) == (old["spec"], old["status"])

    status = CSRStatusStrategy(main, clock)
    new = {
        **old,
        "spec": {},
        "status": {
            "certificate": "c",
            "conditions": [
                {"type": "Approved", "status": "True", "reason": "Changed"},
                {"type": "Failed", "status": "True"},
            ],
        },
    }
    status.prepare_for_update(new, old)
    assert new["spec"] == old["spec"]
    assert new["status"]["certificate"] == "c"
    approved, failed = new["status"]["conditions"]
    assert approved == old["status"]["conditions"][0]
    now = clock.now().strftime("%Y-%m-%dT%H:%M:%SZ")
    assert (failed["lastUpdateTime"], failed["lastTransitionTime"]) == (now, now)

    approval = CSRApprovalStrategy(main, clock)
    new = {
        **old,
        "status": {"certificate": "sneaky", "conditions": [{"type": "Approved", "status": "True", "reason": "R"}]},
    }
    approval.prepare_for_update(new, old)
    assert "certificate" not in new["status"]
    assert new["status"]["conditions"][0]["reason"] == "R"
    # the same type and status: the stored transition time stays
    assert new["status"]["conditions"][0]["lastTransitionTime"] == "2020-01-01T00:00:00Z"


def test_table_rows() -> None:
    obj = csr(expirationSeconds=86400, username="alice")
    obj["metadata"]["creationTimestamp"] = "2026-01-01T11:00:00Z"
    assert CSR_TABLE.column_names == ["Name", "Age", "SignerName", "Requestor", "RequestedDuration", "Condition"]
    assert CSR_TABLE.row(obj, NOW) == ["x", "60m", "kubernetes.io/kube-apiserver-client", "alice", "24h", "Pending"]
    obj["status"] = {"conditions": [{"type": "Approved"}, {"type": "Failed"}], "certificate": "Yw=="}
    assert condition_summary(obj) == "Approved,Failed,Issued"
    obj["status"] = {"conditions": [{"type": "Approved"}, {"type": "Denied"}]}
    assert condition_summary(obj) == "Denied"


# -- the signer ----------------------------------------------------------------------------------------------


def ca() -> signer.CertificateAuthority:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "test-ca")])
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(1)
        .not_valid_before(NOW - dt.timedelta(days=1))
        .not_valid_after(NOW + dt.timedelta(days=3650))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    return signer.CertificateAuthority(cert, key)


def test_only_approved_unfailed_unsigned_requests_of_our_signers_are_signed() -> None:
    approved = {
        "spec": {"signerName": signer.KUBE_APISERVER_CLIENT},
        "status": {"conditions": [{"type": "Approved", "status": "True"}]},
    }
    assert signer.wants_signing(approved)
    assert not signer.wants_signing({**approved, "status": {}})
    both = {"type": "Approved", "status": "True"}, {"type": "Denied", "status": "True"}
    assert not signer.wants_signing({**approved, "status": {"conditions": list(both)}})
    failed = [{"type": "Approved", "status": "True"}, {"type": "Failed", "status": "True"}]
    assert not signer.wants_signing({**approved, "status": {"conditions": failed}})
    assert not signer.wants_signing({**approved, "status": {**approved["status"], "certificate": "c"}})
    assert not signer.wants_signing({**approved, "spec": {"signerName": "example.com/other"}})


@pytest.mark.parametrize(
    ("signer_name", "request_args", "usages", "message"),
    [
        (
            signer.KUBE_APISERVER_CLIENT,
            {},
            ["client auth", "server auth"],
            "invalid usage for client certificate: server auth",
        ),
        (
            signer.KUBE_APISERVER_CLIENT,
            {},
            ["digital signature"],
            "missing required usage for client certificate: client auth",
        ),
        (
            signer.KUBE_APISERVER_CLIENT_KUBELET,
            {"cn": "system:node:a"},
            ["client auth"],
            "subject organization is not system:nodes",
        ),
        (
            signer.KUBE_APISERVER_CLIENT_KUBELET,
            {"cn": "a", "orgs": ("system:nodes",)},
            ["digital signature", "client auth"],
            "subject common name does not begin with 'system:node:'",
        ),
        (
            signer.KUBE_APISERVER_CLIENT_KUBELET,
            {"cn": "system:node:a", "orgs": ("system:nodes",), "dns": ("a",)},
            ["client auth"],
            "DNS subjectAltNames are not allowed",
        ),
        (
            signer.KUBE_APISERVER_CLIENT_KUBELET,
            {"cn": "system:node:a", "orgs": ("system:nodes",)},
            ["client auth"],
            "usages did not match [client auth digital signature key encipherment]",
        ),
        (
            signer.KUBELET_SERVING,
            {"cn": "system:node:a", "orgs": ("system:nodes",)},
            ["digital signature", "server auth"],
            "DNS or IP subjectAltName is required",
        ),
        (
            signer.KUBELET_SERVING,
            {"cn": "system:node:a", "orgs": ("system:nodes",), "ips": ("10.0.0.1",)},
            ["server auth"],
            "usages did not match [digital signature key encipherment server auth]",
        ),
    ],
)
def test_signers_refuse_with_kubes_messages(
    signer_name: str, request_args: dict[str, Any], usages: list[str], message: str
) -> None:
    req = x509.load_pem_x509_csr(request_pem(**request_args))
    with pytest.raises(signer.SignerValidationError) as raised:
        signer.validate_for_signer(req, usages, signer_name)
    assert str(raised.value) == message


def test_durations_and_the_issued_certificate() -> None:
    assert signer.duration(None) == dt.timedelta(days=365)
    assert signer.duration(60) == dt.timedelta(minutes=10)
    assert signer.duration(7200) == dt.timedelta(hours=2)
    assert signer.duration(10 * 365 * 86400) == dt.timedelta(days=365)
    authority = ca()
    req = x509.load_pem_x509_csr(request_pem("system:node:a", ("system:nodes",), dns=("a.example",), ips=("10.0.0.1",)))
    usages = ["digital signature", "key encipherment", "server auth"]
    signer.validate_for_signer(req, usages, signer.KUBELET_SERVING)
    cert = x509.load_pem_x509_certificate(signer.sign(authority, req, usages, dt.timedelta(hours=2), NOW))
    assert (cert.not_valid_before_utc, cert.not_valid_after_utc) == (
        NOW - dt.timedelta(minutes=5),
        NOW + dt.timedelta(hours=2),
    )
    assert cert.subject == req.subject and cert.issuer == authority.cert.subject
    key_usage = cert.extensions.get_extension_for_class(x509.KeyUsage).value
    assert (key_usage.digital_signature, key_usage.key_encipherment, key_usage.key_cert_sign) == (True, True, False)
    assert list(cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value) == [
        ExtendedKeyUsageOID.SERVER_AUTH
    ]
    assert cert.extensions.get_extension_for_class(x509.BasicConstraints).value.ca is False
    san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert san.get_values_for_type(x509.DNSName) == ["a.example"]
    authority.cert.public_key().verify(cert.signature, cert.tbs_certificate_bytes, ec.ECDSA(hashes.SHA256()))  # type: ignore[union-attr, call-arg]
    long = x509.load_pem_x509_certificate(signer.sign(authority, req, usages, dt.timedelta(days=365), NOW))
    assert long.not_valid_after_utc == NOW - dt.timedelta(minutes=5) + dt.timedelta(days=365)
