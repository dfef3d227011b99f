"""Priority: a new pod's `spec.priority` and `spec.preemptionPolicy` come from its PriorityClass (kube's
`plugin/pkg/admission/priority`).

A pod that names no class gets the global default class (the lowest-valued one, should a race have made two)
or priority 0 with PreemptLowerPriority. A pod naming a class that does not exist is refused with a 403, as
is one that states a priority or preemption policy other than its class's: the class decides, so that a
user cannot raise their own pods above others by writing a number. Updates keep the values set at create
(pod validation refuses changes). For PriorityClasses, only one may be the global default.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from kubelite.admission.chain import Attributes
from kubelite.apimachinery import errors
from kubelite.apimachinery.meta import Obj

#: kube's DefaultPriorityWhenNoDefaultClassExists
DEFAULT_PRIORITY = 0
DEFAULT_PREEMPTION_POLICY = "PreemptLowerPriority"

#: the PriorityClass of a name, None when there is none
PriorityClassGetter = Callable[[str], Awaitable[Obj | None]]
#: every PriorityClass (an informer's view: a moment old is fine, as kube's lister)
PriorityClassLister = Callable[[], list[Obj]]


def default_class(classes: list[Obj]) -> Obj | None:
    """The global default; of several (a race between two creates), the lowest-valued, as kube picks."""
    defaults = [pc for pc in classes if pc.get("globalDefault")]
    return min(defaults, key=lambda pc: pc.get("value", 0)) if defaults else None


class PriorityAdmission:
    def __init__(self, get_class: PriorityClassGetter, list_classes: PriorityClassLister) -> None:
        self._get = get_class
        self._list = list_classes

    async def admit(self, attrs: Attributes, obj: Obj | None, old: Obj | None) -> None:
        spec = attrs.spec
        if obj is None or attrs.subresource or (spec.group, spec.resource) != ("", "pods"):
            return
        pod_spec = obj.get("spec")
        if not isinstance(pod_spec, dict):
            return
        if attrs.operation == "UPDATE":
            previous = (old or {}).get("spec") or {}
            for key in ("priority", "preemptionPolicy"):
                if pod_spec.get(key) is None and previous.get(key) is not None:
                    pod_spec[key] = previous[key]
            return
        if attrs.operation != "CREATE":
            return
        name = pod_spec.get("priorityClassName") or ""
        if not name:
            found = default_class(self._list())
            if found is not None:
                pod_spec["priorityClassName"] = (found.get("metadata") or {}).get("name", "")
        else:
            found = await self._get(name)
            if found is None:
                raise errors.forbidden(spec.group_resource, attrs.name, f"no PriorityClass with name {name} was found")
        priority = found.get("value", 0) if found is not None else DEFAULT_PRIORITY
        policy = found.get("preemptionPolicy") if found is not None else DEFAULT_PREEMPTION_POLICY
        stated = pod_spec.get("priority")
        if stated is not None and stated != priority:
            raise errors.forbidden(
                spec.group_resource,
                attrs.name,
                f"the integer value of priority ({stated}) must not be provided in pod spec; priority admission "
                f"controller computed {priority} from the given PriorityClass name",
            )
        pod_spec["priority"] = priority
        if policy is not None:
            stated_policy = pod_spec.get("preemptionPolicy")
            if stated_policy is not None and stated_policy != policy:
                raise errors.forbidden(
                    spec.group_resource,
                    attrs.name,
                    f"the string value of PreemptionPolicy ({stated_policy}) must not be provided in pod spec; "
                    f"priority admission controller computed {policy} from the given PriorityClass name",
                )
            pod_spec["preemptionPolicy"] = policy

    async def validate(self, attrs: Attributes, obj: Obj | None, old: Obj | None) -> None:
        spec = attrs.spec
        if (
            obj is None
            or attrs.subresource
            or (spec.group, spec.resource) != ("scheduling.k8s.io", "priorityclasses")
            or attrs.operation not in ("CREATE", "UPDATE")
            or not obj.get("globalDefault")
        ):
            return
        found = default_class(self._list())
        if found is None:
            return
        found_name = (found.get("metadata") or {}).get("name", "")
        if attrs.operation == "CREATE" or found_name != attrs.name:
            raise errors.forbidden(
                spec.group_resource,
                attrs.name,
                f"PriorityClass {found_name} is already marked as default. Only one default can exist",
            )
