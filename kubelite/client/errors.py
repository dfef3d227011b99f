"""The client's errors, drawn as a tree:

    ClientError                      anything this package raises about talking to a server
      ConfigError                    a kubeconfig or in-cluster environment that cannot be used
      TransportError                 the request did not get an HTTP answer (refused, reset, TLS, timeout)
        ConnectionRefused            nobody listens: the server is down or restarting
      ApiError                       the server answered with a failure `Status` (code, reason, message, details)
        BadRequest 400, Unauthorized 401, Forbidden 403, NotFound 404, MethodNotAllowed 405, NotAcceptable 406,
        Conflict 409, AlreadyExists 409, Gone 410 (Expired 410), RequestEntityTooLarge 413,
        UnsupportedMediaType 415, Invalid 422, TooManyRequests 429, InternalError 500, ServiceUnavailable 503,
        Timeout 504 / ServerTimeout 500

A failure is classified by its Status `reason` first and by its HTTP code only when the reason is one the
client does not know (as k8s.io/apimachinery's `errors.ReasonForError` and `IsNotFound` do), so `except
NotFound` works against any kube-apiserver. Errors of the transport library are translated here, once.
"""

from __future__ import annotations

from typing import Any


class ClientError(Exception):
    """Base of everything kubelite.client raises about a server or its configuration."""


class ConfigError(ClientError, ValueError):
    """A configuration that cannot work; the message names the fix."""


class TransportError(ClientError):
    """No HTTP response: the connection failed, broke, or timed out."""


class ConnectionRefused(TransportError):
    """The server refused the connection (it is down or restarting); worth retrying the same request later."""


class ApiError(ClientError):
    """A failure `Status` from the server. `status` is the whole object as received (or synthesized)."""

    #: the reason this class stands for; ApiError itself stands for any other
    REASON = ""

    def __init__(
        self, status: dict[str, Any], *, code: int | None = None, retry_after: float | None = None
    ) -> None:
        self.status = status
        self.code = int(status.get("code") or code or 0)
        self.reason = str(status.get("reason") or "")
        self.message = str(status.get("message") or "")
        self.details: dict[str, Any] = dict(status.get("details") or {})
        #: seconds the server asked us to wait (Retry-After header, else details.retryAfterSeconds)
        self.retry_after = retry_after
        if self.retry_after is None and self.details.get("retryAfterSeconds"):
            self.retry_after = float(self.details["retryAfterSeconds"])
        super().__init__(self.message or f"the server responded with the status code {self.code}")

    def causes(self) -> list[dict[str, Any]]:
        return list(self.details.get("causes") or [])

    def has_cause(self, cause_type: str) -> bool:
        return any(cause.get("reason") == cause_type for cause in self.causes())

    @staticmethod
    def from_status(
        status: dict[str, Any], *, code: int | None = None, retry_after: float | None = None
    ) -> ApiError:
        """The most specific error class for a Status (by reason, else by code)."""
        reason = str(status.get("reason") or "")
        number = int(status.get("code") or code or 0)
        cls = _BY_REASON.get(reason) or _BY_CODE.get(number, ApiError)
        return cls(status, code=code, retry_after=retry_after)


class BadRequest(ApiError):
    REASON = "BadRequest"


class Unauthorized(ApiError):
    REASON = "Unauthorized"


class Forbidden(ApiError):
    REASON = "Forbidden"


class NotFound(ApiError):
    REASON = "NotFound"


class MethodNotAllowed(ApiError):
    REASON = "MethodNotAllowed"


class NotAcceptable(ApiError):
    REASON = "NotAcceptable"


class Conflict(ApiError):
    REASON = "Conflict"


class AlreadyExists(ApiError):
    REASON = "AlreadyExists"


class Gone(ApiError):
    """410: what the client asked for is no longer there. A watch or list from a compacted resourceVersion
    ends with this (reason Expired on servers since 1.18, Gone before); a reflector relists."""

    REASON = "Gone"


