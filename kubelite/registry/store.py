"""The generic Store: one algorithm for every resource (kube's `registry/generic/registry/store.go`).

A Store owns the key layout of its resource, runs the strategy hooks in their fixed order around storage
calls, and translates storage errors into API Status errors, once per call, through `storage_errors`.
Handlers only see Store methods.

The order of a create (kube: decoding defaults the object, then `rest.BeforeCreate`):
    default -> mutate (the caller's: field manager, mutating admission) -> system fields ->
    prepare_for_create -> validate -> canonicalize -> validate callback (validating admission, on a copy)
    -> storage
and of an update, inside guaranteed_update on the current object:
    the caller's update -> default -> mutate -> system fields -> prepare_for_update -> generation ->
    validate_update -> canonicalize -> validate callback -> storage
Each object is defaulted once, here: the callers hand in what the client sent.

The Store works over any `Storage`. When that storage is also a `WatchCache` (the cacher), shared reads,
peeks and client watches are served by the cache; over a bare backend, reads go to storage and a watch is
storage's watch, preceded by a list when it starts from the current state. Time (creationTimestamp,
deletionTimestamp) is read from the injected clock.
"""

from __future__ import annotations

import builtins
import random
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from kubelite.apimachinery import errors, serializers
from kubelite.apimachinery.errors import Cause, StatusError
from kubelite.apimachinery.meta import Obj, deep_copy, new_uid, rfc3339
from kubelite.apimachinery.selectors import EQUALS
from kubelite.apimachinery.validation import (
    FieldError,
    go_quote,
    validate_object_meta,
    validate_object_meta_update,
)
from kubelite.registry.options import DeleteParams, ListParams, WriteParams
from kubelite.registry.rest import DescribedBySpec, MutateFunc, UpdateFunc, ValidateFunc
from kubelite.registry.spec import ResourceSpec
from kubelite.registry.storage_errors import (
    interpret_create_error,
    interpret_delete_error,
    interpret_get_error,
    interpret_list_error,
    interpret_update_error,
    interpret_watch_error,
)
from kubelite.registry.storage_watch import StorageWatch
from kubelite.registry.strategy import Strategy
from kubelite.storage import continue_token
from kubelite.storage import errors as storage_errors
from kubelite.storage.interface import (
    ListOptions,
    Preconditions,
    ResourceVersionMatch,
    Storage,
    StreamWatcher,
    WatchCache,
    WatchRequest,
)
from kubelite.util.clock import Clock, RealClock

_NAME_CHARS = "bcdfghjklmnpqrstvwxz2456789"
_GENERATE_ATTEMPTS = 8


