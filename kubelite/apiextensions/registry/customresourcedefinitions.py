"""CustomResourceDefinitions (apiextensions.k8s.io/v1): defaults, create/update rules, status, and deletion
through the cleanup finalizer (kube's pkg/registry/customresourcedefinition).

A CRD is stored like any cluster-scoped object. Its status (accepted names, conditions) is written by the
naming and establishing controllers through /status; `status.storedVersions` records every version objects
may have been stored in and only grows here. Deleting a CRD does not remove it: the first DELETE marks it
Terminating and adds the `customresourcecleanup` finalizer, which the finalizer controller removes once every
custom resource is gone.
"""

from __future__ import annotations

from collections.abc import Callable

from kubelite.apiextensions import names
from kubelite.apimachinery import errors
from kubelite.apimachinery.meta import Obj, rfc3339
from kubelite.apimachinery.validation import FieldError
from kubelite.registry.options import DeleteParams
from kubelite.registry.registration import Registration, ResourceStorage, StorageContext
from kubelite.registry.spec import ResourceSpec, SubresourceSpec
from kubelite.registry.storage_errors import interpret_delete_error
from kubelite.registry.store import Store
from kubelite.registry.strategy import StatusStrategy, Strategy
from kubelite.registry.subresources import StatusStore
from kubelite.storage import errors as storage_errors

SPEC = ResourceSpec(
    names.GROUP,
    "v1",
    "customresourcedefinitions",
    "CustomResourceDefinition",
    "customresourcedefinition",
    False,
    short_names=("crd", "crds"),
    categories=("api-extensions",),
    subresources=(SubresourceSpec("status"),),
)

#: crd -> errors (and (new, old) -> errors): the CRD validation the APIExtensionServer plugs in
CRDValidator = Callable[[Obj], list[FieldError]]
CRDUpdateValidator = Callable[[Obj, Obj], list[FieldError]]


def set_defaults(crd: Obj) -> None:
    """kube's SetDefaults_CustomResourceDefinition(Spec): singular and listKind from kind, conversion None,
    a webhook service's port 443."""
    spec = crd.get("spec")
    if not isinstance(spec, dict):
        return
    crd_names = spec.get("names")
    if isinstance(crd_names, dict):
        kind = crd_names.get("kind")
        if isinstance(kind, str) and kind:
            if not crd_names.get("singular"):
                crd_names["singular"] = kind.lower()
            if not crd_names.get("listKind"):
                crd_names["listKind"] = kind + "List"
    conversion = spec.get("conversion")
    if conversion is None:
        spec["conversion"] = {"strategy": "None"}
    elif isinstance(conversion, dict):
        conversion.setdefault("strategy", "None")
        webhook = conversion.get("webhook")
        service = webhook.get("clientConfig", {}).get("service") if isinstance(webhook, dict) else None
        if isinstance(service, dict) and service.get("port") is None:
            service["port"] = 443


def set_condition(crd: Obj, kind: str, status: str, reason: str, message: str, now: str) -> bool:
    """Set a status condition (kube's SetCRDCondition: the transition time moves only when the status does);
    False when nothing changed."""
    conditions = crd.setdefault("status", {}).setdefault("conditions", [])
    for condition in conditions:
        if condition.get("type") == kind:
            wanted = (status, reason, message)
            if (condition.get("status"), condition.get("reason"), condition.get("message")) == wanted:
                return False
            if condition.get("status") != status:
                condition["lastTransitionTime"] = now
            condition.update(status=status, reason=reason, message=message)
            return True
    conditions.append(
        {"type": kind, "status": status, "lastTransitionTime": now, "reason": reason, "message": message}
    )
    return True


def _with_stored_version(crd: Obj) -> None:
    storage = names.storage_version(crd)
    status = crd.setdefault("status", {})
    stored = status.get("storedVersions")
    if not isinstance(stored, list):
        stored = status["storedVersions"] = []
    if storage and storage not in stored:
        stored.append(storage)


