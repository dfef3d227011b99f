"""The CertificateSigningRequest table (kube's printCertificateSigningRequest)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kubelite.apimachinery.duration import SECOND, human_duration
from kubelite.apimachinery.meta import Obj
from kubelite.registry.tables.base import TableSpec, age, age_col, col, dig, items, name_col, name_of, text


def condition_summary(csr: Obj) -> str:
    """kubectl's CONDITION: Denied over Approved over Pending, then Failed and Issued."""
    kinds = {c.get("type") for c in items(csr, "status", "conditions") if isinstance(c, dict)}
    summary = "Denied" if "Denied" in kinds else "Approved" if "Approved" in kinds else "Pending"
    if "Failed" in kinds:
        summary += ",Failed"
    if text(csr, "status", "certificate"):
        summary += ",Issued"
    return summary


def _requested_duration(csr: Obj) -> str:
    seconds = dig(csr, "spec", "expirationSeconds")
    if not isinstance(seconds, int) or isinstance(seconds, bool):
        return "<none>"
    return human_duration(seconds * SECOND)


def _row(csr: Obj, now: datetime) -> list[Any]:
    return [
        name_of(csr),
        age(csr, now),
        text(csr, "spec", "signerName") or "<none>",
        text(csr, "spec", "username"),
        _requested_duration(csr),
        condition_summary(csr),
    ]


SIGNER_NAME_DESCRIPTION = (
    "Requested signer for the request. It is a qualified name in the form: `scope-hostname.io/name`. If empty,"
    " it will be defaulted:\n 1. If it's a kubelet client certificate, it is assigned\n    \"kubernetes.io/kube-"
    "apiserver-client-kubelet\".\n 2. If it's a kubelet serving certificate, it is assigned\n    "
    '"kubernetes.io/kubelet-serving".\n 3. Otherwise, it is assigned "kubernetes.io/legacy-unknown".\n'
    "Distribution of trust for signers happens out of band. You can select on this field using "
    "`spec.signerName`."
)
EXPIRATION_DESCRIPTION = (
    "expirationSeconds is the requested duration of validity of the issued certificate. The certificate "
    "signer may issue a certificate with a different validity duration so a client must check the delta "
    "between the notBefore and and notAfter fields in the issued certificate to determine the actual duration."
)

CSR_TABLE = TableSpec(
    [
        name_col(),
        age_col(),
        col("SignerName", "string", SIGNER_NAME_DESCRIPTION),
        col("Requestor", "string", "Name of the user who requested the CSR"),
        col("RequestedDuration", "string", EXPIRATION_DESCRIPTION),
        col("Condition", "string", "Status of the CSR"),
    ],
    _row,
)