class Store(DescribedBySpec):
    """Implements every verb Protocol of `registry.rest`; the mutate and validate callbacks are the MutateFunc
    and ValidateFunc described there."""

    def __init__(
        self,
        spec: ResourceSpec,
        strategy: Strategy,
        storage: Storage,
        *,
        key_root: str,
        clock: Clock | None = None,
    ) -> None:
        self.spec = spec
        self.strategy = strategy
        self.storage = storage
        #: the watch cache in front of storage, when there is one (asked once: a Protocol check is not free)
        self.cache: WatchCache | None = storage if isinstance(storage, WatchCache) else None
        self.clock = clock or RealClock()
        self.prefix = f"/registry/{key_root}/"

    # -- keys ----------------------------------------------------------------------------------------

    def key(self, namespace: str, name: str) -> str:
        return f"{self.prefix}{namespace}/{name}" if self.spec.namespaced else f"{self.prefix}{name}"

    def list_prefix(self, namespace: str) -> str:
        return f"{self.prefix}{namespace}/" if self.spec.namespaced and namespace else self.prefix

    # -- reads ---------------------------------------------------------------------------------------

    async def get(self, namespace: str, name: str, *, shared: bool = False) -> Obj:
        """The object; `shared` lets it be the watch cache's own (read-only) object when that is current."""
        cache = self.cache
        try:
            if shared and cache is not None:
                return await cache.get_shared(self.key(namespace, name))
            return await self.storage.get(self.key(namespace, name))
        except storage_errors.StorageError as exc:
            raise interpret_get_error(exc, self.spec.group_resource, name) from exc

    def peek(self, namespace: str, name: str) -> Obj | None:
        """The watch cache's copy (shared, read-only, possibly a moment old), as informer-fed lookups see it;
        None when not cached, and always without a watch cache."""
        return self.cache.peek(self.key(namespace, name)) if self.cache is not None else None

    async def list(self, namespace: str, params: ListParams) -> Obj:
        prefix = self.list_prefix(namespace)
        opts = self._list_options(prefix, params)
        try:
            result = await self.storage.get_list(prefix, opts)
        except storage_errors.StorageError as exc:
            raise interpret_list_error(
                exc, continue_from=params.continue_token, paginated=bool(params.limit)
            ) from exc
        meta: dict[str, Any] = {"resourceVersion": str(result.revision)}
        if result.next_key is not None:
            meta["continue"] = continue_token.encode(result.revision, result.next_key[len(prefix) :])
            if result.remaining is not None and opts.predicate is None:
                # as kube: a count that includes objects the selector drops would mislead, so none is given
                meta["remainingItemCount"] = result.remaining
        return {
            "kind": self.spec.list_kind,
            "apiVersion": self.spec.api_version,
            "metadata": meta,
            "items": result.items,
        }

    def _list_options(self, prefix: str, params: ListParams) -> ListOptions:
        predicate = self.predicate(params)
        selector = params.label_selector
        label = selector.first_exact_match() if predicate is not None and selector is not None else None
        rv = _parse_resource_version(params.resource_version)
        match = _parse_match(params.resource_version_match, params.resource_version)
        if params.continue_token:
            if params.resource_version not in (None, "", "0"):
                raise errors.bad_request("specifying resource version is not allowed when using continue")
            try:
                revision, start = continue_token.decode(params.continue_token)
            except continue_token.InvalidContinueToken as exc:
                raise errors.bad_request(f"invalid continue token: {exc}") from exc
            if revision < 0:  # an inconsistent continuation: the rest of the list as it is now
                revision = 0
            return ListOptions(
                resource_version=revision or None,
                match=ResourceVersionMatch.EXACT if revision else None,
                limit=params.limit,
                continue_key=prefix + start,
                continue_revision=revision,
                predicate=predicate,
                label=label,
            )
        if match is None and rv and params.limit:
            match = ResourceVersionMatch.EXACT  # kube's legacy rule: a paginated list at a revision is exact
        return ListOptions(resource_version=rv, match=match, limit=params.limit, predicate=predicate, label=label)

    def predicate(self, params: ListParams) -> Callable[[Obj], bool] | None:
        labels, fields = params.label_selector, params.field_selector
        if fields is not None and not fields.empty:
            supported = self.strategy.supported_field_labels()
            for req in fields.requirements:
                if req.field not in supported:
                    raise errors.bad_request(f"field label not supported: {req.field}")
        if (labels is None or labels.empty) and (fields is None or fields.empty):
            return None

        def matches(obj: Obj) -> bool:
            if labels is not None and not labels.matches((obj.get("metadata") or {}).get("labels") or {}):
                return False
            return fields is None or fields.empty or fields.matches(self.strategy.fields(obj))

        return matches

    async def watch(self, namespace: str, params: ListParams) -> StreamWatcher:
        rv = _parse_resource_version(params.resource_version)
        _validate_watch_options(params)
        request = WatchRequest(
            prefix=self.list_prefix(namespace),
            resource_version=rv,
            predicate=self.predicate(params),
            allow_bookmarks=params.allow_watch_bookmarks,
            send_initial_events=params.send_initial_events,
            exact_fields=_exact_fields(params),
        )
        try:
            if self.cache is not None:
                return await self.cache.watch_stream(request)
            return await StorageWatch.start(self.storage, request)
        except storage_errors.StorageError as exc:
            raise interpret_watch_error(exc) from exc

    # -- create --------------------------------------------------------------------------------------

    async def create(
        self,
        namespace: str,
        obj: Obj,
        params: WriteParams,
        *,
        mutate: MutateFunc | None = None,
        validate: ValidateFunc | None = None,
    ) -> Obj:
        """Create `obj` (see the module's docstring for the order of the steps)."""
        self.strategy.default(obj)
        if mutate is not None:
            obj = await mutate(obj, None)
        self._check_type_and_namespace(obj, namespace)
        meta = obj["metadata"]
        generate = not meta.get("name") and bool(meta.get("generateName"))
        for attempt in range(_GENERATE_ATTEMPTS if generate else 1):
            candidate = deep_copy(obj) if generate else obj
            if generate:
                suffix = "".join(random.choices(_NAME_CHARS, k=5))
                # kube keeps generated names within 63 characters: at most 58 of the prefix, then 5 random
                candidate["metadata"]["name"] = candidate["metadata"]["generateName"][:58] + suffix
            self.before_create(candidate)
            if validate is not None:
                await validate(deep_copy(candidate), None)
            if params.dry_run:
                return candidate
            name = candidate["metadata"]["name"]
            try:
                return await self.storage.create(self.key(namespace, name), candidate)
            except storage_errors.StorageError as exc:
                if isinstance(exc, storage_errors.KeyExists) and generate and attempt + 1 < _GENERATE_ATTEMPTS:
                    continue
                err = interpret_create_error(exc, self.spec.group_resource, name)
                if generate and isinstance(exc, storage_errors.KeyExists) and isinstance(err, StatusError):
                    err.message += ", the server was not able to generate a unique name for the object"
                raise err from exc
        raise AssertionError("unreachable")  # pragma: no cover

    def before_create(self, obj: Obj) -> None:
        """kube's rest.BeforeCreate: system fields, strategy hooks, validation (on a defaulted object)."""
        meta = obj["metadata"]
        meta["uid"] = new_uid()
        meta["creationTimestamp"] = rfc3339(self.clock.now())
        for system_field in ("deletionTimestamp", "deletionGracePeriodSeconds", "resourceVersion", "selfLink"):
            meta.pop(system_field, None)
        if self.strategy.tracks_generation:
            meta["generation"] = 1
        else:
            meta.pop("generation", None)
        self.strategy.prepare_for_create(obj)
        field_errors = validate_object_meta(
            meta,
            namespaced=self.spec.namespaced,
            name_rule=self.spec.name_rule,
            kube_finalizers=self.strategy.kube_finalizers,
        ) + self.strategy.validate(obj)
        self._raise_invalid(obj, field_errors)
        self.strategy.canonicalize(obj)
        _omit_empty_meta_lists(meta)

    # -- update --------------------------------------------------------------------------------------

    async def update(
        self,
        namespace: str,
        name: str,
        update: UpdateFunc,
        params: WriteParams,
        *,
        strategy: Strategy | None = None,
        mutate: MutateFunc | None = None,
        validate: ValidateFunc | None = None,
        allow_create: bool | None = None,
        preconditions: Preconditions | None = None,
    ) -> tuple[Obj, bool]:
        """Update through guaranteed_update; returns (object, created). `strategy` is a subresource's (status)
        instead of the resource's own; an object the update creates is the resource's own. `preconditions`:
        what the stored object must match (kube's UpdatedObjectInfo.Preconditions: a PUT's body uid)."""
        strategy = strategy or self.strategy
        may_create = strategy.allow_create_on_update if allow_create is None else allow_create
        key = self.key(namespace, name)
        created = False
        result: Obj | None = None

        async def try_update(current: Obj | None) -> Obj:
            nonlocal created, result
            if current is None:
                # storage has checked the preconditions on the empty object it starts from (kube's): a body uid
                # is a Conflict there, before this, even where creating is not allowed
                if not may_create:
                    raise errors.not_found(self.spec.group_resource, name)
                new = await update(None)
                self.strategy.default(new)
                if mutate is not None:
                    new = await mutate(new, None)
                self._check_type_and_namespace(new, namespace)
                self._check_name(new, name)
                self.before_create(new)
                created = True
            else:
                new = await update(deep_copy(current))
                strategy.default(new)
                if mutate is not None:
                    new = await mutate(new, current)
                self._check_type_and_namespace(new, namespace)
                self._check_name(new, name)
                self.before_update(new, current, strategy)
                created = False
            if validate is not None:
                await validate(deep_copy(new), current)
            result = new
            if params.dry_run:
                raise _DryRun(new)
            return new

        try:
            stored = await self.storage.guaranteed_update(
                key, try_update, ignore_not_found=True, preconditions=preconditions
            )
        except _DryRun as dry:
            return dry.obj, created
        except storage_errors.StorageError as exc:
            raise interpret_update_error(exc, self.spec.group_resource, name) from exc
        meta = stored.get("metadata") or {}
        if meta.get("deletionTimestamp") and not self.finalizers_pending(stored) and not meta.get(
            "deletionGracePeriodSeconds"
        ):
            # the last finalizer is gone and no grace period runs (kube's shouldDeleteDuringUpdate): the pending
            # deletion completes now; a pod in its grace period waits for its kubelet
            try:
                stored = await self.storage.delete(
                    key, preconditions=Preconditions(resource_version=meta["resourceVersion"])
                )
            except (storage_errors.KeyNotFound, storage_errors.Conflict):
                pass
        return stored, created

    def before_update(self, new: Obj, old: Obj, strategy: Strategy) -> None:
        """kube's rest.BeforeUpdate: optimistic concurrency, immutable system fields, hooks, validation (on a
        defaulted object)."""
        new_meta, old_meta = new["metadata"], old["metadata"]
        requested_rv = new_meta.get("resourceVersion")
        if requested_rv and str(requested_rv) != old_meta.get("resourceVersion"):
            # kube's Store.Update: the optimistic lock, before anything reaches storage
            raise errors.conflict(self.spec.group_resource, old_meta.get("name", ""), errors.OBJECT_MODIFIED)
        for system_field in (
            "uid",
            "creationTimestamp",
            "deletionTimestamp",
            "deletionGracePeriodSeconds",
            "generation",
        ):
            if system_field in old_meta:
                new_meta[system_field] = old_meta[system_field]
            else:
                new_meta.pop(system_field, None)
        new_meta.pop("selfLink", None)
        new_meta["resourceVersion"] = old_meta.get("resourceVersion")
        strategy.prepare_for_update(new, old)
        new_meta = new["metadata"]
        if strategy.tracks_generation and strategy.spec_changed(new, old):
            new_meta["generation"] = int(old_meta.get("generation") or 0) + 1
        if old_meta.get("deletionTimestamp"):
            added = set(new_meta.get("finalizers") or []) - set(old_meta.get("finalizers") or [])
            if added:
                self._raise_invalid(
                    new,
                    [
                        FieldError.forbidden(
                            "metadata.finalizers",
                            # Go's %#v of the []string, as kube's ValidateNoNewFinalizers prints it
                            "no new finalizers can be added if the object is being deleted, found new finalizers "
                            + "[]string{" + ", ".join(go_quote(f) for f in sorted(added)) + "}",
                        )
                    ],
                )
        field_errors = (
            validate_object_meta_update(new_meta, old_meta, kube_finalizers=self.strategy.kube_finalizers)
            + validate_object_meta(
                new_meta,
                namespaced=self.spec.namespaced,
                name_rule=self.spec.name_rule,
                kube_finalizers=self.strategy.kube_finalizers,
            )
            + strategy.validate_update(new, old)
        )
        self._raise_invalid(new, field_errors)
        strategy.canonicalize(new)
        _omit_empty_meta_lists(new_meta)
        new["metadata"]["resourceVersion"] = old_meta.get("resourceVersion")

    # -- delete --------------------------------------------------------------------------------------

    async def delete(self, namespace: str, name: str, params: DeleteParams) -> tuple[Obj, bool]:
        """Delete or start a graceful/finalized deletion; returns (object, deleted now)."""
        key = self.key(namespace, name)
        current = await self.get(namespace, name)
        self._check_preconditions(current, params)
        await self.strategy.before_delete(current)
        meta = current["metadata"]
        grace = self.strategy.grace_period(current, params.grace_period_seconds)
        if meta.get("finalizers") or grace > 0 or _propagation_finalizer(params):
            return await self._mark_deleting(namespace, name, grace, params), False
        if params.dry_run:
            return current, True
        preconditions = Preconditions(
            uid=params.precondition_uid, resource_version=params.precondition_resource_version
        )
        try:
            deleted = await self.storage.delete(key, preconditions=preconditions)
        except storage_errors.StorageError as exc:
            raise interpret_delete_error(exc, self.spec.group_resource, name) from exc
        return deleted, True

    async def _mark_deleting(self, namespace: str, name: str, grace: int, params: DeleteParams) -> Obj:
        async def mark(current: Obj | None) -> Obj:
            if current is None:
                raise errors.not_found(self.spec.group_resource, name)
            self._check_preconditions(current, params)
            meta = current["metadata"]
            wanted = _propagation_finalizer(params)
            if wanted:
                # Orphan and Foreground hand the object to the garbage collector, which removes the finalizer
                # once it has orphaned or deleted the dependents (kube's deletionFinalizersForGarbageCollection)
                other = GC_FOREGROUND if wanted == GC_ORPHAN else GC_ORPHAN
                finalizers = [f for f in meta.get("finalizers") or [] if f != other]
                if wanted not in finalizers:
                    finalizers.append(wanted)
                meta["finalizers"] = finalizers
            # deletionTimestamp is when the object should be gone: now plus the grace period (kube's BeforeDelete)
            deadline = rfc3339(self.clock.now() + timedelta(seconds=grace))
            if not meta.get("deletionTimestamp"):
                meta["deletionTimestamp"] = deadline
                meta["deletionGracePeriodSeconds"] = grace
                # the object's controllers must stop acting on it: a new generation says so (kube's BeforeDelete
                # and markAsDeleting), for the kinds that count generations
                if int(meta.get("generation") or 0) > 0:
                    meta["generation"] = int(meta["generation"]) + 1
            elif grace < int(meta.get("deletionGracePeriodSeconds") or 0):
                # a pending deletion may only be shortened
                meta["deletionTimestamp"] = min(meta["deletionTimestamp"], deadline)
                meta["deletionGracePeriodSeconds"] = grace
            self.on_deleting(current)
            if params.dry_run:
                raise _DryRun(current)
            return current

        try:
            return await self.storage.guaranteed_update(self.key(namespace, name), mark)
        except _DryRun as dry:
            return dry.obj
        except storage_errors.StorageError as exc:
            raise interpret_delete_error(exc, self.spec.group_resource, name) from exc

    def finalizers_pending(self, obj: Obj) -> bool:
        return bool((obj.get("metadata") or {}).get("finalizers"))

    def on_deleting(self, obj: Obj) -> None:
        """Hook for kinds whose status reflects a pending deletion (namespaces become Terminating)."""

    async def delete_collection(self, namespace: str, list_params: ListParams, params: DeleteParams) -> Obj:
        listed = await self.list(namespace, list_params)
        deleted: list[Obj] = []
        for item in listed["items"]:
            meta = item["metadata"]
            try:
                obj, _ = await self.delete(meta.get("namespace", ""), meta["name"], params)
            except StatusError as exc:
                if exc.code == 404:
                    continue
                raise
            deleted.append(obj)
        listed["items"] = deleted
        return listed

    # -- helpers -------------------------------------------------------------------------------------

    def _check_preconditions(self, current: Obj, params: DeleteParams) -> None:
        meta = current["metadata"]
        # kube's rest.BeforeDelete names the kind, not the resource, in these conflicts (ConfigMap "x")
        by_kind = errors.GroupResource(self.spec.group, self.spec.kind)
        if params.precondition_uid and params.precondition_uid != meta.get("uid"):
            raise errors.conflict(
                by_kind,
                meta["name"],
                f"the UID in the precondition ({params.precondition_uid}) does not match the UID in record "
                f"({meta.get('uid')}). The object might have been deleted and then recreated",
            )
        if params.precondition_resource_version and params.precondition_resource_version != meta.get("resourceVersion"):
            raise errors.conflict(
                by_kind,
                meta["name"],
                f"the ResourceVersion in the precondition ({params.precondition_resource_version}) does not match "
                f"the ResourceVersion in record ({meta.get('resourceVersion')}). The object might have been modified",
            )

    def _check_type_and_namespace(self, obj: Obj, namespace: str) -> None:
        if not isinstance(obj, dict):
            raise errors.bad_request("the body of the request must be an object")
        api_version, kind = obj.get("apiVersion"), obj.get("kind")
        if kind and kind != self.spec.kind:
            raise errors.bad_request(
                f"the kind in the data ({kind}) does not match the expected kind ({self.spec.kind})"
            )
        if api_version and api_version != self.spec.api_version:
            raise errors.bad_request(
                f"the API version in the data ({api_version}) does not match the expected API version "
                f"({self.spec.api_version})"
            )
        rest = {k: v for k, v in obj.items() if k not in ("kind", "apiVersion")}
        obj.clear()  # kind and apiVersion first, as kube writes them
        obj.update(kind=self.spec.kind, apiVersion=self.spec.api_version, **rest)
        meta = obj.get("metadata")
        if meta is None:
            meta = obj["metadata"] = {}
        elif not isinstance(meta, dict):
            kind, version = self.spec.kind, self.spec.version
            raise errors.bad_request(
                f'{kind} in version "{version}" cannot be handled as a {kind}: json: cannot unmarshal '
                f"{serializers.go_json_type(meta)} into Go struct field {kind}.metadata of type v1.ObjectMeta"
            )
        if self.spec.namespaced:
            body_ns = meta.get("namespace")
            if body_ns and namespace and body_ns != namespace:
                raise errors.bad_request(
                    "the namespace of the provided object does not match the namespace sent on the request"
                )
            if namespace:
                meta["namespace"] = namespace
        else:
            meta.pop("namespace", None)

    def _check_name(self, obj: Obj, name: str) -> None:
        body_name = obj["metadata"].get("name")
        if body_name and body_name != name:
            raise errors.bad_request(
                f"the name of the object ({body_name}) does not match the name on the URL ({name})"
            )
        obj["metadata"]["name"] = name

    def _raise_invalid(self, obj: Obj, field_errors: builtins.list[FieldError]) -> None:
        if field_errors:
            name = (obj.get("metadata") or {}).get("name") or ""
            causes = [Cause(e.reason, e.message, e.field) for e in field_errors]
            raise errors.invalid(self.spec.group, self.spec.kind, name, causes)


