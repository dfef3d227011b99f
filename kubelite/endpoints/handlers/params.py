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


#: the range of Go's int64, which kube parses every integer query parameter into
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1


def parse_int64(value: str) -> int:
    """An integer as Go's strconv.ParseInt(value, 10, 64) reads it, with its error text on failure."""
    digits = value[1:] if value[:1] in ("+", "-") else value
    # str.isdigit accepts other scripts' digits and int() accepts underscores and spaces; Go takes neither
    if not digits or not (digits.isascii() and digits.isdigit()):
        raise errors.bad_request(f'strconv.ParseInt: parsing "{value}": invalid syntax')
    if len(digits) > 19:  # beyond any int64; int() of a huge string would take a while and a lot of memory
        raise errors.bad_request(f'strconv.ParseInt: parsing "{value}": value out of range')
    number = int(value)
    if not INT64_MIN <= number <= INT64_MAX:
        raise errors.bad_request(f'strconv.ParseInt: parsing "{value}": value out of range')
    return number


def _int(query: Mapping[str, str], name: str) -> int | None:
    value = query.get(name)
    if value is None or value == "":
        return None
    return parse_int64(value)  # kube's query decoding passes strconv's error through as it is


def resource_version_param(query: Mapping[str, str]) -> str | None:
    """`resourceVersion` where kube parses it as a revision (the storage versioner's uint64).

    kube's text is its storage versioner's field error; kube itself lets that error through as a 500
    on a get, kubelite answers it as the 400 it is.
    """
    value = query.get("resourceVersion")
    if value and value != "0":
        if not (value.isascii() and value.isdigit()):
            reason = "invalid syntax"
        elif len(value) > 20 or int(value) >= 1 << 64:
            reason = "value out of range"
        else:
            return value
        raise errors.bad_request(
            f'resourceVersion: Invalid value: "{value}": strconv.ParseUint: parsing "{value}": {reason}'
        )
    return value


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
    if body is not None and not isinstance(body, dict):
        why = f"json: cannot unmarshal {serializers.go_json_type(body)} into Go value of type {_FIND_KIND}"
        raise errors.bad_request(f"couldn't get version/kind; json parse error: {why}")
    options: dict[str, Any] = body or {}
    _check_delete_options(options)
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
        grace_period_seconds=grace,
        precondition_uid=preconditions.get("uid"),
        precondition_resource_version=preconditions.get("resourceVersion"),
        propagation_policy=policy,
        orphan_dependents=options.get("orphanDependents"),
    )


#: DeleteOptions' fields as Go declares them: the JSON types each accepts, and the Go type kube names
_DELETE_OPTION_TYPES: dict[str, tuple[str, str]] = {
    "gracePeriodSeconds": ("int64", "int64"),
    "orphanDependents": ("bool", "bool"),
    "propagationPolicy": ("string", "v1.DeletionPropagation"),
    "kind": ("string", "string"),
    "apiVersion": ("string", "string"),
}
_PRECONDITION_TYPES = {"uid": "types.UID", "resourceVersion": "string"}


def _check_delete_options(options: dict[str, Any]) -> None:
    """A DeleteOptions body whose fields have the wrong JSON type: kube's 400 with Go's unmarshal text.

    Go's decoder treats `null` as absent, so only values present and not null are checked.
    """
    for name, (json_type, go_type) in _DELETE_OPTION_TYPES.items():
        value = options.get(name)
        if value is not None and not _json_type_fits(value, json_type):
            raise _unmarshal_error(value, f"DeleteOptions.{name}", go_type)
    preconditions = options.get("preconditions")
    if preconditions is not None:
        if not isinstance(preconditions, dict):
            raise _unmarshal_error(preconditions, "DeleteOptions.preconditions", "v1.Preconditions")
        for name, go_type in _PRECONDITION_TYPES.items():
            value = preconditions.get(name)
            if value is not None and not isinstance(value, str):
                raise _unmarshal_error(value, f"DeleteOptions.preconditions.{name}", go_type)
    dry_run = options.get("dryRun")
    if dry_run is not None:
        if not isinstance(dry_run, list):
            raise _unmarshal_error(dry_run, "DeleteOptions.dryRun", "[]string")
        for item in dry_run:
            if not isinstance(item, str):
                raise _unmarshal_error(item, "DeleteOptions.dryRun", "string")