class CRDStrategy(Strategy):
    tracks_generation = True
    kube_finalizers = False

    def __init__(
        self,
        spec: ResourceSpec,
        validate: CRDValidator | None = None,
        validate_update: CRDUpdateValidator | None = None,
    ) -> None:
        super().__init__(spec)
        self._validate = validate
        self._validate_update = validate_update

    def default(self, obj: Obj) -> None:
        set_defaults(obj)

    def prepare_for_create(self, obj: Obj) -> None:
        # a new CRD has accepted nothing yet: the naming controller decides (kube's PrepareForCreate)
        obj["status"] = {"acceptedNames": {"plural": "", "kind": ""}, "storedVersions": []}
        _with_stored_version(obj)

    def prepare_for_update(self, new: Obj, old: Obj) -> None:
        new["status"] = old.get("status") or {}
        _with_stored_version(new)

    def validate(self, obj: Obj) -> list[FieldError]:
        return self._validate(obj) if self._validate is not None else []

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return self._validate_update(new, old) if self._validate_update is not None else []


class CRDStatusStrategy(StatusStrategy):
    """/status of a CRD: only status changes; storedVersions may not lose the storage version."""

    def __init__(self, parent: Strategy, validate: CRDValidator | None = None) -> None:
        super().__init__(parent)
        self._validate = validate

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return self._validate(new) if self._validate is not None else []

    def prepare_for_update(self, new: Obj, old: Obj) -> None:
        # kube's CRD status strategy keeps everything but the spec from the request (its reset of the metadata
        # resets it to itself): the finalizer controller removes its finalizer through /status
        if "spec" in old:
            new["spec"] = old["spec"]
        else:
            new.pop("spec", None)
        if isinstance(new.get("status"), dict):
            _with_stored_version(new)


class CRDStore(Store):
    """The CRD Store: the first DELETE marks the CRD Terminating and hands it to the cleanup finalizer."""

    async def delete(self, namespace: str, name: str, params: DeleteParams) -> tuple[Obj, bool]:
        current = await self.get(namespace, name)
        if current["metadata"].get("deletionTimestamp"):
            return await super().delete(namespace, name, params)
        self._check_preconditions(current, params)

        async def mark(existing: Obj | None) -> Obj:
            if existing is None:
                raise errors.not_found(self.spec.group_resource, name)
            self._check_preconditions(existing, params)
            meta = existing["metadata"]
            now = rfc3339(self.clock.now())
            meta.setdefault("deletionTimestamp", now)
            meta.setdefault("deletionGracePeriodSeconds", 0)
            finalizers = list(meta.get("finalizers") or [])
            if names.CLEANUP_FINALIZER not in finalizers:
                finalizers.append(names.CLEANUP_FINALIZER)
            meta["finalizers"] = finalizers
            set_condition(
                existing,
                "Terminating",
                "True",
                "InstanceDeletionPending",
                "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon",
                now,
            )
            return existing

        if params.dry_run:
            return current, False
        try:
            marked = await self.storage.guaranteed_update(self.key(namespace, name), mark)
        except storage_errors.StorageError as exc:
            raise interpret_delete_error(exc, self.spec.group_resource, name) from exc
        return marked, False


def registration(
    validate: CRDValidator | None = None,
    validate_update: CRDUpdateValidator | None = None,
    validate_status: CRDValidator | None = None,
) -> Registration:
    """The CRD resource's registration, with the APIExtensionServer's validation."""

    def new_strategy(spec: ResourceSpec) -> Strategy:
        return CRDStrategy(spec, validate, validate_update)

    def new_storage(ctx: StorageContext) -> ResourceStorage:
        store = ctx.store(new_strategy(ctx.spec), store_type=CRDStore)
        status = CRDStatusStrategy(store.strategy, validate_status)
        return ResourceStorage(store, {"status": StatusStore(store, status)})

    return Registration(SPEC.group, SPEC.resource, new_storage, new_strategy)