class Expired(Gone):
    REASON = "Expired"


class RequestEntityTooLarge(ApiError):
    REASON = "RequestEntityTooLarge"


class UnsupportedMediaType(ApiError):
    REASON = "UnsupportedMediaType"


class Invalid(ApiError):
    REASON = "Invalid"


class TooManyRequests(ApiError):
    REASON = "TooManyRequests"


class InternalError(ApiError):
    REASON = "InternalError"


class ServiceUnavailable(ApiError):
    REASON = "ServiceUnavailable"


class Timeout(ApiError):
    """504 reason Timeout: the request did not finish in time (or, from old servers, a too-new RV)."""

    REASON = "Timeout"


class ServerTimeout(ApiError):
    REASON = "ServerTimeout"


_CLASSES: tuple[type[ApiError], ...] = (
    BadRequest, Unauthorized, Forbidden, NotFound, MethodNotAllowed, NotAcceptable, Conflict, AlreadyExists,
    Gone, Expired, RequestEntityTooLarge, UnsupportedMediaType, Invalid, TooManyRequests, InternalError,
    ServiceUnavailable, Timeout, ServerTimeout,
)  # fmt: skip
_BY_REASON: dict[str, type[ApiError]] = {cls.REASON: cls for cls in _CLASSES}
#: the reason a bare HTTP code stands for (apimachinery's `reasonForCode`)
_BY_CODE: dict[int, type[ApiError]] = {
    400: BadRequest, 401: Unauthorized, 403: Forbidden, 404: NotFound, 405: MethodNotAllowed,
    406: NotAcceptable, 409: Conflict, 410: Gone, 413: RequestEntityTooLarge, 415: UnsupportedMediaType,
    422: Invalid, 429: TooManyRequests, 500: InternalError, 503: ServiceUnavailable, 504: Timeout,
}  # fmt: skip

#: `details.causes[].reason` of a list or watch at a resourceVersion newer than the server has
CAUSE_RESOURCE_VERSION_TOO_LARGE = "ResourceVersionTooLarge"

_GENERIC_MESSAGES = {
    400: "the server rejected our request for an unknown reason",
    401: "the server has asked for the client to provide credentials",
    403: "the server does not allow access to the requested resource",
    404: "the server could not find the requested resource",
    405: "the server does not allow this method on the requested resource",
    406: "the server was unable to respond with a content type that the client supports",
    409: "the server reported a conflict",
    410: "the requested resource is no longer available",
    413: "the server has rejected the request because it is too large",
    415: "the server was unable to respond with a content type that the client supports",
    422: "the server rejected our request due to an error in our request",
    429: "the server has received too many requests and has asked us to try again later",
    500: "an error on the server has prevented the request from succeeding",
    503: "the server is currently unable to handle the request",
    504: "the server was unable to return a response in the time allotted, but may still be processing the request",
}


def status_for_response(code: int, body: bytes) -> dict[str, Any]:
    """A Status for a failed response whose body is not one (a proxy's page, an empty body)."""
    cls = _BY_CODE.get(code, ApiError)
    message = _GENERIC_MESSAGES.get(code, f"the server responded with the status code {code}")
    text = body.decode("utf-8", "replace").strip()
    if text and code not in (401, 403, 404, 405, 406, 410, 415, 429):
        message = f"{message} ({text[:500]})"
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": cls.REASON,
        "code": code,
    }


def is_expired(err: BaseException) -> bool:
    """A 410: the resourceVersion asked for is compacted (the reflector's `isExpiredError`)."""
    return isinstance(err, Gone)


def is_too_large_resource_version(err: BaseException) -> bool:
    """The resourceVersion asked for is newer than the server has (e.g. a server restored from an older backup)."""
    if not isinstance(err, ApiError):
        return False
    if err.has_cause(CAUSE_RESOURCE_VERSION_TOO_LARGE):
        return True
    return isinstance(err, Timeout) and "Too large resource version" in err.message