def _json_type_fits(value: Any, json_type: str) -> bool:
    if json_type == "int64":
        return isinstance(value, int) and not isinstance(value, bool) and INT64_MIN <= value <= INT64_MAX
    if json_type == "bool":
        return isinstance(value, bool)
    return isinstance(value, str)


def _unmarshal_error(value: Any, field: str, go_type: str) -> errors.StatusError:
    """Go's json.UnmarshalTypeError text; a number that does not fit is named with its value."""
    described = serializers.go_json_type(value)
    if described == "number" and go_type == "int64":
        literal = int(value) if isinstance(value, float) and value.is_integer() else value
        described = f"number {literal}"
    return errors.bad_request(f"json: cannot unmarshal {described} into Go struct field {field} of type {go_type}")


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


async def read_object(request: web.Request, *, kind: str = "", version: str = "") -> dict[str, Any]:
    """Decode a write's body into an object; anything else is a 400."""
    obj, _, _ = await read_object_and_body(request, kind=kind, version=version)
    return obj


async def read_object_and_body(
    request: web.Request, *, kind: str = "", version: str = ""
) -> tuple[dict[str, Any], bytes, str]:
    """The decoded object, the raw body and its media type (field validation needs all three).

    `kind` (and `version`) is what the endpoint stores; kube names it in the 400 for a body it cannot read.
    """
    body = await read_body(request)
    content_type = serializers.content_type_of(request.headers.get("Content-Type"))
    if content_type == protobuf.MEDIA_TYPE:
        try:
            decoded = protobuf.decode(body)
            # messages nest only as their schema does, but embedded raw JSON (RawExtension) may nest deeper;
            # a body with few brackets cannot hold JSON that deep
            if serializers.may_be_deeper_than_limit(body):
                serializers.check_depth(decoded)
        except (protobuf.ProtobufError, serializers.DecodeError, RecursionError) as exc:
            raise errors.bad_request(f"error decoding protobuf request body: {exc}") from exc
        return _typed_shape(decoded, kind, version), body, content_type
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
    return _typed_shape(obj, kind, version), body, content_type


def _typed_shape(obj: dict[str, Any], kind: str, version: str) -> dict[str, Any]:
    """What decoding into kube's typed struct makes of metadata: every object has its ObjectMeta, and
    metadata that is not an object cannot be read at all."""
    meta = obj.get("metadata")
    if meta is None:
        obj["metadata"] = {}
    elif not isinstance(meta, dict):
        why = f"json: cannot unmarshal {serializers.go_json_type(meta)} into Go struct field "
        why += f"{kind or 'Object'}.metadata of type v1.ObjectMeta"
        if kind:
            raise errors.bad_request(f'{kind} in version "{version}" cannot be handled as a {kind}: {why}')
        raise errors.bad_request(why)
    return obj


def drop_null_fields(obj: dict[str, Any]) -> dict[str, Any]:
    """A top-level `null` (`"spec": null`) is an absent field once decoded into kube's Go types.

    Called after field validation, which still reports an unknown field whose value is null.
    """
    if None in obj.values():
        for key in [key for key, value in obj.items() if value is None]:
            del obj[key]
    return obj


#: the anonymous struct kube's JSON meta factory reads apiVersion and kind into, as Go prints its type
_FIND_KIND = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }'


def _decode_error_text(exc: serializers.DecodeError, from_yaml: bool) -> str:
    cause = exc.__cause__
    if from_yaml:  # kube's YAML serializer passes go-yaml's error through as it is (sigs.k8s.io/yaml's YAMLToJSON)
        if isinstance(cause, yaml.MarkedYAMLError) and cause.problem_mark is not None:
            return f"yaml: line {cause.problem_mark.line + 1}: {cause.problem}"
        return f"yaml: {exc}"
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


def check_name(obj: dict[str, Any], namespace: str, name: str) -> None:
    """kube's update handler: the body names the object of the URL, an empty name included (a PUT of `{}`
    replaces nothing). The namespace is checked first, as kube does."""
    meta = obj["metadata"]
    body_namespace = meta.get("namespace") or ""
    if namespace and body_namespace and body_namespace != namespace:
        raise errors.bad_request(
            "the namespace of the provided object does not match the namespace sent on the request"
        )
    body_name = meta.get("name") or ""
    if body_name != name:
        raise errors.bad_request(f"the name of the object ({body_name}) does not match the name on the URL ({name})")