#: the finalizers through which the garbage collector carries out a propagation policy
GC_ORPHAN = "orphan"
GC_FOREGROUND = "foregroundDeletion"


def _omit_empty_meta_lists(meta: dict[str, Any]) -> None:
    # ObjectMeta's lists are omitempty: a patch that removes the last finalizer leaves no `finalizers: []`
    for key in ("finalizers", "ownerReferences"):
        if key in meta and meta[key] == []:
            del meta[key]


def _propagation_finalizer(params: DeleteParams) -> str | None:
    if params.propagation_policy == "Foreground":
        return GC_FOREGROUND
    if params.propagation_policy == "Orphan" or (params.propagation_policy is None and params.orphan_dependents):
        return GC_ORPHAN
    return None


class _DryRun(Exception):
    """Carries a dry-run result out of guaranteed_update so nothing is written."""

    def __init__(self, obj: Obj) -> None:
        super().__init__("dry run")
        self.obj = obj


def _parse_resource_version(value: str | None) -> int | None:
    if value is None or value == "":
        return None
    if not (value.isascii() and value.isdigit()):
        # kube's text (its storage versioner's field error); kube itself answers 500 here, kubelite 400
        raise errors.bad_request(
            f'resourceVersion: Invalid value: "{value}": strconv.ParseUint: parsing "{value}": invalid syntax'
        )
    return int(value)


