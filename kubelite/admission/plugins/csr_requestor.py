"""Stamps the requesting user into a CertificateSigningRequest being created.

kube's CSR strategy does this in PrepareForCreate, from the request's context; kubelite's strategies never see
the request, so this step runs where the user is known, as the first mutation of a create. It is not an
optional plugin: without it any client could claim to be any requestor.
"""

from __future__ import annotations

from kubelite.admission.chain import Attributes
from kubelite.apimachinery.meta import Obj
from kubelite.registry.certificates.certificatesigningrequests import GROUP, RESOURCE, stamp_requestor


class CSRRequestor:
    async def admit(self, attrs: Attributes, obj: Obj | None, old: Obj | None) -> None:
        spec = attrs.spec
        if (
            obj is None
            or attrs.operation != "CREATE"
            or attrs.subresource
            or (spec.group, spec.resource) != (GROUP, RESOURCE)
        ):
            return
        user = attrs.user
        if user is None:
            stamp_requestor(obj, "", "", (), {})
        else:
            stamp_requestor(obj, user.name, user.uid, user.groups, user.extra)

    async def validate(self, attrs: Attributes, obj: Obj | None, old: Obj | None) -> None:
        return None
