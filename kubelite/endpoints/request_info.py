"""RequestInfo: what a request is about, parsed from its URL once (kube's `RequestInfoFactory`).

Every later stage (authorization, admission, audit, the handlers) reads the verb, group, version, resource,
namespace, name and subresource from here instead of parsing the path again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from kubelite.apimachinery.selectors import SelectorError, parse_field_selector

#: subresources of namespaces that are addressed as /namespaces/{name}/{subresource}
_NAMESPACE_SUBRESOURCES = frozenset({"status", "finalize"})

#: the verb kube also accepts as a path segment before the resource (the deprecated /watch/ paths); kube's
#: other one, /proxy/, is not parsed: nothing serves it, and as a resource name it 404s as kube's mux does
_SPECIAL_VERBS = frozenset({"watch"})

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


def _watch_requested(query: Mapping[str, str]) -> bool:
    """ListOptions.watch as kube decodes it: any value but "false" or "0" means true."""
    value = query.get("watch")
    return value is not None and value.lower() not in ("false", "0")


def _valid_path_segment_name(name: str) -> bool:
    return name not in (".", "..") and "/" not in name and "%" not in name


def _name_from_field_selector(query: Mapping[str, str]) -> str:
    """A list or watch narrowed to one object by `metadata.name=...` is about that name."""
    text = query.get("fieldSelector")
    if not text:
        return ""
    try:
        name = parse_field_selector(text).exact_match("metadata.name")
    except SelectorError:
        return ""
    return name if name and _valid_path_segment_name(name) else ""


def parse_request_info(method: str, path: str, query: Mapping[str, str]) -> RequestInfo:
    """Parse the decoded URL path (Go's URL.Path) the way kube-apiserver does.

    Non-resource paths keep the lowercased method as verb.
    """
    info = RequestInfo(path=path, verb=method.lower())
    segments = path.strip("/").split("/") if path.strip("/") else []
    if len(segments) < 3 or segments[0] not in ("api", "apis"):
        return info
    info.api_prefix = segments[0]
    rest = segments[1:]
    if info.api_prefix == "apis":
        if len(rest) < 3:  # /apis/{group}/{version} is discovery
            return info
        info.api_group, rest = rest[0], rest[1:]
    info.api_version, rest = rest[0], rest[1:]

    info.is_resource_request = True
    verb = _METHOD_VERBS.get(method.upper(), "")
    if rest[0] in _SPECIAL_VERBS and len(rest) > 1:
        verb = rest[0]
        rest = rest[1:]
    if rest[0] == "namespaces":
        if len(rest) > 1:
            info.namespace = rest[1]
            if len(rest) > 2 and rest[2] not in _NAMESPACE_SUBRESOURCES:
                rest = rest[2:]
    info.parts = rest
    info.resource = rest[0]
    if len(rest) >= 2:
        info.name = rest[1]
    if len(rest) >= 3:
        info.subresource = rest[2]

    if verb == "get" and not info.name:
        verb = "watch" if _watch_requested(query) else "list"
        info.name = _name_from_field_selector(query)
    if verb == "delete" and not info.name:
        verb = "deletecollection"
    info.verb = verb
    return info
