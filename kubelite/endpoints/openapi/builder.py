"""OpenAPIBuilder: the served OpenAPI documents, built on first request and kept as bytes.

Construction only records the resources, so server start-up does not pay for reading and converting
the 1.6 MB of type schemas. Each document is rendered once, serialized once, and served from the cached
bytes afterwards. Like kube-openapi, a document is identified to clients by the upper-case hex SHA-512
of exactly those bytes: the v3 index points at `/openapi/v3/<name>?hash=<that>`, and the same value is
the ETag.

Resources come and go while the server runs (custom resources, as their CRDs are established and
deleted). Adding or removing one only records the change and forgets the documents it touches (its
group-version's, its group's, and v2, which holds everything); those are rebuilt on their next request,
and every other document keeps its bytes and hash, so what clients cached of it stays valid. Building
happens outside the lock that changes take, so a change never waits for a document being rendered; a
document rendered from a state that changed meanwhile is answered once but not kept.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from kubelite.apimachinery import schema_definitions
from kubelite.endpoints.openapi import custom_paths, custom_v2, naming, paths, v2, v2_protobuf, v3
from kubelite.endpoints.openapi.model import PathItem
from kubelite.endpoints.openapi.schemas import Flavour, component_schemas, references
from kubelite.registry.spec import ResourceSpec

#: the Kubernetes release the documents describe (info.version)
KUBERNETES_VERSION = "v1.36.0"

_ONE_YEAR = 365 * 24 * 3600


def etag(data: bytes) -> str:
    """kube-openapi's ETag and document hash: SHA-512 of the served bytes, upper-case hex."""
    return hashlib.sha512(data).hexdigest().upper()


def _serialize(document: dict[str, Any]) -> bytes:
    # Sorted keys make the bytes, and so the hash, depend on the content alone.
    return orjson.dumps(document, option=orjson.OPT_SORT_KEYS)


@dataclass(frozen=True, slots=True)
class Reply:
    """What to answer for an OpenAPI request: status, headers and body."""

    status: int
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class _Installed:
    spec: ResourceSpec
    #: the schemas a custom resource brings (its kind's and its list's), in OpenAPI v3 form; None when its
    #: schemas are among the built-in definitions
    definitions: Mapping[str, Mapping[str, Any]] | None


def _gvk_of(schema: Mapping[str, Any]) -> tuple[str, str, str] | None:
    for gvk in schema.get("x-kubernetes-group-version-kind") or ():
        if isinstance(gvk, Mapping):
            return (str(gvk.get("group", "")), str(gvk.get("version", "")), str(gvk.get("kind", "")))
    return None


def _definition_names(installed: _Installed) -> tuple[str, str]:
    """The definitions a custom resource's paths refer to: its kind's and its list's."""
    spec = installed.spec
    object_name = naming.model_name(spec.group, spec.version, spec.kind)
    list_name = naming.model_name(spec.group, spec.version, spec.list_kind)
    for name, schema in (installed.definitions or {}).items():
        gvk = _gvk_of(schema)
        if gvk is None or gvk[:2] != (spec.group, spec.version):
            continue
        if gvk[2] == spec.kind:
            object_name = name
        else:
            list_name = name  # a CRD may name its list kind freely (spec.names.listKind)
    return object_name, list_name


def _gv_name(group: str, version: str) -> str:
    return paths.api_prefix(group, version).lstrip("/")


