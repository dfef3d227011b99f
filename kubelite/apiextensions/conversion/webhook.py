"""Strategy `Webhook`: a ConversionReview posted to the CRD's conversion webhook (kube's webhookConverter).

The objects not yet in the desired version go out in one review, in the first of the CRD's
`conversionReviewVersions` kube speaks (v1, v1beta1). The answer must be a review of that version (for v1:
the same uid) with result Success and as many converted objects, each in the desired version, of the same
kind, name, namespace and uid. Of the metadata a webhook returns only labels and annotations are kept, and
validated when they changed; the rest is restored from the original. Every failure is a 500 Status whose
message is kube's (`conversion webhook for <group/version, Kind=kind> failed: ...`).
"""

from __future__ import annotations

import base64
import binascii
import json
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson

from kubelite.apiextensions.conversion.none import set_api_version
from kubelite.apiextensions.conversion.transport import CallError, ConfigError, ServiceResolver, WebhookClient
from kubelite.apiextensions.conversion.versions import conversion_failed, group_version_string, gvk_string
from kubelite.apimachinery import gofmt, serializers
from kubelite.apimachinery.meta import Obj
from kubelite.apimachinery.validation import aggregate_message, validate_annotations, validate_labels

__all__ = ["DEFAULT_MAX_RESPONSE_BYTES", "DEFAULT_TIMEOUT", "ConfigError", "WebhookConverter"]

#: kube's webhook request timeout, the whole call including reading the answer
DEFAULT_TIMEOUT = 30.0
#: the largest answer read; a review carries whole objects (up to ~1.5 MiB each in etcd), hence the margin
DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024

GROUP = "apiextensions.k8s.io"
_REVIEW_VERSIONS = ("v1", "v1beta1")


def _ca_bundle(client_config: Mapping[str, Any]) -> bytes:
    raw = client_config.get("caBundle")
    if not raw:
        return b""
    if not isinstance(raw, str):
        raise ConfigError("caBundle must be base64-encoded PEM")
    try:
        decoded = base64.b64decode(raw, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ConfigError(f"caBundle is not base64: {exc}") from exc
    return decoded if decoded.strip() else b""  # whitespace alone counts as empty, as kube treats it


def _is_empty_object(obj: Obj) -> bool:
    # kube converts {apiVersion, kind} alone without the webhook (apimachinery's smoke tests send such objects)
    return len(obj) == 2 and "apiVersion" in obj and "kind" in obj


class WebhookConverter:
    def __init__(
        self,
        webhook: Mapping[str, Any],
        resolve_service: ServiceResolver,
        *,
        client_cert: tuple[str | Path, str | Path] | None,
        timeout: float,
        max_response_bytes: int,
    ) -> None:
        client_config = webhook.get("clientConfig")
        if not isinstance(client_config, Mapping):
            client_config = {}
        versions = webhook.get("conversionReviewVersions")
        self.review_versions = [v for v in versions if isinstance(v, str)] if isinstance(versions, list) else []
        self.client = WebhookClient(
            client_config,
            resolve_service,
            ca_bundle=_ca_bundle(client_config),
            client_cert=client_cert,
            timeout=timeout,
            max_response_bytes=max_response_bytes,
        )

    async def close(self) -> None:
        await self.client.close()

    async def convert(self, objects: list[Obj], to_api_version: str) -> list[Obj]:
        out = list(objects)
        pending: list[int] = []
        for index, obj in enumerate(objects):
            if obj.get("apiVersion") == to_api_version:
                continue
            if _is_empty_object(obj):
                out[index] = set_api_version(obj, to_api_version)
            else:
                pending.append(index)
        if not pending:
            return out
        as_list = len(objects) > 1
        # the list a kube client asks for names its kind <Kind>List; a single object names its own kind
        subject = gvk_string(objects[pending[0]], kind_suffix="List" if as_list else "")
        review_version = next((v for v in self.review_versions if v in _REVIEW_VERSIONS), None)
        if review_version is None:
            raise conversion_failed("no supported conversion review versions")
        uid = str(uuid.uuid4())
        request = _review(review_version, uid, to_api_version, [objects[i] for i in pending])
        try:
            answer = await self.client.post(json.dumps(request, separators=(",", ":")).encode())
            converted = _converted_objects(review_version, uid, answer)
        except CallError as exc:
            raise conversion_failed(f"conversion webhook for {subject} failed: {exc}") from exc
        if len(converted) != len(pending):
            raise conversion_failed(
                f"conversion webhook for {subject} returned {len(converted)} objects, expected {len(pending)}"
            )
        for position, index in enumerate(pending):
            out[index] = _accept(subject, as_list, position, objects[index], converted[position], to_api_version)
        return out


def _review(version: str, uid: str, desired: str, objects: list[Obj]) -> dict[str, Any]:
    return {
        "kind": "ConversionReview",
        "apiVersion": f"{GROUP}/{version}",
        "request": {"uid": uid, "desiredAPIVersion": desired, "objects": objects},
        # kube sends the empty response it decodes the answer into
        "response": {"uid": "", "convertedObjects": None, "result": {"metadata": {}}},
    }


_TYPE_META = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }'


