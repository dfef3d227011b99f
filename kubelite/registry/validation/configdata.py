"""ConfigMaps and Secrets (kube's ValidateConfigMap*, ValidateSecret*): key syntax, the 1 MiB total, the data
each well-known secret type requires, and immutability once `immutable: true` is set.

Secret and binaryData values are stored base64-encoded, as they travel in JSON; sizes count decoded bytes.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from typing import Any, Final

from kubelite.apimachinery import gofmt
from kubelite.apimachinery.validation import FIELD_IMMUTABLE, FieldError, regex_error
from kubelite.registry.spec import ResourceSpec
from kubelite.registry.validation.common import mapping, semantic_equal, text
from kubelite.registry.validation.quantities import decode_error

MAX_SIZE: Final = 1024 * 1024
REDACTED: Final = "<secret contents redacted>"

_KEY_FMT: Final = "[-._a-zA-Z0-9]+"
_KEY_RE: Final = re.compile(_KEY_FMT)
_KEY_MSG: Final = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'"

SERVICE_ACCOUNT_NAME_KEY: Final = "kubernetes.io/service-account.name"


def is_config_map_key(key: str) -> list[str]:
    """validation.IsConfigMapKey, shared by config maps, secrets and key selectors."""
    msgs: list[str] = []
    if len(key.encode()) > 253:
        msgs.append("must be no more than 253 characters")
    if not _KEY_RE.fullmatch(key):
        msgs.append(regex_error(_KEY_MSG, _KEY_FMT, "key.name", "KEY_NAME", "key-name"))
    if key == ".":
        msgs.append("must not be '.'")
    elif key == "..":
        msgs.append("must not be '..'")
    elif key.startswith(".."):
        msgs.append("must not start with '..'")
    return msgs


def decode_base64(value: str) -> bytes:
    """Go's base64.StdEncoding as encoding/json applies it to []byte fields (line breaks are skipped).
    Raises ValueError carrying Go's `illegal base64 data at input byte N`."""
    cleaned = value.replace("\r", "").replace("\n", "")
    for index, ch in enumerate(cleaned):
        if not (ch.isascii() and (ch.isalnum() or ch in "+/=")):
            raise ValueError(f"illegal base64 data at input byte {index}")
    padding = cleaned.find("=")
    if padding >= 0 and (cleaned[padding:].strip("=") or len(cleaned) % 4):
        raise ValueError(f"illegal base64 data at input byte {padding}")
    if len(cleaned) % 4:
        raise ValueError(f"illegal base64 data at input byte {len(cleaned) - len(cleaned) % 4}")
    try:
        return base64.b64decode(cleaned, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ValueError(f"illegal base64 data at input byte {max(padding, 0)}") from exc


def canonical_base64(spec: ResourceSpec, obj: dict[str, Any], field: str) -> None:
    """Decode a map of base64 values as kube's decoder does (a 400 for bad data) and write each back in
    canonical form, as kube encodes the bytes it stored."""
    values = obj.get(field)
    if not isinstance(values, dict):
        return
    for key, value in values.items():
        if not isinstance(value, str):
            continue
        try:
            values[key] = base64.b64encode(decode_base64(value)).decode()
        except ValueError as exc:
            raise decode_error(spec, str(exc)) from exc


def _decoded(value: Any) -> bytes:
    if not isinstance(value, str):
        return b""
    try:
        return decode_base64(value)
    except ValueError:
        return b""


def go_json_object_error(data: bytes) -> str | None:
    """Why encoding/json would not unmarshal `data` into a map[string]interface{}; None when it would."""
    try:
        parsed = json.loads(data.decode("utf-8", "replace"))
    except json.JSONDecodeError as exc:
        if exc.pos >= len(exc.doc.rstrip()):
            return "unexpected end of JSON input"
        bad = exc.doc[exc.pos]
        where = "looking for beginning of value" if exc.msg.startswith("Expecting value") else "after top-level value"
        if exc.msg.startswith("Expecting property name"):
            where = "looking for beginning of object key string"
        elif exc.msg.startswith("Expecting ',' delimiter") or exc.msg.startswith("Expecting ':' delimiter"):
            where = "after object key:value pair" if "','" in exc.msg else "after object key"
        return f"invalid character {gofmt.json_quote_char(bad)} {where}"
    if not isinstance(parsed, dict):
        kind = {list: "array", str: "string", bool: "bool", type(None): "null"}.get(type(parsed), "number")
        if kind == "null":
            return None
        return f"json: cannot unmarshal {kind} into Go value of type map[string]interface {{}}"
    return None


# -- config maps -------------------------------------------------------------------------------------


def validate_config_map(cm: dict[str, Any]) -> list[FieldError]:
    """ValidateConfigMap after the metadata."""
    errs: list[FieldError] = []
    total = 0
    data, binary = mapping(cm, "data"), mapping(cm, "binaryData")
    for key, value in data.items():
        errs.extend(FieldError.invalid(f"data[{key}]", key, msg) for msg in is_config_map_key(key))
        if key in binary:
            errs.append(FieldError.invalid(f"data[{key}]", key, "duplicate of key present in binaryData"))
        total += len(value.encode()) if isinstance(value, str) else 0
    for key, value in binary.items():
        errs.extend(FieldError.invalid(f"binaryData[{key}]", key, msg) for msg in is_config_map_key(key))
        total += len(_decoded(value))
    if total > MAX_SIZE:
        errs.append(FieldError.too_long("", "", MAX_SIZE))
    return errs


def validate_config_map_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    errs: list[FieldError] = []
    if old.get("immutable") is True:
        if new.get("immutable") is not True:
            errs.append(FieldError.forbidden("immutable", "field is immutable when `immutable` is set"))
        if not semantic_equal(new.get("data"), old.get("data")):
            errs.append(FieldError.forbidden("data", "field is immutable when `immutable` is set"))
        if not semantic_equal(new.get("binaryData"), old.get("binaryData")):
            errs.append(FieldError.forbidden("binaryData", "field is immutable when `immutable` is set"))
    return errs + validate_config_map(new)


# -- secrets -----------------------------------------------------------------------------------------


def validate_secret(secret: dict[str, Any]) -> list[FieldError]:
    """ValidateSecret after the metadata."""
    errs: list[FieldError] = []
    data = mapping(secret, "data")
    total = 0
    for key, value in data.items():
        errs.extend(FieldError.invalid(f"data[{key}]", key, msg) for msg in is_config_map_key(key))
        total += len(_decoded(value))
    if total > MAX_SIZE:
        errs.append(FieldError.too_long("data", "", MAX_SIZE))
    kind = text(secret, "type")
    if kind == "kubernetes.io/service-account-token":
        annotations = mapping(mapping(secret, "metadata"), "annotations")
        if not annotations.get(SERVICE_ACCOUNT_NAME_KEY):
            errs.append(FieldError.required(f"metadata.annotations[{SERVICE_ACCOUNT_NAME_KEY}]", ""))
    elif kind in ("kubernetes.io/dockercfg", "kubernetes.io/dockerconfigjson"):
        key = ".dockercfg" if kind == "kubernetes.io/dockercfg" else ".dockerconfigjson"
        if key not in data:
            errs.append(FieldError.required(f"data[{key}]", ""))
        else:
            problem = go_json_object_error(_decoded(data[key]))
            if problem is not None:
                errs.append(FieldError.invalid(f"data[{key}]", REDACTED, problem))
    elif kind == "kubernetes.io/basic-auth":
        if "username" not in data and "password" not in data:
            errs.append(FieldError.required("data[username]", ""))
            errs.append(FieldError.required("data[password]", ""))
    elif kind == "kubernetes.io/ssh-auth":
        if not _decoded(data.get("ssh-privatekey")):
            errs.append(FieldError.required("data[ssh-privatekey]", ""))
    elif kind == "kubernetes.io/tls":
        for key in ("tls.crt", "tls.key"):
            if key not in data:
                errs.append(FieldError.required(f"data[{key}]", ""))
    return errs


def validate_secret_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    errs: list[FieldError] = []
    if text(new, "type") != text(old, "type"):
        errs.append(FieldError.invalid("type", text(new, "type"), FIELD_IMMUTABLE))
    if old.get("immutable") is True:
        if new.get("immutable") is not True:
            errs.append(FieldError.forbidden("immutable", "field is immutable when `immutable` is set"))
        if not semantic_equal(new.get("data"), old.get("data")):
            errs.append(FieldError.forbidden("data", "field is immutable when `immutable` is set"))
    return errs + validate_secret(new)
