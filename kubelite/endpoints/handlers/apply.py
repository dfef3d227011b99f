"""PATCH with `application/apply-patch+yaml`: server-side apply (kube's applyPatcher).

The body is an applied configuration, YAML or JSON, of the endpoint's kind. It runs inside the Store's
guaranteed update like every patch, so a lost race re-reads the object and applies again; an apply to a
missing object creates it (201), except through a subresource. `fieldManager` is required, `force=true`
takes fields other managers own; without it such fields are a 409 listing each conflict. Unknown fields
and values of the wrong type fail with the text of kube's typed conversion (as a 400: kube says 500);
`fieldValidation=Strict` additionally refuses keys repeated in the YAML, as kube's strict YAML decoding
does after the merge. The merged object then takes the Store's order: defaulted, then mutating admission.
"""

from __future__ import annotations

from typing import Any

import yaml
from aiohttp import web

from kubelite.admission import Attributes
from kubelite.apimachinery import errors, serializers
from kubelite.apimachinery.errors import Cause
from kubelite.apimachinery.meta import Obj
from kubelite.apimachinery.validation import go_quote
from kubelite.endpoints.handlers import field_validation, params
from kubelite.endpoints.handlers.apply_schema import field_manager
from kubelite.endpoints.handlers.negotiation import negotiate, write_object
from kubelite.endpoints.handlers.scope import RequestScope
from kubelite.endpoints.request_context import user_from
from kubelite.endpoints.request_info import RequestInfo

try:  # libyaml's composer when PyYAML has it
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover - depends on the wheel
    # the pure-Python class stands in for the C one: another class, the same interface
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]


def force_param(query: Any) -> bool:
    """`force`, parsed as kube's query decoding parses a bool."""
    return bool(params.query_bool(query, "force"))


def require_field_manager(query: Any) -> None:
    """ValidatePatchOptions: an apply names its manager (kubectl sends `kubectl` by default)."""
    if not query.get("fieldManager"):
        raise errors.invalid(
            "meta.k8s.io",
            "PatchOptions",
            "",
            [Cause("FieldValueRequired", "Required value: is required for apply patch", "fieldManager")],
        )


def decode_configuration(body: bytes) -> Obj:
    """The applied configuration; 400 `error decoding YAML: ...` as kube's YAML unmarshalling words it."""
    try:
        config = serializers.loads_yaml(body)
    except serializers.DecodeError as exc:
        cause = exc.__cause__
        if isinstance(cause, yaml.MarkedYAMLError) and cause.problem_mark is not None:
            why = f"yaml: line {cause.problem_mark.line + 1}: {cause.problem}"
        else:
            why = f"yaml: {exc}"
        raise errors.bad_request(f"error decoding YAML: error converting YAML to JSON: {why}") from exc
    if config is None:
        return {}
    if not isinstance(config, dict):
        kind = "array" if isinstance(config, list) else "string" if isinstance(config, str) else "number"
        raise errors.bad_request(
            "error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal "
            f"{kind} into Go value of type map[string]interface {{}}"
        )
    return config


def duplicate_keys(body: bytes) -> list[str]:
    """go-yaml's strict-mode findings: `line N: key "k" already set in map`, in document order."""
    try:
        root = yaml.compose(body, Loader=_Loader)
    except yaml.YAMLError:
        return []
    found: list[tuple[int, int, str]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, yaml.MappingNode):
            seen: set[str] = set()
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode):
                    if key.value in seen:
                        mark = key.start_mark
                        text = f"line {mark.line + 1}: key {go_quote(key.value)} already set in map"
                        found.append((mark.line, mark.column, text))
                    seen.add(key.value)
                stack.append(value)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
    return [text for _, _, text in sorted(found)]


async def apply(request: web.Request, scope: RequestScope, info: RequestInfo) -> web.StreamResponse:
    negotiated = negotiate(request.headers.get("Accept"), allow_conversion=False)
    force = force_param(request.query)
    require_field_manager(request.query)
    write = params.write_params(request)
    body = await params.read_body(request)
    strategy = None
    status_resets_labels = False
    if info.subresource:
        strategy = scope.subresource_strategies.get(info.subresource)
        if strategy is None:
            raise errors.not_found(scope.spec.group_resource, info.name)
        # a /status strategy says whether its kind's status writes may not touch labels (they are reset too)
        parent = getattr(strategy, "parent", None)
        status_resets_labels = bool(getattr(parent, "status_resets_labels", False))
    manager = field_manager(scope.spec, info.subresource, status_resets_labels=status_resets_labels)
    strict = request.query.get("fieldValidation") == "Strict"
    user = user_from(request)

    def attributes(operation: str) -> Attributes:
        return Attributes(operation, scope.spec, info.namespace, info.name, info.subresource, user, write.dry_run)

    async def applied(current: Obj | None) -> Obj:
        config = decode_configuration(body)
        # the configuration's numbers as the kind's Go type holds them: one its field cannot hold is refused
        field_validation.refuse_unfit_integers(scope.spec, config)
        new = manager.apply(current, config, write.field_manager, force=force)
        if strict:
            findings = duplicate_keys(body)
            if findings:
                raise errors.bad_request(
                    "error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  "
                    + "\n  ".join(findings)
                )
        meta = new.setdefault("metadata", {})
        if current is None:
            if meta.get("uid"):
                why = f"uid mismatch: the provided object specified uid {meta['uid']}, and no existing object was found"
                raise errors.conflict(scope.spec.group_resource, info.name, why)
            if not meta.get("name"):
                raise errors.bad_request(
                    f"the name of the object ({info.name} based on URL) was undeterminable: name must be provided"
                )
        return new

    async def admit(new: Obj, current: Obj | None) -> Obj:
        # after the Store has defaulted the merged object: kube's field manager defaults inside Apply, so
        # mutating admission sees (and may change) the defaulted object
        await scope.admission.admit(attributes("CREATE" if current is None else "UPDATE"), new, current)
        return new

    async def validate(final: Obj, old: Obj | None) -> None:
        await scope.admission.validate(attributes("CREATE" if old is None else "UPDATE"), final, old)

    result, created = await scope.store.update(
        info.namespace,
        info.name,
        applied,
        write,
        strategy=strategy,
        mutate=admit,
        validate=validate,
        allow_create=not info.subresource,
    )
    return write_object(result, negotiated, status=201 if created else 200)
