"""CertificateSigningRequests (kube's pkg/registry/certificates/certificates).

The spec is fixed at creation: the requesting user's name, uid, groups and extra are stamped into it from the
request (`stamp_requestor`, called by the admission chain, which is what sees the request's user), and every
later write keeps the stored spec. Status is written only through /status (the certificate, Failed) and the
approval conditions only through /approval; the main resource keeps both as stored.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubelite.apimachinery.meta import Obj, rfc3339
from kubelite.apimachinery.validation import FieldError
from kubelite.registry.certificates import csr_validation
from kubelite.registry.registration import Registration, ResourceStorage, StorageContext
from kubelite.registry.strategy import PlainStrategy, StatusStrategy, Strategy
from kubelite.registry.subresources import StatusStore
from kubelite.registry.tables.certificates import CSR_TABLE
from kubelite.util.clock import Clock

GROUP, RESOURCE = "certificates.k8s.io", "certificatesigningrequests"


def stamp_requestor(
    obj: Obj, name: str, uid: str, groups: tuple[str, ...], extra: Mapping[str, tuple[str, ...]]
) -> None:
    """PrepareForCreate's part that needs the request: whatever the client wrote there is replaced."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        spec = obj["spec"] = {}
    for key in ("username", "uid", "groups", "extra"):
        spec.pop(key, None)
    if name:
        spec["username"] = name
    if uid:
        spec["uid"] = uid
    if groups:
        spec["groups"] = list(groups)
    if extra:
        spec["extra"] = {key: list(values) for key, values in extra.items()}


class CSRStrategy(PlainStrategy):
    # spec.signerName is selectable (kube's SelectableFields)
    selectable_fields = ("spec.signerName",)

    def prepare_for_create(self, obj: Obj) -> None:
        # users cannot create pre-approved (or pre-issued) requests
        obj["status"] = {}

    def prepare_for_update(self, new: Obj, old: Obj) -> None:
        new["spec"] = old.get("spec") or {}
        if "status" in old:
            new["status"] = old["status"]
        else:
            new.pop("status", None)

    def validate(self, obj: Obj) -> list[FieldError]:
        return csr_validation.validate(obj)

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return csr_validation.validate_update(new, old)


def populate_condition_timestamps(new: Obj, old: Obj, now: str) -> None:
    """A condition without lastUpdateTime gets now; without lastTransitionTime, the stored one of the same type
    and status, else now."""
    for condition in csr_validation.conditions_of(new):
        if not condition.get("lastUpdateTime"):
            condition["lastUpdateTime"] = now
        if not condition.get("lastTransitionTime"):
            same = next(
                (
                    c.get("lastTransitionTime")
                    for c in csr_validation.conditions_of(old)
                    if c.get("type") == condition.get("type")
                    and c.get("status") == condition.get("status")
                    and c.get("lastTransitionTime")
                ),
                None,
            )
            condition["lastTransitionTime"] = same or now


class CSRStatusStrategy(StatusStrategy):
    """/status: the certificate and the other conditions; spec stays as stored."""

    def __init__(self, parent: Strategy, clock: Clock) -> None:
        super().__init__(parent)
        self.clock = clock

    def prepare_for_update(self, new: Obj, old: Obj) -> None:
        super().prepare_for_update(new, old)
        # the approval conditions written here are the stored ones (validation catches any added or removed)
        stored = {
            c.get("type"): c for c in csr_validation.conditions_of(old) if c.get("type") in ("Approved", "Denied")
        }
        status = new.get("status")
        if isinstance(status, dict) and isinstance(status.get("conditions"), list):
            status["conditions"] = [
                stored.get(c.get("type"), c) if isinstance(c, dict) else c for c in status["conditions"]
            ]
        populate_condition_timestamps(new, old, rfc3339(self.clock.now()))

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return csr_validation.validate_update(new, old, status=True)


class CSRApprovalStrategy(StatusStrategy):
    """/approval: only status.conditions changes."""

    def __init__(self, parent: Strategy, clock: Clock) -> None:
        super().__init__(parent)
        self.clock = clock

    def prepare_for_update(self, new: Obj, old: Obj) -> None:
        conditions = (new.get("status") or {}).get("conditions") if isinstance(new.get("status"), dict) else None
        super().prepare_for_update(new, old)
        status = dict(old.get("status") or {})
        if conditions:
            status["conditions"] = conditions
        else:
            status.pop("conditions", None)
        new["status"] = status
        populate_condition_timestamps(new, old, rfc3339(self.clock.now()))

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return csr_validation.validate_update(new, old, approval=True)


def _new_storage(ctx: StorageContext) -> ResourceStorage:
    store = ctx.store(CSRStrategy(ctx.spec), table=CSR_TABLE)
    return ResourceStorage(
        store,
        {
            "approval": StatusStore(store, CSRApprovalStrategy(store.strategy, ctx.registry.clock)),
            "status": StatusStore(store, CSRStatusStrategy(store.strategy, ctx.registry.clock)),
        },
    )


def _strategy(spec: Any) -> Strategy:
    return CSRStrategy(spec)


REGISTRATION = Registration(GROUP, RESOURCE, _new_storage, _strategy)
