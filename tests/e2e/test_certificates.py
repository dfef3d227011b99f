"""CertificateSigningRequests end to end: the requestor is stamped, kubectl approves or denies, the signing
controller issues a certificate from the cluster CA, and that certificate authenticates on the secure port as
its CN and O."""

from __future__ import annotations

import base64
import datetime as dt
import http.client
import json
import ssl
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from tests.e2e.server import KubeliteProcess

CSRS = "/apis/certificates.k8s.io/v1/certificatesigningrequests"
CLIENT_SIGNER = "kubernetes.io/kube-apiserver-client"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KubeliteProcess]:
    args = ["--nodes=0", "--scheduler=false"]
    proc = KubeliteProcess(Path(tmp_path_factory.mktemp("certificates")), cluster=True, extra_args=args).start()
    yield proc
    proc.stop()


def key_and_request(
    cn: str, orgs: tuple[str, ...] = (), dns: tuple[str, ...] = ()
) -> tuple[ec.EllipticCurvePrivateKey, bytes]:
    key = ec.generate_private_key(ec.SECP256R1())
    names = [x509.NameAttribute(NameOID.COMMON_NAME, cn)] + [
        x509.NameAttribute(NameOID.ORGANIZATION_NAME, o) for o in orgs
    ]
    builder = x509.CertificateSigningRequestBuilder().subject_name(x509.Name(names))
    if dns:
        builder = builder.add_extension(x509.SubjectAlternativeName([x509.DNSName(d) for d in dns]), critical=False)
    return key, builder.sign(key, hashes.SHA256()).public_bytes(serialization.Encoding.PEM)


def csr_manifest(name: str, request: bytes, *, signer: str = CLIENT_SIGNER, usages: list[str] | None = None,
                 expiration: int | None = 3600) -> dict[str, Any]:  # fmt: skip
    spec: dict[str, Any] = {
        "request": base64.b64encode(request).decode(),
        "signerName": signer,
        "usages": usages if usages is not None else ["client auth"],
    }
    if expiration is not None:
        spec["expirationSeconds"] = expiration
    return {"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest", "metadata": {"name": name},
            "spec": spec}  # fmt: skip


def wait_for(what: str, probe: Any, timeout: float = 30) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        got = probe()
        if got:
            return got
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def get_csr(cluster: KubeliteProcess, name: str) -> dict[str, Any]:
    got = cluster.http("GET", f"{CSRS}/{name}")
    assert got.status == 200, got.body
    return dict(got.json())


def test_the_creator_is_stamped_and_the_spec_is_immutable(cluster: KubeliteProcess) -> None:
    _, request = key_and_request("stamped")
    body = csr_manifest("stamped", request)
    body["spec"].update({"username": "mallory", "groups": ["system:masters"], "uid": "forged"})
    body["status"] = {"conditions": [{"type": "Approved", "status": "True", "reason": "Forged"}]}
    created = cluster.http("POST", CSRS, body)
    assert created.status == 201, created.body
    csr = created.json()
    # the insecure port's user, whatever the client wrote
    assert (csr["spec"]["username"], csr["spec"].get("uid"), csr["spec"]["groups"]) == (
        "system:unsecured", None, ["system:masters", "system:authenticated"]
    )  # fmt: skip
    assert csr["status"] == {}
    changed = dict(csr, spec={**csr["spec"], "usages": ["server auth"], "username": "x"})
    replaced = cluster.http("PUT", f"{CSRS}/stamped", changed)
    assert replaced.status == 200, replaced.body
    assert replaced.json()["spec"] == csr["spec"]