def _not_an_object(type_name: str) -> CallError:
    return CallError(
        f"couldn't get version/kind; json parse error: json: cannot unmarshal {type_name} into Go value of type "
        + _TYPE_META
    )


def _parse_review(data: bytes) -> dict[str, Any]:
    """The answer as kube's universal deserializer reads it: JSON when it opens with `{`, else YAML, which for
    anything but a mapping reads as a scalar and fails to give a kind."""
    if not data.lstrip().startswith(b"{"):
        try:
            value = json.loads(data)
        except (ValueError, RecursionError):
            value = ""  # YAML reads stray text as a string
        raise _not_an_object(gofmt.json_type(value) if value is not None else "string")
    try:
        review = json.loads(data)
        # what the server cannot hold is refused here, not when a converted object is encoded later
        serializers.check_depth(review)
        orjson.dumps(review)
    except (RecursionError, serializers.DecodeError) as exc:
        raise CallError("couldn't get version/kind; json parse error: exceeded max depth") from exc
    except TypeError as exc:  # orjson: an integer beyond 64 bits
        raise CallError(f"couldn't get version/kind; json parse error: {exc}") from exc
    except json.JSONDecodeError as exc:
        # encoding/json's syntax errors, approximately: the truncated input kube names exactly
        if exc.pos >= len(exc.doc.rstrip()):
            detail = "unexpected end of JSON input"
        else:
            char = exc.doc[exc.pos]
            shown = "\\'" if char == "'" else char if char.isprintable() else gofmt.escape_rune(char)
            detail = f"invalid character '{shown}' looking for beginning of value"
        raise CallError(f"couldn't get version/kind; json parse error: {detail}") from exc
    except UnicodeDecodeError as exc:
        raise CallError("couldn't get version/kind; json parse error: invalid UTF-8 in JSON input") from exc
    if not isinstance(review, dict):
        raise _not_an_object(gofmt.json_type(review))
    return review


def _converted_objects(version: str, uid: str, data: bytes) -> list[Any]:
    """getConvertedObjectsFromResponse: the answer's convertedObjects, else the reason it is unusable."""
    review = _parse_review(data)
    response = review.get("response")
    if version == "v1":
        got = {"kind": review.get("kind"), "apiVersion": review.get("apiVersion")}
        if got["apiVersion"] != f"{GROUP}/v1" or got["kind"] != "ConversionReview":
            raise CallError(f"expected webhook response of {GROUP}/v1, Kind=ConversionReview, got {gvk_string(got)}")
        if not isinstance(response, dict):
            raise CallError("no response provided")
        got_uid = response.get("uid")
        got_uid = got_uid if isinstance(got_uid, str) else ""
        if got_uid != uid:
            raise CallError(f"expected response.uid={gofmt.quote(uid)}, got {gofmt.quote(got_uid)}")
    elif not isinstance(response, dict):  # v1beta1 answers were never checked for kind or uid
        raise CallError("no response provided")
    result = response.get("result")
    result = result if isinstance(result, dict) else {}
    status = result.get("status")
    if status != "Success":
        message = result.get("message")
        if isinstance(message, str) and message:
            raise CallError(message)
        raise CallError(f"response.result.status was '{status if isinstance(status, str) else ''}', not 'Success'")
    converted = response.get("convertedObjects")
    return converted if isinstance(converted, list) else []


