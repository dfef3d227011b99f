"""OpenAPIBuilder: the served OpenAPI documents, built on first request and kept as bytes.

Construction only records the resources, so server start-up does not pay for reading and converting
the 1.6 MB of type schemas. Each document is rendered once, serialized once, and served from the cached
bytes afterwards. Like kube-openapi, a document is identified to clients by the upper-case hex SHA-512
of exactly those bytes: the v3 index points at `/openapi/v3/<name>?hash=<that>`, and the same value is
the ETag.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from kubelite.endpoints.openapi import paths, v2, v3
from kubelite.endpoints.openapi.model import PathItem
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


class OpenAPIBuilder:
    """The OpenAPI v3 documents (one per group-version and discovery root) and the v2 document."""

    def __init__(self, resources: Sequence[ResourceSpec], *, version: str = KUBERNETES_VERSION) -> None:
        self._resources = tuple(resources)
        self._version = version
        self._by_gv = paths.group_versions(self._resources)
        groups = dict.fromkeys(spec.group for spec in self._resources if spec.group)
        self._names: tuple[str, ...] = tuple(
            sorted(["api", "apis", "version", *self._by_gv, *(f"apis/{group}" for group in groups)])
        )
        self._lock = threading.Lock()
        self._v3: dict[str, tuple[bytes, str]] = {}
        self._v2: tuple[bytes, str] | None = None

    @property
    def v3_names(self) -> tuple[str, ...]:
        """The v3 document names (`api/v1`, `apis/apps`, ...), sorted."""
        return self._names

    def v3_index(self) -> dict[str, Any]:
        """The `/openapi/v3` index: every document's URL, pinned to the hash of its current bytes."""
        return {
            "paths": {
                name: {"serverRelativeURL": v3.server_relative_url(name, self._v3_built(name)[1])}
                for name in self._names
            }
        }

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

    def v2_document(self) -> tuple[bytes, str]:
        """The swagger 2.0 document of the whole API as JSON bytes, with its ETag."""
        built = self._v2
        if built is None:
            with self._lock:
                built = self._v2
                if built is None:
                    items = [item for name in self._names for item in self._items(name)]
                    data = _serialize(v2.document(items, self._version))
                    built = self._v2 = (data, etag(data))
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

    def _v3_built(self, name: str) -> tuple[bytes, str]:
        built = self._v3.get(name)
        if built is None:
            with self._lock:
                built = self._v3.get(name)
                if built is None:
                    data = _serialize(v3.document(self._items(name), self._version))
                    built = self._v3[name] = (data, etag(data))
        return built

    def _items(self, name: str) -> list[PathItem]:
        if name == "api":
            return [paths.core_root()]
        if name == "apis":
            return [paths.apis_root()]
        if name == "version":
            return [paths.version_root()]
        resources = self._by_gv.get(name)
        if resources is None:
            return [paths.group_root(name.removeprefix("apis/"))]
        first = resources[0]
        items = [paths.group_version_root(first.group, first.version)]
        for spec in resources:
            items.extend(paths.resource_paths(spec))
        return items
