"""RequestInfo: what a request is about, parsed from its URL once (kube's `RequestInfoFactory`).

Every later stage (authorization, admission, audit, the handlers) reads the verb, group, version, resource,
namespace, name and subresource from here instead of parsing the path again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import unquote

#: subresources of namespaces that are addressed as /namespaces/{name}/{subresource}
_NAMESPACE_SUBRESOURCES = frozenset({"status", "finalize"})

_METHOD_VERBS = {"POST": "create", "GET": "get", "HEAD": "get", "PUT": "update", "PATCH": "patch", "DELETE": "delete"}


@dataclass(slots=True)
class RequestInfo:
    path: str
    is_resource_request: bool = False
    verb: str = ""
    api_prefix: str = ""
    api_group: str = ""
    api_version: str = ""
    namespace: str = ""
    resource: str = ""
    subresource: str = ""
    name: str = ""
    parts: list[str] = field(default_factory=list)


def _truthy(value: str | None) -> bool:
    return value is not None and value.lower() in ("true", "1")


def parse_request_info(method: str, path: str, query: dict[str, str]) -> RequestInfo:
    """Parse the path the way kube-apiserver does; non-resource paths keep the lowercased method as verb."""
    info = RequestInfo(path=path, verb=method.lower())
    segments = [unquote(s) for s in path.strip("/").split("/")] if path.strip("/") else []
    if not segments or segments[0] not in ("api", "apis"):
        return info
    info.api_prefix = segments[0]
    rest = segments[1:]
    if info.api_prefix == "apis":
        if len(rest) < 2:  # /apis and /apis/{group} are discovery
            return info
        info.api_group, rest = rest[0], rest[1:]
    if not rest:  # /api
        return info
    info.api_version, rest = rest[0], rest[1:]
    if not rest:  # /api/v1, /apis/{group}/{version}
        return info

    info.is_resource_request = True
    verb = _METHOD_VERBS.get(method.upper(), method.lower())
    if rest[0] == "watch":  # legacy /watch/ paths
        verb = "watch"
        rest = rest[1:]
    if rest and rest[0] == "namespaces":
        if len(rest) > 1:
            info.namespace = rest[1]
            if len(rest) > 2 and rest[2] not in _NAMESPACE_SUBRESOURCES:
                rest = rest[2:]
    info.parts = rest
    if rest:
        info.resource = rest[0]
    if len(rest) >= 2:
        info.name = rest[1]
    if len(rest) >= 3:
        info.subresource = rest[2]

    if verb == "get" and not info.name:
        verb = "watch" if _truthy(query.get("watch")) else "list"
    elif verb == "get" and _truthy(query.get("watch")):
        verb = "watch"
    elif verb == "delete" and not info.name:
        verb = "deletecollection"
    info.verb = verb
    return info
