"""Parsing of query parameters and request bodies shared by the verb handlers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import yaml
from aiohttp import web

from kubelite.apimachinery import errors, protobuf, serializers
from kubelite.apimachinery.errors import Cause
from kubelite.apimachinery.selectors import SelectorError, parse_field_selector, parse_label_selector
from kubelite.registry.options import DeleteParams, ListParams, WriteParams

#: kube-apiserver's limit on a request body
MAX_BODY_BYTES = 3 * 1024 * 1024

_FIELD_VALIDATION = ("Ignore", "Warn", "Strict")


def query_bool(query: Mapping[str, str], name: str) -> bool | None:
    """A boolean query parameter as kube's query decoding parses it; None when absent."""
    value = query.get(name)
    if value is None:
        return None
    lowered = value.lower()
    if lowered in ("true", "1", ""):
        return True
    if lowered in ("false", "0"):
        return False
    raise errors.bad_request(
        f'invalid value for {name}: "{value}": strconv.ParseBool: parsing "{value}": invalid syntax'
    )


def _int(query: Mapping[str, str], name: str) -> int | None:
    value = query.get(name)
    if value is None or value == "":
        return None
    try:
        return int(value)
    except ValueError as exc:  # kube's query decoding passes strconv's error through as it is
        raise errors.bad_request(f'strconv.ParseInt: parsing "{value}": invalid syntax') from exc


def list_params(query: Mapping[str, str]) -> ListParams:
    try:
        labels = parse_label_selector(query["labelSelector"]) if query.get("labelSelector") else None
        fields = parse_field_selector(query["fieldSelector"]) if query.get("fieldSelector") else None
    except SelectorError as exc:
        raise errors.bad_request(str(exc)) from exc
    limit = _int(query, "limit") or 0
    return ListParams(
        label_selector=labels,
        field_selector=fields,
        resource_version=query.get("resourceVersion"),
        resource_version_match=query.get("resourceVersionMatch") or None,
        limit=max(limit, 0),
        continue_token=query.get("continue") or None,
        allow_watch_bookmarks=bool(query_bool(query, "allowWatchBookmarks")),
        send_initial_events=query_bool(query, "sendInitialEvents"),
        timeout_seconds=_int(query, "timeoutSeconds"),
    )


def _dry_run(values: list[str]) -> bool:
    for value in values:
        if value != "All":
            raise errors.invalid(
                "meta.k8s.io",
                "CreateOptions",
                "",
                [Cause("FieldValueNotSupported", f'Unsupported value: "{value}": supported values: "All"', "dryRun")],
            )
    return bool(values)


def write_params(request: web.Request) -> WriteParams:
    query = request.query
    validation = query.get("fieldValidation")
    if validation and validation not in _FIELD_VALIDATION:
        raise errors.bad_request(
            f"fieldValidation parameter unsupported: {validation}. Must be one of Ignore, Warn, or Strict"
        )
    manager = query.get("fieldManager", "")
    if len(manager) > 128:
        raise errors.invalid(
            "meta.k8s.io",
            "CreateOptions",
            "",
            [Cause("FieldValueTooLong", "Too long: may not be more than 128 bytes", "fieldManager")],
        )
    return WriteParams(dry_run=_dry_run(query.getall("dryRun", [])), field_manager=manager)


def delete_params(query: Mapping[str, str], dry_run_values: list[str], body: Any) -> DeleteParams:
    options: dict[str, Any] = body if isinstance(body, dict) else {}
    if body is not None and not isinstance(body, dict):
        raise errors.bad_request("DeleteOptions must be an object")
    preconditions = options.get("preconditions") or {}
    grace = options.get("gracePeriodSeconds")
    if grace is None:
        grace = _int(query, "gracePeriodSeconds")
    policy = options.get("propagationPolicy") or query.get("propagationPolicy")
    if policy is not None and policy not in ("Orphan", "Background", "Foreground"):
        raise errors.invalid(
            "meta.k8s.io",
            "DeleteOptions",
            "",
            [
                Cause(
                    "FieldValueNotSupported",
                    f'Unsupported value: "{policy}": supported values: "Foreground", "Background", "Orphan"',
                    "propagationPolicy",
                )
            ],
        )
    dry_run = options.get("dryRun") or dry_run_values
    return DeleteParams(
        dry_run=_dry_run(list(dry_run)),
        grace_period_seconds=grace if grace is None else int(grace),
        precondition_uid=preconditions.get("uid"),
        precondition_resource_version=preconditions.get("resourceVersion"),
        propagation_policy=policy,
        orphan_dependents=options.get("orphanDependents"),
    )