def test_validation_uses_kubes_texts(cluster: KubeliteProcess) -> None:
    body = csr_manifest("bad", b"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
                        signer="example", usages=["client auth", "flying"], expiration=60)  # fmt: skip
    got = cluster.http("POST", CSRS, body)
    assert got.status == 422
    status = got.json()
    request = body["spec"]["request"]
    assert status["message"] == (
        'CertificateSigningRequest.certificates.k8s.io "bad" is invalid: ['
        f'spec.request: Invalid value: "{request}": PEM block type must be CERTIFICATE REQUEST, '
        'spec.usages[1]: Unsupported value: "flying": supported values: "any", "cert sign", "client auth", '
        '"code signing", "content commitment", "crl sign", "data encipherment", "decipher only", '
        '"digital signature", "email protection", "encipher only", "ipsec end system", "ipsec tunnel", '
        '"ipsec user", "key agreement", "key encipherment", "microsoft sgc", "netscape sgc", "ocsp signing", '
        '"s/mime", "server auth", "signing", "timestamping", '
        'spec.signerName: Invalid value: "example": must be a fully qualified domain and path of the form '
        "'example.com/signer-name', "
        "spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 600 seconds (10 minutes)]"
    )
    _, request_pem = key_and_request("x")
    missing = csr_manifest("bad2", request_pem, usages=[], signer="")
    got = cluster.http("POST", CSRS, missing)
    assert got.json()["message"] == (
        'CertificateSigningRequest.certificates.k8s.io "bad2" is invalid: ['
        "spec.usages: Required value: usages must be provided, "
        "spec.signerName: Required value: signerName must be provided]"
    )


def test_kubectl_approves_the_controller_signs_and_the_certificate_authenticates(
    cluster: KubeliteProcess, tmp_path: Path
) -> None:
    key, request = key_and_request("alice", ("devs", "qa"))
    assert cluster.http("POST", CSRS, csr_manifest("alice", request, expiration=1800)).status == 201
    table = cluster.kubectl("get", "csr", "alice").stdout.splitlines()
    assert table[0].split() == ["NAME", "AGE", "SIGNERNAME", "REQUESTOR", "REQUESTEDDURATION", "CONDITION"]
    row = table[1].split()
    assert (row[0], row[2:]) == ("alice", [CLIENT_SIGNER, "system:unsecured", "30m", "Pending"])
    time.sleep(0.5)
    assert "certificate" not in get_csr(cluster, "alice")["status"]  # nothing is signed before approval

    approved = cluster.kubectl("certificate", "approve", "alice")
    assert approved.stdout == "certificatesigningrequest.certificates.k8s.io/alice approved\n"
    csr = wait_for("the certificate", lambda: (c := get_csr(cluster, "alice"))["status"].get("certificate") and c)
    [condition] = csr["status"]["conditions"]
    assert {k: condition[k] for k in ("type", "status", "reason", "message")} == {
        "type": "Approved",
        "status": "True",
        "reason": "KubectlApprove",
        "message": "This CSR was approved by kubectl certificate approve.",
    }
    assert condition["lastUpdateTime"] and condition["lastTransitionTime"]
    assert cluster.kubectl("get", "csr", "alice").stdout.splitlines()[1].split()[-1] == "Approved,Issued"

    cert_pem = base64.b64decode(csr["status"]["certificate"])
    cert = x509.load_pem_x509_certificate(cert_pem)
    ca = x509.load_pem_x509_certificate((cluster.data_dir / "pki" / "ca.crt").read_bytes())
    assert cert.issuer == ca.subject
    assert cert.subject.rfc4514_string() == "O=qa,O=devs,CN=alice"
    # 30 minutes asked, from now, the start backdated 5 minutes
    assert cert.not_valid_after_utc - cert.not_valid_before_utc == dt.timedelta(minutes=35)
    eku = cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value
    assert list(eku) == [ExtendedKeyUsageOID.CLIENT_AUTH]

    cert_file, key_file = tmp_path / "alice.crt", tmp_path / "alice.key"
    cert_file.write_bytes(cert_pem)
    key_file.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    context = ssl.create_default_context(cafile=str(cluster.data_dir / "pki" / "ca.crt"))
    context.load_cert_chain(str(cert_file), str(key_file))
    conn = http.client.HTTPSConnection("127.0.0.1", cluster.secure_port, context=context, timeout=30)
    review = {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}
    conn.request("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", json.dumps(review),
                 {"Content-Type": "application/json"})  # fmt: skip
    response = conn.getresponse()
    body = json.loads(response.read())
    conn.close()
    assert response.status == 201, body
    user = body["status"]["userInfo"]
    assert (user["username"], user["groups"]) == ("alice", ["devs", "qa", "system:authenticated"])


