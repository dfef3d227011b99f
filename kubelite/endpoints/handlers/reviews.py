"""The review endpoints: answers computed from the request's user and the authorizer, never stored.

kubectl's `auth whoami` posts a SelfSubjectReview, `auth can-i` a SelfSubjectAccessReview, `auth can-i
--list` a SelfSubjectRulesReview; webhooks and controllers post SubjectAccessReviews.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from kubelite.apimachinery import errors, serializers
from kubelite.apimachinery.meta import Obj
from kubelite.auth.authz.interface import AuthorizationAttributes, Authorizer
from kubelite.auth.user import UserInfo
from kubelite.endpoints.handlers import field_validation, params
from kubelite.endpoints.handlers.negotiation import negotiate, write_object
from kubelite.endpoints.handlers.scope import RequestScope
from kubelite.endpoints.request_context import user_from
from kubelite.endpoints.request_info import RequestInfo


def _user_info(user: UserInfo | None) -> dict[str, Any]:
    if user is None:
        return {}
    info: dict[str, Any] = {"username": user.name}
    if user.uid:
        info["uid"] = user.uid
    if user.groups:
        info["groups"] = list(user.groups)
    if user.extra:
        info["extra"] = {k: list(v) for k, v in user.extra.items()}
    return info


def _user_from_spec(spec: dict[str, Any]) -> UserInfo:
    extra = {k: tuple(v) for k, v in (spec.get("extra") or {}).items()}
    return UserInfo(
        name=str(spec.get("user") or ""),
        uid=str(spec.get("uid") or ""),
        groups=tuple(spec.get("groups") or ()),
        extra=extra,
    )


def _attributes(user: UserInfo | None, spec: dict[str, Any], namespace: str) -> AuthorizationAttributes:
    resource = spec.get("resourceAttributes")
    if isinstance(resource, dict):
        return AuthorizationAttributes(
            user=user,
            verb=str(resource.get("verb") or ""),
            namespace=namespace or str(resource.get("namespace") or ""),
            api_group=str(resource.get("group") or ""),
            api_version=str(resource.get("version") or ""),
            resource=str(resource.get("resource") or ""),
            subresource=str(resource.get("subresource") or ""),
            name=str(resource.get("name") or ""),
        )
    non_resource = spec.get("nonResourceAttributes")
    if isinstance(non_resource, dict):
        return AuthorizationAttributes(
            user=user,
            verb=str(non_resource.get("verb") or ""),
            path=str(non_resource.get("path") or ""),
            resource_request=False,
        )
    raise errors.invalid(
        "authorization.k8s.io",
        "SelfSubjectAccessReview",
        "",
        [
            errors.Cause(
                "FieldValueRequired",
                "Required value: exactly one of nonResourceAttributes or resourceAttributes must be specified",
                "spec.resourceAttributes",
            )
        ],
    )


def make_review_handler(authorizer: Authorizer):
    async def review(request: web.Request, scope: RequestScope, info: RequestInfo) -> web.StreamResponse:
        negotiated = negotiate(request.headers.get("Accept"), allow_conversion=False)
        body, raw, media_type = await params.read_object_and_body(
            request, kind=scope.spec.kind, version=scope.spec.version
        )
        warnings = field_validation.check(
            scope.spec, body, raw, request.query.get("fieldValidation"), media_type == serializers.JSON
        )
        kind = scope.spec.kind
        if body.get("kind") not in (None, kind):
            raise errors.bad_request(
                f"the kind in the data ({body.get('kind')}) does not match the expected kind ({kind})"
            )
        user = user_from(request)
        spec = raw_spec if isinstance(raw_spec := body.get("spec"), dict) else {}
        meta = dict(body.get("metadata") or {})
        meta.setdefault("creationTimestamp", None)
        out: Obj = {"kind": kind, "apiVersion": scope.spec.api_version, "metadata": meta}
        if kind == "SelfSubjectReview":
            out["status"] = {"userInfo": _user_info(user)}
        elif kind == "SelfSubjectRulesReview":
            resource_rules, non_resource_rules = authorizer.rules_for(user, str(spec.get("namespace") or ""))
            out["spec"] = spec
            out["status"] = {
                "resourceRules": [
                    {
                        "verbs": list(r.verbs),
                        "apiGroups": list(r.api_groups),
                        "resources": list(r.resources),
                        **({"resourceNames": list(r.resource_names)} if r.resource_names else {}),
                    }
                    for r in resource_rules
                ],
                "nonResourceRules": [
                    {"verbs": list(r.verbs), "nonResourceURLs": list(r.non_resource_urls)} for r in non_resource_rules
                ],
                "incomplete": False,
            }
        else:
            subject = user if kind == "SelfSubjectAccessReview" else _user_from_spec(spec)
            if kind == "LocalSubjectAccessReview":
                ns = str(((spec.get("resourceAttributes") or {}).get("namespace")) or "")
                if ns != info.namespace:
                    raise errors.bad_request(
                        f"spec.resourceAttributes.namespace must match namespace: {info.namespace}"
                    )
            decision = authorizer.authorize(_attributes(subject, spec, info.namespace))
            out["spec"] = spec
            status: dict[str, Any] = {"allowed": decision.allowed}
            if decision.reason:
                status["reason"] = decision.reason
            out["status"] = status
        return write_object(out, negotiated, status=201, warnings=warnings)

    return review
