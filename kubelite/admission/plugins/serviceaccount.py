"""ServiceAccount admission: pods run as a service account (`default` unless named) and, unless automount
is turned off, get the projected `kube-api-access-*` volume with a token, the cluster CA and their namespace,
mounted into every container (kube's `plugin/pkg/admission/serviceaccount`)."""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from typing import Any

from kubelite.admission.chain import Attributes
from kubelite.admission.plugins import created_pod_spec
from kubelite.apimachinery.meta import Obj

MOUNT_PATH = "/var/run/secrets/kubernetes.io/serviceaccount"
ROOT_CA_CONFIGMAP = "kube-root-ca.crt"
#: kube's token lifetime for the projected volume (an hour, plus a little so it is not a round number)
TOKEN_EXPIRATION_SECONDS = 3607
_SUFFIX_CHARS = "bcdfghjklmnpqrstvwxz2456789"

#: looks up a service account; None when it does not exist (yet)
ServiceAccountGetter = Callable[[str, str], Awaitable[Obj | None]]


def _volume(name: str) -> dict[str, Any]:
    return {
        "name": name,
        "projected": {
            "defaultMode": 420,
            "sources": [
                {"serviceAccountToken": {"expirationSeconds": TOKEN_EXPIRATION_SECONDS, "path": "token"}},
                {"configMap": {"items": [{"key": "ca.crt", "path": "ca.crt"}], "name": ROOT_CA_CONFIGMAP}},
                {
                    "downwardAPI": {
                        "items": [
                            {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}, "path": "namespace"}
                        ]
                    }
                },
            ],
        },
    }


class ServiceAccountAdmission:
    def __init__(self, get_service_account: ServiceAccountGetter) -> None:
        self._get = get_service_account

    async def admit(self, attrs: Attributes, obj: Obj | None, old: Obj | None) -> None:
        pod_spec = created_pod_spec(attrs, obj)
        if pod_spec is None:
            return
        account = pod_spec.get("serviceAccountName") or pod_spec.get("serviceAccount") or "default"
        pod_spec["serviceAccountName"] = account
        if pod_spec.get("automountServiceAccountToken") is False:
            return
        if pod_spec.get("automountServiceAccountToken") is None:
            sa = await self._get(attrs.namespace, account)
            if sa is not None and sa.get("automountServiceAccountToken") is False:
                return
        containers = [
            c for key in ("initContainers", "containers") for c in pod_spec.get(key) or [] if isinstance(c, dict)
        ]
        if any(m.get("mountPath") == MOUNT_PATH for c in containers for m in c.get("volumeMounts") or []):
            return  # the pod mounts something there itself
        name = "kube-api-access-" + "".join(random.choices(_SUFFIX_CHARS, k=5))
        pod_spec.setdefault("volumes", []).append(_volume(name))
        for container in containers:
            container.setdefault("volumeMounts", []).append({"mountPath": MOUNT_PATH, "name": name, "readOnly": True})

    async def validate(self, attrs: Attributes, obj: Obj | None, old: Obj | None) -> None:
        return None
