"""DefaultTolerationSeconds: pods tolerate a not-ready or unreachable node for 300 s before eviction,
unless they say otherwise (kube's `plugin/pkg/admission/defaulttolerationseconds`)."""

from __future__ import annotations

from kubelite.admission.chain import Attributes
from kubelite.admission.plugins import created_pod_spec
from kubelite.apimachinery.meta import Obj

DEFAULT_SECONDS = 300
_TAINTS = ("node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable")


class DefaultTolerationSeconds:
    async def admit(self, attrs: Attributes, obj: Obj | None, old: Obj | None) -> None:
        pod_spec = created_pod_spec(attrs, obj)
        if pod_spec is None:
            return
        tolerations = pod_spec.get("tolerations") or []
        for taint in _TAINTS:
            covered = any(
                isinstance(t, dict)
                and (t.get("key") == taint or (not t.get("key") and t.get("operator") == "Exists"))
                and t.get("effect") in (None, "", "NoExecute")
                for t in tolerations
            )
            if not covered:
                tolerations.append(
                    {"effect": "NoExecute", "key": taint, "operator": "Exists", "tolerationSeconds": DEFAULT_SECONDS}
                )
        pod_spec["tolerations"] = tolerations

    async def validate(self, attrs: Attributes, obj: Obj | None, old: Obj | None) -> None:
        return None
