"""API errors: the `Status` objects every failure turns into.

kube-apiserver reports every failure as a `v1 Status` whose `reason` and `code` clients switch on and whose
`message` kubectl prints verbatim (`Error from server (<reason>): <message>`). The constructors below build
those Statuses with the texts of k8s.io/apimachinery's `api/errors` package, so clients see the same words.
Lower layers raise their own errors; the registry translates them into these once, at its boundary.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class GroupResource:
    """A resource qualified by its API group; prints as kube does (`pods`, `deployments.apps`)."""

    group: str
    resource: str

    def __str__(self) -> str:
        return f"{self.resource}.{self.group}" if self.group else self.resource


@dataclass(frozen=True, slots=True)
class Cause:
    """One `details.causes[]` entry: a field error of an Invalid, or a reason of another failure."""

    reason: str
    message: str
    field: str = ""

    def to_dict(self) -> dict[str, str]:
        out = {"reason": self.reason, "message": self.message}
        if self.field:
            out["field"] = self.field
        return out


@dataclass(slots=True)
class StatusError(Exception):
    """An error that is already an API `Status`: what the client receives."""

    code: int
    reason: str
    message: str
    details: dict[str, Any] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    #: the Status's ListMeta (an expired continue token's successor travels in metadata.continue)
    list_meta: dict[str, Any] | None = None

    def __str__(self) -> str:
        return self.message

    def to_status(self) -> dict[str, Any]:
        status: dict[str, Any] = {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": dict(self.list_meta or {}),
            "status": "Failure",
            "message": self.message,
            "reason": self.reason,
            "code": self.code,
        }
        if self.details is not None:  # kube sends an empty details object when the pointer is set
            status["details"] = self.details
        return status


def _details(qualified: GroupResource, name: str, **extra: Any) -> dict[str, Any]:
    details: dict[str, Any] = {"name": name} if name else {}
    if qualified.group:
        details["group"] = qualified.group
    details["kind"] = qualified.resource
    details.update(extra)
    return details


def not_found(qualified: GroupResource, name: str) -> StatusError:
    return StatusError(404, "NotFound", f'{qualified} "{name}" not found', _details(qualified, name))


def already_exists(qualified: GroupResource, name: str) -> StatusError:
    return StatusError(409, "AlreadyExists", f'{qualified} "{name}" already exists', _details(qualified, name))


def conflict(qualified: GroupResource, name: str, why: str) -> StatusError:
    return StatusError(
        409,
        "Conflict",
        f'Operation cannot be fulfilled on {qualified} "{name}": {why}',
        _details(qualified, name),
    )


OBJECT_MODIFIED = "the object has been modified; please apply your changes to the latest version and try again"


def invalid(group: str, kind: str, name: str, causes: list[Cause]) -> StatusError:
    """422 Invalid, message formatted as field.ErrorList.ToAggregate() prints it."""
    texts = [f"{c.field}: {c.message}" if c.field else c.message for c in causes]
    summary = texts[0] if len(texts) == 1 else "[" + ", ".join(texts) + "]"
    details: dict[str, Any] = {"name": name} if name else {}
    if group:
        details["group"] = group
    details["kind"] = kind
    details["causes"] = [c.to_dict() for c in causes]
    qualified = f"{kind}.{group}" if group else kind  # schema.GroupKind's String(), e.g. Deployment.apps
    return StatusError(422, "Invalid", f'{qualified} "{name}" is invalid: {summary}', details)


def bad_request(message: str) -> StatusError:
    return StatusError(400, "BadRequest", message)


def method_not_supported(qualified: GroupResource, action: str) -> StatusError:
    return StatusError(
        405,
        "MethodNotAllowed",
        f'{action} is not supported on resources of kind "{qualified}"',
        _details(qualified, ""),
    )


def method_not_allowed() -> StatusError:
    """go-restful's 405 for a path without a route for the method, as kube's service error handler wraps it."""
    return StatusError(
        405, "MethodNotAllowed", "the server does not allow this method on the requested resource", {}
    )


def patch_not_applicable() -> StatusError:
    """A JSON patch whose operations fail: kube answers a generic 422 and drops the patch library's text."""
    return StatusError(422, "Invalid", "the server rejected our request due to an error in our request", {})


def route_not_found() -> StatusError:
    """go-restful's 404 for a path under a served group/version that has no route."""
    return StatusError(404, "NotFound", "the server could not find the requested resource", {})


def gone(message: str) -> StatusError:
    return StatusError(410, "Expired", message)


def resource_expired(message: str) -> StatusError:
    return StatusError(410, "Expired", message)


def too_old_resource_version(requested: int, oldest: int) -> StatusError:
    return StatusError(410, "Expired", f"too old resource version: {requested} ({oldest})")


def unauthorized(message: str = "Unauthorized") -> StatusError:
    return StatusError(401, "Unauthorized", message)


def forbidden(qualified: GroupResource, name: str, why: str) -> StatusError:
    if name:
        message = f'{qualified} "{name}" is forbidden: {why}'
    else:
        message = f"{qualified} is forbidden: {why}"
    return StatusError(403, "Forbidden", message, _details(qualified, name))


def namespace_terminating(qualified: GroupResource, name: str, namespace: str) -> StatusError:
    why = f"unable to create new content in namespace {namespace} because it is being terminated"
    err = forbidden(qualified, name, why)
    err.details = {
        **(err.details or {}),
        "causes": [
            Cause(
                "NamespaceTerminating", f"namespace {namespace} is being terminated", "metadata.namespace"
            ).to_dict()
        ],
    }
    return err


def request_entity_too_large(limit: int) -> StatusError:
    return StatusError(413, "RequestEntityTooLarge", f"Request entity too large: limit is {limit}")


ACCEPTED_MEDIA_TYPES = "application/json, application/yaml, application/vnd.kubernetes.protobuf"


def unsupported_media_type(content_type: str) -> StatusError:
    return StatusError(
        415,
        "UnsupportedMediaType",
        f"the body of the request was in an unknown format - accepted media types include: {ACCEPTED_MEDIA_TYPES}",
    )


def not_acceptable() -> StatusError:
    return StatusError(406, "NotAcceptable", f"only the following media types are accepted: {ACCEPTED_MEDIA_TYPES}")


def internal_error(why: str) -> StatusError:
    return StatusError(
        500,
        "InternalError",
        f"Internal error occurred: {why}",
        {"causes": [{"message": why}]},
    )


def service_unavailable(message: str) -> StatusError:
    return StatusError(503, "ServiceUnavailable", message)


def timeout(message: str) -> StatusError:
    """kube's NewTimeoutError, which prefixes its message."""
    return StatusError(504, "Timeout", f"Timeout: {message}")
