"""PriorityClasses: preemptionPolicy defaults to PreemptLowerPriority; the `system-` names and values above a
billion belong to the system classes kube-apiserver creates (kube's scheduling validation)."""

from __future__ import annotations

from typing import Final

from kubelite.apimachinery.meta import Obj
from kubelite.apimachinery.validation import FieldError
from kubelite.registry.registration import stored
from kubelite.registry.strategy import PlainStrategy
from kubelite.registry.tables.others import PRIORITY_CLASS_TABLE
from kubelite.registry.validation.common import immutable
from kubelite.registry.validation.pods import PREEMPTION_POLICIES

SYSTEM_PREFIX: Final = "system-"
HIGHEST_USER_DEFINABLE_PRIORITY: Final = 1_000_000_000
SYSTEM_CRITICAL_PRIORITY: Final = 2 * HIGHEST_USER_DEFINABLE_PRIORITY

#: the classes kube-apiserver creates at start (name, value, description), the only ones `system-` may name
SYSTEM_PRIORITY_CLASSES: Final = (
    (
        "system-node-critical",
        SYSTEM_CRITICAL_PRIORITY + 1000,
        "Used for system critical pods that must not be moved from their current node.",
    ),
    (
        "system-cluster-critical",
        SYSTEM_CRITICAL_PRIORITY,
        "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.",
    ),
)


def _system_class_mismatch(name: str, value: object, global_default: bool) -> str | None:
    """IsKnownSystemPriorityClass: why a `system-` class is not one of the system classes, None when it is."""
    for known, known_value, _ in SYSTEM_PRIORITY_CLASSES:
        if known == name:
            if value != known_value:
                return f"value of {name} PriorityClass must be {known_value}"
            if global_default:
                return f"globalDefault of {name} PriorityClass must be false"
            return None
    return f"{name} is not a known system priority class"


def validate_priority_class(obj: Obj) -> list[FieldError]:
    errs: list[FieldError] = []
    name = str((obj.get("metadata") or {}).get("name") or "")
    value = obj.get("value", 0)
    if name.startswith(SYSTEM_PREFIX):
        why = _system_class_mismatch(name, value, bool(obj.get("globalDefault")))
        if why is not None:
            errs.append(FieldError.forbidden(
                "metadata.name",
                f"priority class names with '{SYSTEM_PREFIX}' prefix are reserved for system use only. error: {why}",
            ))  # fmt: skip
    elif isinstance(value, int) and value > HIGHEST_USER_DEFINABLE_PRIORITY:
        errs.append(FieldError.forbidden(
            "value", f"maximum allowed value of a user defined priority is {HIGHEST_USER_DEFINABLE_PRIORITY}"
        ))  # fmt: skip
    policy = obj.get("preemptionPolicy")
    if isinstance(policy, str) and policy not in PREEMPTION_POLICIES:
        errs.append(
            FieldError.required("preemptionPolicy", "")
            if not policy
            else FieldError.not_supported("preemptionPolicy", policy, list(PREEMPTION_POLICIES))
        )
    return errs


class PriorityClassStrategy(PlainStrategy):
    def default(self, obj: Obj) -> None:
        obj.setdefault("preemptionPolicy", "PreemptLowerPriority")

    def validate(self, obj: Obj) -> list[FieldError]:
        return validate_priority_class(obj)

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        # kube checks only what may not change: a class stays as valid as it was created
        errs: list[FieldError] = []
        if new.get("value", 0) != old.get("value", 0):
            errs.append(FieldError.forbidden("value", "may not be changed in an update."))
        errs.extend(immutable(new.get("preemptionPolicy"), old.get("preemptionPolicy"), "preemptionPolicy"))
        return errs


REGISTRATION = stored("scheduling.k8s.io", "priorityclasses", PriorityClassStrategy, table=PRIORITY_CLASS_TABLE)