async def read_body(request: web.Request) -> bytes:
    if request.content_length is not None and request.content_length > MAX_BODY_BYTES:
        raise errors.request_entity_too_large(MAX_BODY_BYTES)
    chunks: list[bytes] = []
    size = 0
    content = request.content
    # what has arrived, as it arrives: a small body is one call, without an async iterator's layers
    while chunk := await content.readany():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise errors.request_entity_too_large(MAX_BODY_BYTES)
        chunks.append(chunk)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


async def read_object(request: web.Request, *, kind: str = "") -> dict[str, Any]:
    """Decode a write's body into an object; anything else is a 400."""
    obj, _, _ = await read_object_and_body(request, kind=kind)
    return obj


async def read_object_and_body(request: web.Request, *, kind: str = "") -> tuple[dict[str, Any], bytes, str]:
    """The decoded object, the raw body and its media type (field validation needs all three).

    `kind` is what the endpoint stores; kube names it in the 400 for a body it cannot read.
    """
    body = await read_body(request)
    content_type = serializers.content_type_of(request.headers.get("Content-Type"))
    if content_type == protobuf.MEDIA_TYPE:
        try:
            return protobuf.decode(body), body, content_type
        except protobuf.ProtobufError as exc:
            raise errors.bad_request(f"error decoding protobuf request body: {exc}") from exc
    if content_type not in (serializers.JSON, serializers.YAML, "application/yml", "text/yaml"):
        raise errors.unsupported_media_type(content_type)
    from_yaml = content_type != serializers.JSON
    try:
        obj = serializers.loads_yaml(body) if from_yaml else serializers.loads_json(body)
    except serializers.DecodeError as exc:
        raise _unrecognized(kind, _decode_error_text(exc, from_yaml), body) from exc
    if obj is None:  # `null` (or an empty YAML document) decodes into an empty object, as in Go
        obj = {}
    if not isinstance(obj, dict):
        why = f"json: cannot unmarshal {serializers.go_json_type(obj)} into Go value of type {_FIND_KIND}"
        raise _unrecognized(kind, f"couldn't get version/kind; json parse error: {why}", body)
    return obj, body, content_type


#: the anonymous struct kube's JSON meta factory reads apiVersion and kind into, as Go prints its type
_FIND_KIND = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }'


def _decode_error_text(exc: serializers.DecodeError, from_yaml: bool) -> str:
    cause = exc.__cause__
    if from_yaml:
        if isinstance(cause, yaml.MarkedYAMLError) and cause.problem_mark is not None:
            return f"error converting YAML to JSON: yaml: line {cause.problem_mark.line + 1}: {cause.problem}"
        return f"error converting YAML to JSON: yaml: {exc}"
    text = str(exc)
    if text.startswith(("unexpected end of data", "Input is a zero-length")):
        text = "unexpected end of JSON input"  # Go's wording for a truncated document
    return f"couldn't get version/kind; json parse error: {text}"


def _unrecognized(kind: str, why: str, body: bytes) -> errors.StatusError:
    """kube's transformDecodeError: the reason, then a summary of the body (objects as text, else hex)."""
    if not kind:
        return errors.bad_request(why)
    if not body:
        summary = "<empty>"
    else:
        head = body[:30]
        summary = head.decode(errors="replace") if body.startswith(b"{") else head.hex()
        summary += " ..." if len(body) > 30 else ""
    return errors.bad_request(f"the object provided is unrecognized (must be of type {kind}): {why} ({summary})")