def test_kubectl_deny_and_a_request_the_signer_refuses(cluster: KubeliteProcess) -> None:
    _, request = key_and_request("denied")
    assert cluster.http("POST", CSRS, csr_manifest("denied", request)).status == 201
    denied = cluster.kubectl("certificate", "deny", "denied")
    assert denied.stdout == "certificatesigningrequest.certificates.k8s.io/denied denied\n"
    csr = get_csr(cluster, "denied")
    assert [(c["type"], c["reason"]) for c in csr["status"]["conditions"]] == [("Denied", "KubectlDeny")]
    # kubectl refuses to approve it; written to /approval anyway, validation refuses it
    again = cluster.kubectl("certificate", "approve", "denied", check=False)
    assert (again.returncode, again.stderr) == (1, 'error: certificate signing request "denied" is already Denied\n')
    both = [*csr["status"]["conditions"], {"type": "Approved", "status": "True", "reason": "Sneaky"}]
    put = cluster.http("PUT", f"{CSRS}/denied/approval", dict(csr, status={"conditions": both}))
    assert (put.status, put.json()["message"]) == (
        422,
        'CertificateSigningRequest.certificates.k8s.io "denied" is invalid: '
        'status.conditions[1].type: Invalid value: "Approved": Approved and Denied conditions are mutually exclusive',
    )
    # nor may the main resource or /status drop the Denied condition
    cleared = cluster.http("PUT", f"{CSRS}/denied/status", dict(csr, status={"conditions": []}))
    assert (cleared.status, cleared.json()["message"]) == (
        422,
        'CertificateSigningRequest.certificates.k8s.io "denied" is invalid: '
        'status.conditions: Forbidden: updates may not remove a condition of type "Denied"',
    )
    time.sleep(0.5)
    assert "certificate" not in get_csr(cluster, "denied")["status"]

    _, request = key_and_request("server-use")
    body = csr_manifest("server-use", request, usages=["server auth"])
    assert cluster.http("POST", CSRS, body).status == 201
    cluster.kubectl("certificate", "approve", "server-use")

    def failed() -> Any:
        conditions = get_csr(cluster, "server-use")["status"].get("conditions") or []
        return next((c for c in conditions if c["type"] == "Failed"), None)

    condition = wait_for("the Failed condition", failed)
    assert {k: condition[k] for k in ("status", "reason", "message")} == {
        "status": "True",
        "reason": "SignerValidationFailure",
        "message": "invalid usage for client certificate: server auth",
    }
    csr = get_csr(cluster, "server-use")
    assert "certificate" not in csr["status"]
    assert cluster.kubectl("get", "csr", "server-use").stdout.splitlines()[1].split()[-1] == "Approved,Failed"


def test_a_kubelet_serving_certificate_is_signed_for_its_node(cluster: KubeliteProcess) -> None:
    _, request = key_and_request("system:node:n1", ("system:nodes",), dns=("n1.example.com",))
    usages = ["digital signature", "server auth"]
    body = csr_manifest("serving", request, signer="kubernetes.io/kubelet-serving", usages=usages, expiration=None)
    assert cluster.http("POST", CSRS, body).status == 201
    cluster.kubectl("certificate", "approve", "serving")
    csr = wait_for("the certificate", lambda: (c := get_csr(cluster, "serving"))["status"].get("certificate") and c)
    cert = x509.load_pem_x509_certificate(base64.b64decode(csr["status"]["certificate"]))
    san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert san.get_values_for_type(x509.DNSName) == ["n1.example.com"]
    # no expirationSeconds: the signer's one year, less the backdate
    assert cert.not_valid_after_utc - cert.not_valid_before_utc == dt.timedelta(days=365)
    assert cluster.kubectl("get", "csr", "serving").stdout.splitlines()[1].split()[-2] == "<none>"


def test_kubectl_create_stamps_the_kubeconfig_user(cluster: KubeliteProcess) -> None:
    _, request = key_and_request("from-kubectl")
    manifest = json.dumps(csr_manifest("from-kubectl", request, expiration=None))
    created = cluster.kubectl("create", "-f", "-", input=manifest)
    assert created.stdout == "certificatesigningrequest.certificates.k8s.io/from-kubectl created\n"
    spec = get_csr(cluster, "from-kubectl")["spec"]
    assert (spec["username"], spec["groups"]) == ("kubelite-admin", ["system:masters", "system:authenticated"])
    # the credential the request came with, as kube records it
    admin = x509.load_pem_x509_certificate((cluster.data_dir / "pki" / "admin.crt").read_bytes())
    fingerprint = admin.fingerprint(hashes.SHA256()).hex()
    assert spec["extra"] == {"authentication.kubernetes.io/credential-id": [f"X509SHA256={fingerprint}"]}