class OpenAPIBuilder:
    """The OpenAPI v3 documents (one per group-version and discovery root) and the v2 document."""

    def __init__(self, resources: Sequence[ResourceSpec], *, version: str = KUBERNETES_VERSION) -> None:
        self._version = version
        #: v3 document name (`apis/apps/v1`) -> resource -> what is installed there, in installation order
        self._by_gv: dict[str, dict[str, _Installed]] = {}
        for spec in resources:
            self._by_gv.setdefault(_gv_name(spec.group, spec.version), {})[spec.resource] = _Installed(spec, None)
        self._names = self._document_names()
        #: taken briefly, to change or read the state; never while rendering
        self._lock = threading.Lock()
        #: taken while rendering, so two threads do not render the same document at once
        self._build_lock = threading.Lock()
        self._v3: dict[str, tuple[bytes, str]] = {}
        self._v2: tuple[bytes, str] | None = None
        self._v2_proto: tuple[bytes, str] | None = None
        #: bumped whenever a document's content may change; a render from an older state is not kept
        self._generation: dict[str, int] = {}
        self._v2_generation = 0
        #: custom definitions converted to their v2 form, by name, with the v3 schema each was made from
        self._v2_forms: dict[str, tuple[Mapping[str, Any], dict[str, Any]]] = {}

    # changes

    def add_resource(self, spec: ResourceSpec, definitions: Mapping[str, Mapping[str, Any]] | None = None) -> None:
        """Publish `spec` (and its subresources) in its group-version's document, creating the document (and,
        for a built-in resource, its group's) when new; replaces what was published for the same resource.

        `definitions` are the schemas the resource brings (name -> schema, OpenAPI v3 form, e.g. a custom
        resource's kind and list), served in v3 as given and in v2 in the form custom_v2 makes of them;
        None: the kind's schemas are among the built-in definitions. The schemas are kept, not copied:
        callers hand over fresh ones and do not change them afterwards. Only records the change (no
        document is rendered here), so it is cheap enough for the event loop.
        """
        name = _gv_name(spec.group, spec.version)
        installed = _Installed(spec, dict(definitions) if definitions is not None else None)
        with self._lock:
            previous = self._by_gv.setdefault(name, {}).get(spec.resource)
            self._by_gv[name][spec.resource] = installed
            self._changed(name, spec.group, previous, installed)

    def remove_resource(self, group: str, version: str, resource: str) -> None:
        """Stop publishing a resource; its group-version's document goes with its last resource."""
        name = _gv_name(group, version)
        with self._lock:
            resources = self._by_gv.get(name)
            if resources is None or resource not in resources:
                return
            previous = resources.pop(resource)
            if not resources:
                del self._by_gv[name]
            self._changed(name, group, previous, None)

    def _changed(self, name: str, group: str, *installed: _Installed | None) -> None:
        for gone in installed:
            for definition in (gone.definitions or {}) if gone is not None else {}:
                self._v2_forms.pop(definition, None)
        touched = [name, f"apis/{group}"] if group else [name]
        for document in touched:
            self._v3.pop(document, None)
            self._generation[document] = self._generation.get(document, 0) + 1
        self._v2 = self._v2_proto = None
        self._v2_generation += 1
        self._names = self._document_names()

    def _document_names(self) -> tuple[str, ...]:
        groups = {
            installed.spec.group
            for resources in self._by_gv.values()
            for installed in resources.values()
            if installed.spec.group and not installed.spec.custom
        }
        # kube serves no group document for a group of custom resources only: its /apis/<group>/ is not
        # one of the routes OpenAPI is built from
        return tuple(sorted(["api", "apis", "version", *self._by_gv, *(f"apis/{group}" for group in groups)]))

    # documents

    @property
    def v3_names(self) -> tuple[str, ...]:
        """The v3 document names (`api/v1`, `apis/apps`, ...), sorted."""
        return self._names

    def v3_index(self) -> dict[str, Any]:
        """The `/openapi/v3` index: every document's URL, pinned to the hash of its current bytes."""
        out: dict[str, Any] = {}
        for name in self._names:
            built = self._v3_built(name)
            if built is not None:
                out[name] = {"serverRelativeURL": v3.server_relative_url(name, built[1])}
        return {"paths": out}

    def v3_index_document(self) -> tuple[bytes, str]:
        """The index as served (JSON bytes) and its ETag."""
        data = _serialize(self.v3_index())
        return data, etag(data)

    def v3_document(self, gv_path: str) -> tuple[bytes, str] | None:
        """The v3 document `api/v1`, `apis/apps/v1`, `apis/apps`, `api`, `apis` or `version` as JSON bytes
        with its hash; None for a name we do not serve."""
        if gv_path not in self._names:
            return None
        return self._v3_built(gv_path)

    def is_built(self, what: str) -> bool:
        """Whether answering for `what` (a v3 document name, `index` for the v3 index, `v2` or `v2-protobuf`)
        needs no rendering: callers on an event loop render elsewhere when it does."""
        if what == "v2":
            return self._v2 is not None
        if what == "v2-protobuf":
            return self._v2_proto is not None
        if what == "index":
            return all(name in self._v3 for name in self._names)
        return what in self._v3 or what not in self._names

    def v2_document(self) -> tuple[bytes, str]:
        """The swagger 2.0 document of the whole API as JSON bytes, with its ETag."""
        built = self._v2
        if built is not None:
            return built
        with self._build_lock:
            with self._lock:
                built, generation = self._v2, self._v2_generation
                snapshot = self._snapshot(self._names)
            if built is not None:
                return built
            items = [item for name, installed in snapshot for item in self._items(name, installed)]
            data = _serialize(v2.document(items, self._version, self._components(snapshot, "v2")))
            built = (data, etag(data))
            with self._lock:
                if generation == self._v2_generation:
                    self._v2 = built
        return built

    def v2_protobuf(self) -> tuple[bytes, str]:
        """The v2 document in gnostic's OpenAPIv2 protobuf (kube-openapi's other encoding of the same
        document, under the same ETag)."""
        built = self._v2_proto
        if built is not None:
            return built
        with self._lock:
            generation = self._v2_generation
        data, tag = self.v2_document()
        built = (v2_protobuf.encode(orjson.loads(data)), tag)
        with self._lock:
            if generation == self._v2_generation:
                self._v2_proto = built
        return built

    def v3_reply(self, gv_path: str, requested_hash: str | None) -> Reply:
        """The answer kube-openapi gives a GET of `/openapi/v3/<gv_path>[?hash=...]`.

        A current hash gets the document marked immutable for a year; a stale one a 301 to the current
        URL, so clients that cached the index refetch; no hash gets the document with its ETag only.
        """
        built = self.v3_document(gv_path)
        if built is None:
            return Reply(404)
        data, tag = built
        headers = {"Content-Type": "application/json", "Etag": f'"{tag}"', "Vary": "Accept"}
        if requested_hash:
            if requested_hash != tag:
                return Reply(301, headers={"Location": v3.server_relative_url(gv_path, tag)})
            headers["Cache-Control"] = "public, immutable"
            headers["Expires"] = time.strftime(
                "%a, %d %b %Y %H:%M:%S GMT", time.gmtime(time.time() + _ONE_YEAR)
            )
        return Reply(200, data, headers)

    def warm(self) -> None:
        """Build every document now (e.g. in a worker thread after start-up) instead of on first request."""
        self.v3_index()
        self.v2_document()

    # rendering

    def _v3_built(self, name: str) -> tuple[bytes, str] | None:
        built = self._v3.get(name)
        if built is not None:
            return built
        with self._build_lock:
            with self._lock:
                built = self._v3.get(name)
                if built is None and name not in self._names:
                    return None  # removed meanwhile
                generation = self._generation.get(name, 0)
                snapshot = self._snapshot((name,))
            if built is not None:
                return built
            installed = snapshot[0][1]
            custom = bool(installed) and all(entry.spec.custom for entry in installed)
            document = v3.document(
                self._items(name, installed), self._version, self._components(snapshot, "v3"), custom=custom
            )
            data = _serialize(document)
            built = (data, etag(data))
            with self._lock:
                if generation == self._generation.get(name, 0):
                    self._v3[name] = built
        return built

    def _snapshot(self, names: Iterable[str]) -> list[tuple[str, list[_Installed]]]:
        """What each named document holds now (called under the lock; the entries are immutable)."""
        return [(name, list(self._by_gv.get(name, {}).values())) for name in names]

    @staticmethod
    def _items(name: str, installed: list[_Installed]) -> list[PathItem]:
        if name == "api":
            return [paths.core_root()]
        if name == "apis":
            return [paths.apis_root()]
        if name == "version":
            return [paths.version_root()]
        if not installed:
            return [paths.group_root(name.removeprefix("apis/"))]
        items: list[PathItem] = []
        built_in = [entry for entry in installed if not entry.spec.custom]
        if built_in:
            # a group-version of custom resources only has no discovery path in its document, as in kube
            items.append(paths.group_version_root(built_in[0].spec.group, built_in[0].spec.version))
        for entry in installed:
            if entry.spec.custom:
                items.extend(custom_paths.custom_resource_paths(entry.spec, *_definition_names(entry)))
            else:
                items.extend(paths.resource_paths(entry.spec))
        return items

    def _components(
        self, snapshot: list[tuple[str, list[_Installed]]], flavour: Flavour
    ) -> v3.Components:
        custom: dict[str, Mapping[str, Any]] = {}
        builtin = schema_definitions.definitions()
        for _, installed in snapshot:
            for entry in installed:
                # the built-in definitions win, as kube-openapi's merge keeps the static spec: a CRD whose
                # definition name is a built-in one's (a group posing as core) cannot replace it
                custom.update({k: v for k, v in (entry.definitions or {}).items() if k not in builtin})

        def components(roots: Iterable[str]) -> dict[str, Any]:
            if not custom:
                return component_schemas(roots, flavour)
            reached: set[str] = set()
            built_in: set[str] = set()
            stack = list(roots)
            while stack:
                name = stack.pop()
                if name in custom:
                    if name not in reached:
                        reached.add(name)
                        stack.extend(references(custom[name]))
                else:
                    built_in.add(name)
            out: dict[str, Any] = component_schemas(built_in, flavour)
            for name in reached:
                out[name] = custom[name] if flavour == "v3" else self._v2_form(name, custom[name])
            return dict(sorted(out.items()))

        return components

    def _v2_form(self, name: str, schema: Mapping[str, Any]) -> dict[str, Any]:
        cached = self._v2_forms.get(name)
        if cached is not None and cached[0] is schema:
            return cached[1]
        converted = custom_v2.definition(schema)
        with self._lock:
            self._v2_forms[name] = (schema, converted)
        return converted
