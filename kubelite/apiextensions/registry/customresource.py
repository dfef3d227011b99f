"""The custom resources of one CRD version: their strategy and Store (kube's pkg/registry/customresource).

Everything a custom resource's writes are checked against comes from its CRD and changes when the CRD does,
while the Store and its watch cache stay: the strategy reads a `VersionRules` that the APIExtensionServer
swaps whole on every CRD change (a reference assignment, so a request sees the old rules or the new).

Custom resources track metadata.generation on any change outside metadata, and outside status too when the
version has a /status subresource (kube's customResourceStrategy). Their names are DNS subdomains; beyond
ObjectMeta, only the CRD's schema, its CEL rules and its scale paths say what is valid.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kubelite.apimachinery import errors
from kubelite.apimachinery.meta import Obj
from kubelite.apimachinery.validation import FieldError
from kubelite.registry.apps.scale import ScalePaths
from kubelite.registry.options import WriteParams
from kubelite.registry.rest import MutateFunc, UpdateFunc, ValidateFunc
from kubelite.registry.spec import ResourceSpec
from kubelite.registry.store import Store
from kubelite.registry.strategy import StatusStrategy, Strategy

#: (new object, old object or None) -> errors: a schema's or a rule set's check of a whole object
ObjectValidator = Callable[[Obj, "Obj | None"], list[FieldError]]

_INT32_MAX = 2**31 - 1


@dataclass(frozen=True)
class VersionRules:
    """What one served version's objects are defaulted and checked with, from the CRD as it is now."""

    #: what a written object is defaulted with, in place: the schema's nulls dropped and defaults applied
    default: Callable[[Obj], None] | None = None
    #: what a read object is defaulted with (None: the schema declares no defaults, reads need nothing)
    read_default: Callable[[Obj], None] | None = None
    #: the structural schema's validation, then the CEL rules
    validators: tuple[ObjectValidator, ...] = ()
    #: what a write to /status is checked with (kube checks status alone there, against its schema)
    status_validators: tuple[ObjectValidator, ...] = ()
    #: the field selector labels the version declares (`selectableFields`)
    selectable_fields: tuple[str, ...] = ()
    #: where /scale reads and writes replicas; None without a scale subresource
    scale: ScalePaths | None = None
    #: the JSON paths of /scale, for the replicas checks (".spec.replicas")
    spec_replicas_path: str = ""
    status_replicas_path: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


def _validate_replicas(obj: Obj, path: str) -> list[FieldError]:
    """kube checks the scale paths' values of a custom resource as Scale would hold them (an int32 >= 0)."""
    if not path:
        return []
    keys = path.lstrip(".").split(".")
    value: Any = obj
    for key in keys:
        if not isinstance(value, dict) or key not in value:
            return []
        value = value[key]
    where = ".".join(keys)
    if isinstance(value, bool) or not isinstance(value, int):
        return [FieldError.invalid(where, value, "must be an integer")]
    if value < 0:
        return [FieldError.invalid(where, value, "should be a non-negative integer")]
    if value > _INT32_MAX:
        return [FieldError.invalid(where, value, f"should be less than or equal to {_INT32_MAX}")]
    return []


class CustomResourceStrategy(Strategy):
    tracks_generation = True
    kube_finalizers = False

    def __init__(self, spec: ResourceSpec, rules: VersionRules) -> None:
        super().__init__(spec)
        self._rules = rules
        self.selectable_fields = rules.selectable_fields

    @property
    def rules(self) -> VersionRules:
        return self._rules

    @rules.setter
    def rules(self, rules: VersionRules) -> None:
        self._rules = rules
        self.selectable_fields = rules.selectable_fields

    def default(self, obj: Obj) -> None:
        if self.rules.default is not None:
            self.rules.default(obj)

    def spec_changed(self, new: Obj, old: Obj) -> bool:
        skipped = {"metadata", "apiVersion", "kind"} | ({"status"} if self.has_status else set())
        keys = (set(new) | set(old)) - skipped
        return any(new.get(k) != old.get(k) for k in keys)

    def _check(self, obj: Obj, old: Obj | None) -> list[FieldError]:
        found: list[FieldError] = []
        for validator in self.rules.validators:
            found.extend(validator(obj, old))
        rules = self.rules
        found.extend(_validate_replicas(obj, rules.spec_replicas_path))
        found.extend(_validate_replicas(obj, rules.status_replicas_path))
        return found

    def validate(self, obj: Obj) -> list[FieldError]:
        return self._check(obj, None)

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return self._check(new, old)


class CustomResourceStatusStrategy(StatusStrategy):
    """/status of a custom resource: only status changes, and the whole object is checked as on update (kube
    validates the schema and the rules on status writes too)."""

    parent: CustomResourceStrategy

    def default(self, obj: Obj) -> None:
        self.parent.default(obj)  # a status write is decoded, and so defaulted, like any other

    def prepare_for_update(self, new: Obj, old: Obj) -> None:
        """Only status comes from the request, and managedFields (the field manager's record of this write):
        labels and annotations stay as stored, unlike the built-in kinds' status (kube's CR status strategy)."""
        status = new.get("status")
        managed = (new.get("metadata") or {}).get("managedFields")
        new.clear()
        new.update({k: v for k, v in old.items() if k != "status"})
        meta = dict(old.get("metadata") or {})
        if managed is not None:
            meta["managedFields"] = managed
        else:
            meta.pop("managedFields", None)
        new["metadata"] = meta
        if status is not None:
            new["status"] = status

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        rules = self.parent.rules
        found: list[FieldError] = []
        for validator in rules.status_validators:
            found.extend(validator(new, old))
        found.extend(_validate_replicas(new, rules.status_replicas_path))
        return found


class CustomResourceStore(Store):
    """The generic Store, refusing creates while the CRD is being deleted (kube's crdHandler)."""

    #: where /scale keeps replicas (the scale handler reads it); None without a scale subresource
    scale_paths: ScalePaths | None = None
    #: whether the CRD is terminating: its objects are being deleted, new ones refused
    terminating: Callable[[], bool] = staticmethod(lambda: False)

    async def create(
        self,
        namespace: str,
        obj: Obj,
        params: WriteParams,
        *,
        mutate: MutateFunc | None = None,
        validate: ValidateFunc | None = None,
    ) -> Obj:
        if self.terminating():  # kube's forbidCreateAdmission
            meta = obj.get("metadata")
            name = str(meta.get("name") or "") if isinstance(meta, dict) else ""
            raise errors.forbidden(
                self.spec.group_resource, name, "create not allowed while custom resource definition is terminating"
            )
        return await super().create(namespace, obj, params, mutate=mutate, validate=validate)

    async def update(
        self, namespace: str, name: str, update: UpdateFunc, params: WriteParams, **options: Any
    ) -> tuple[Obj, bool]:
        """An update that would create (a PUT or server-side apply of a missing object) is refused too while the
        CRD terminates, as kube's forbidCreateAdmission refuses it on patches."""
        if self.terminating():
            inner = update

            async def guarded(current: Obj | None) -> Obj:
                if current is None:
                    raise errors.forbidden(
                        self.spec.group_resource,
                        name,
                        "create not allowed while custom resource definition is terminating",
                    )
                return await inner(current)

            update = guarded
        return await super().update(namespace, name, update, params, **options)