def _validate_watch_options(params: ListParams) -> None:
    """kube's validateWatchOptions: resourceVersionMatch on a watch only goes with sendInitialEvents."""
    match, initial = params.resource_version_match, params.send_initial_events
    field = "resourceVersionMatch"
    causes: list[Cause] = []
    if initial is not None and match != "NotOlderThan":
        why = "Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"
        causes.append(Cause("FieldValueForbidden", why, field))
    if match:
        if initial is None:
            why = "Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"
            causes.append(Cause("FieldValueForbidden", why, field))
        if match != "NotOlderThan":
            why = f'Unsupported value: "{match}": supported values: "NotOlderThan"'
            causes.append(Cause("FieldValueNotSupported", why, field))
        if params.continue_token:
            why = "Forbidden: resourceVersionMatch is forbidden when continue is provided"
            causes.append(Cause("FieldValueForbidden", why, field))
    if causes:
        raise errors.invalid("meta.k8s.io", "ListOptions", "", causes)


def _parse_match(match: str | None, rv: str | None) -> ResourceVersionMatch | None:
    if not match:
        return None
    if match not in ("NotOlderThan", "Exact"):
        raise errors.invalid(
            "meta.k8s.io",
            "ListOptions",
            "",
            [
                Cause(
                    "FieldValueNotSupported",
                    f'Unsupported value: "{match}": supported values: "", "Exact", "NotOlderThan"',
                    "resourceVersionMatch",
                )
            ],
        )
    if not rv:
        raise errors.invalid(
            "meta.k8s.io",
            "ListOptions",
            "",
            [
                Cause(
                    "FieldValueForbidden",
                    "Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided",
                    "resourceVersionMatch",
                )
            ],
        )
    if match == "Exact" and rv == "0":
        raise errors.invalid(
            "meta.k8s.io",
            "ListOptions",
            "",
            [
                Cause(
                    "FieldValueForbidden",
                    'Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
                    "resourceVersionMatch",
                )
            ],
        )
    return ResourceVersionMatch(match)


def _exact_fields(params: ListParams) -> dict[str, str]:
    """The field selector's `field=value` terms (the first for a field: every one must hold anyway)."""
    fields = params.field_selector
    if fields is None:
        return {}
    exact: dict[str, str] = {}
    for req in fields.requirements:
        if req.operator == EQUALS:
            exact.setdefault(req.field, req.value)
    return exact