def _raw_object(raw: Any) -> Obj:
    """getRawExtensionObject: a converted object must decode as an object with a kind."""
    if not isinstance(raw, dict):
        if raw is None:
            raise ValueError("unexpected end of JSON input")
        raise ValueError(
            f"json: cannot unmarshal {gofmt.json_type(raw)} into Go value of type map[string]interface {{}}"
        )
    kind = raw.get("kind")
    if not isinstance(kind, str) or not kind:
        raise ValueError(f"Object 'Kind' is missing in '{json.dumps(raw, separators=(',', ':'))}'")
    return raw


def _str_field(obj: Obj, key: str) -> str:
    metadata = obj.get("metadata")
    value = metadata.get(key) if isinstance(metadata, dict) else None
    return value if isinstance(value, str) else ""


def _same_identity(original: Obj, converted: Obj) -> str | None:
    """validateConvertedObject: why the converted object is not the same object, None when it is."""
    if original.get("kind") != converted.get("kind"):
        return f"must have the same kind: {original.get('kind')} != {converted.get('kind')}"
    for key, label in (("name", "name"), ("namespace", "namespace"), ("uid", "UID")):
        expected, got = _str_field(original, key), _str_field(converted, key)
        if expected != got:
            return f"must have the same {label}: {expected} != {got}"
    return None


def _restore_metadata(original: Obj, converted: Obj) -> Obj:
    """restoreObjectMeta: the original's metadata with the converted labels and annotations; ValueError with
    kube's text when those are malformed or invalid."""
    if "metadata" not in converted:
        raise ValueError("missing metadata in converted object")
    answered = converted["metadata"]
    if not isinstance(answered, dict):
        raise ValueError(f"invalid metadata of type {gofmt.type_name(answered)} in converted object")
    original_meta = original.get("metadata")
    metadata: dict[str, Any] = dict(original_meta) if isinstance(original_meta, dict) else {}
    for field in ("labels", "annotations"):
        given = answered.get(field)
        if given is None:
            metadata.pop(field, None)
            continue
        if not isinstance(given, dict):
            raise ValueError(f"invalid metadata.{field} of type {gofmt.type_name(given)} in converted object")
        had = metadata.get(field)
        if had is not None and not isinstance(had, dict):
            raise ValueError(f"invalid metadata.{field} of type {gofmt.type_name(had)} in original object")
        had = had or {}
        changed = len(had) != len(given)
        for key, value in given.items():
            if not isinstance(value, str):
                raise ValueError(
                    f"metadata.{field}[{key}] must be a string, but is {gofmt.type_name(value)} in converted object"
                )
            if had.get(key) != value:
                changed = True
        if changed:
            # kube's path for annotations here is metadata.annotation, singular
            errors = (
                validate_labels(given, "metadata.labels")
                if field == "labels"
                else validate_annotations(given, "metadata.annotation")
            )
            if errors:
                raise ValueError(aggregate_message(errors))
        metadata[field] = given
    restored = dict(converted)
    restored["metadata"] = metadata
    return restored


def _accept(subject: str, as_list: bool, position: int, original: Obj, raw: Any, desired: str) -> Obj:
    """One converted object checked against its original, with its metadata restored."""
    where = f"invalid converted object at index {position}" if as_list else "invalid object at index 0"
    try:
        converted = _raw_object(raw)
    except ValueError as exc:
        if as_list:
            raise conversion_failed(f"conversion webhook for {subject} returned {where}: {exc}") from exc
        raise conversion_failed(str(exc)) from exc  # kube returns this one unwrapped
    expected_gv, got_gv = group_version_string(desired), group_version_string(converted.get("apiVersion"))
    if expected_gv != got_gv:
        raise conversion_failed(
            f"conversion webhook for {subject} returned {where}: invalid groupVersion "
            f"(expected {expected_gv}, received {got_gv})"
        )
    if original.get("kind") != converted.get("kind"):
        raise conversion_failed(
            f"conversion webhook for {subject} returned {where}: invalid kind "
            f"(expected {original.get('kind')}, received {converted.get('kind')})"
        )
    mismatch = _same_identity(original, converted)
    if mismatch is not None:
        prefix = f"returned invalid converted object at index {position}" if as_list else "returned invalid object"
        raise conversion_failed(f"conversion webhook for {subject} {prefix}: {mismatch}")
    try:
        return _restore_metadata(original, converted)
    except ValueError as exc:
        prefix = f"returned invalid metadata in object at index {position}" if as_list else "returned invalid metadata"
        raise conversion_failed(f"conversion webhook for {subject} {prefix}: {exc}") from exc
