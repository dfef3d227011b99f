"""Building blocks every kind's validation shares: typed reads of a stored dict, and kube's small checks
(non-negative fields, DNS names, ports, IPs, percentages, label selectors, immutability) with their texts.

Reads never raise: a value of the wrong JSON type reads as absent, since decoding has already refused real
type errors and validation should then describe the object, not crash on it.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from typing import Any, Final

from kubelite.apimachinery.selectors import SelectorError, label_selector_from_spec
from kubelite.apimachinery.validation import (
    FIELD_IMMUTABLE,
    FieldError,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    is_valid_label_value,
    regex_error,
    validate_labels,
)
from kubelite.registry.validation import badvalues

NEGATIVE: Final = "must be greater than or equal to 0"
NOT_POSITIVE: Final = "must be greater than zero"
INT32_MAX: Final = 2**31 - 1

# -- typed reads -------------------------------------------------------------------------------------


def text(obj: Any, key: str) -> str:
    value = obj.get(key) if isinstance(obj, dict) else None
    return value if isinstance(value, str) else ""


def integer(obj: Any, key: str) -> int | None:
    value = obj.get(key) if isinstance(obj, dict) else None
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value


def mapping(obj: Any, key: str) -> dict[str, Any]:
    value = obj.get(key) if isinstance(obj, dict) else None
    return value if isinstance(value, dict) else {}


def maybe_mapping(obj: Any, key: str) -> dict[str, Any] | None:
    value = obj.get(key) if isinstance(obj, dict) else None
    return value if isinstance(value, dict) else None


def items(obj: Any, key: str) -> list[dict[str, Any]]:
    """A list of objects; an entry of another type reads as an empty object, so indexes stay right."""
    value = obj.get(key) if isinstance(obj, dict) else None
    if not isinstance(value, list):
        return []
    return [entry if isinstance(entry, dict) else {} for entry in value]


def strings(obj: Any, key: str) -> list[str]:
    value = obj.get(key) if isinstance(obj, dict) else None
    if not isinstance(value, list):
        return []
    return [entry for entry in value if isinstance(entry, str)]


def flag(obj: Any, key: str) -> bool:
    return bool(obj.get(key) is True) if isinstance(obj, dict) else False


def string_map(obj: Any, key: str) -> dict[str, str]:
    value = obj.get(key) if isinstance(obj, dict) else None
    if not isinstance(value, dict):
        return {}
    return {k: v for k, v in value.items() if isinstance(k, str) and isinstance(v, str)}


def present(obj: Any, key: str) -> bool:
    return isinstance(obj, dict) and obj.get(key) is not None


# -- small checks ------------------------------------------------------------------------------------


def inclusive_range(low: int, high: int) -> str:
    return f"must be between {low} and {high}, inclusive"


def nonnegative(value: int | None, path: str) -> list[FieldError]:
    """ValidateNonnegativeField (a missing value counts as zero)."""
    if value is not None and value < 0:
        return [FieldError.invalid(path, value, NEGATIVE)]
    return []


def dns1123_label(value: str, path: str) -> list[FieldError]:
    return [FieldError.invalid(path, value, msg) for msg in is_dns1123_label(value)]


def dns1123_subdomain(value: str, path: str) -> list[FieldError]:
    return [FieldError.invalid(path, value, msg) for msg in is_dns1123_subdomain(value)]


def qualified_name(value: str, path: str) -> list[FieldError]:
    return [FieldError.invalid(path, value, msg) for msg in is_qualified_name(value)]


def label_value(value: str, path: str) -> list[FieldError]:
    return [FieldError.invalid(path, value, msg) for msg in is_valid_label_value(value)]


def is_valid_port_num(port: int) -> list[str]:
    return [] if 1 <= port <= 65535 else [inclusive_range(1, 65535)]


_PORT_NAME_CHARS: Final = re.compile(r"[-a-z0-9]+")
_PORT_NAME_LETTER: Final = re.compile(r"[a-z]")


def is_valid_port_name(port: str) -> list[str]:
    """validation.IsValidPortName (IANA_SVC_NAME)."""
    msgs: list[str] = []
    if len(port) > 15:
        msgs.append("must be no more than 15 characters")
    if not _PORT_NAME_CHARS.fullmatch(port):
        msgs.append("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    if not _PORT_NAME_LETTER.search(port):
        msgs.append("must contain at least one letter (a-z)")
    if "--" in port:
        msgs.append("must not contain consecutive hyphens")
    if port and (port[0] == "-" or port[-1] == "-"):
        msgs.append("must not begin or end with a hyphen")
    return msgs


def port_num_or_name(value: Any, path: str) -> list[FieldError]:
    """ValidatePortNumOrName for an IntOrString port."""
    if isinstance(value, str):
        return [FieldError.invalid(path, value, msg) for msg in is_valid_port_name(value)]
    number = value if isinstance(value, int) and not isinstance(value, bool) else 0
    return [FieldError.invalid(path, number, msg) for msg in is_valid_port_num(number)]


_IPV4: Final = re.compile(r"(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})")


def parse_ip(value: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """netutils.ParseIPSloppy: IPv4 octets may carry leading zeros (read as decimal)."""
    match = _IPV4.fullmatch(value)
    if match:
        octets = [int(part) for part in match.groups()]
        return ipaddress.IPv4Address(".".join(map(str, octets))) if all(o <= 255 for o in octets) else None
    if ":" not in value:
        return None
    try:
        return ipaddress.IPv6Address(value)
    except ValueError:
        return None


def valid_ip(value: str, path: str) -> list[FieldError]:
    if parse_ip(value) is None:
        return [FieldError.invalid(path, value, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)")]
    return []


def valid_cidr(value: str, path: str) -> list[FieldError]:
    address, _, prefix = value.partition("/")
    ip = parse_ip(address)
    limit = 32 if isinstance(ip, ipaddress.IPv4Address) else 128
    if ip is None or not prefix.isdigit() or int(prefix) > limit:
        return [FieldError.invalid(path, value, "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)")]
    return []


def non_special_ip(value: str, path: str) -> list[FieldError]:
    """ValidateNonSpecialIP: no unspecified, loopback or link-local addresses."""
    ip = parse_ip(value)
    if ip is None:
        return [FieldError.invalid(path, value, "must be a valid IP address")]
    errs: list[FieldError] = []
    if ip.is_unspecified:
        errs.append(FieldError.invalid(path, value, f"may not be unspecified ({value})"))
    if ip.is_loopback:
        errs.append(FieldError.invalid(path, value, "may not be in the loopback range (127.0.0.0/8, ::1/128)"))
    link_local_multicast = (isinstance(ip, ipaddress.IPv4Address) and ip in ipaddress.ip_network("224.0.0.0/24")) or (
        isinstance(ip, ipaddress.IPv6Address) and ip in ipaddress.ip_network("ff02::/16")
    )
    if ip.is_link_local and not ip.is_multicast:
        errs.append(FieldError.invalid(path, value, "may not be in the link-local range (169.254.0.0/16, fe80::/10)"))
    if link_local_multicast:
        errs.append(
            FieldError.invalid(path, value, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)")
        )
    return errs


_PERCENT: Final = re.compile(r"[0-9]+%")


def is_valid_percent(value: str) -> list[str]:
    if not _PERCENT.fullmatch(value):
        return [
            regex_error(
                "a valid percent string must be a numeric string followed by an ending '%'", "[0-9]+%", "1%", "93%"
            )
        ]
    return []


def percent_value(value: Any) -> int | None:
    if isinstance(value, str) and _PERCENT.fullmatch(value):
        return int(value[:-1])
    return None


def int_or_percent_value(value: Any) -> int:
    """getIntOrPercentValue: a percentage's number, an int, or Atoi of any other text (0 when it fails)."""
    percent = percent_value(value)
    if percent is not None:
        return percent
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            return 0
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def positive_int_or_percent(value: Any, path: str) -> list[FieldError]:
    """ValidatePositiveIntOrPercent."""
    if isinstance(value, str):
        return [FieldError.invalid(path, badvalues.int_or_string(value), msg) for msg in is_valid_percent(value)]
    number = value if isinstance(value, int) and not isinstance(value, bool) else 0
    return nonnegative(number, path)


def not_more_than_100_percent(value: Any, path: str) -> list[FieldError]:
    percent = percent_value(value)
    if percent is None or percent <= 100:
        return []
    return [FieldError.invalid(path, badvalues.int_or_string(value), "must not be greater than 100%")]


# -- label selectors ---------------------------------------------------------------------------------


def label_selector(selector: Any, path: str) -> list[FieldError]:
    """metav1validation.ValidateLabelSelector (label values checked strictly)."""
    if not isinstance(selector, Mapping):
        return []
    errs = validate_labels(selector.get("matchLabels"), f"{path}.matchLabels")
    for index, req in enumerate(items(selector, "matchExpressions")):
        req_path = f"{path}.matchExpressions[{index}]"
        operator = text(req, "operator")
        values = strings(req, "values")
        if operator in ("In", "NotIn"):
            if not values:
                errs.append(
                    FieldError.required(f"{req_path}.values", "must be specified when `operator` is 'In' or 'NotIn'")
                )
        elif operator in ("Exists", "DoesNotExist"):
            if values:
                errs.append(
                    FieldError.forbidden(
                        f"{req_path}.values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
                    )
                )
        else:
            errs.append(FieldError.invalid(f"{req_path}.operator", operator, "not a valid selector operator"))
        errs.extend(qualified_name(text(req, "key"), f"{req_path}.key"))
        for value_index, value in enumerate(values):
            errs.extend(label_value(value, f"{req_path}.values[{value_index}]"))
    return errs


def selector_is_empty(selector: Any) -> bool:
    return isinstance(selector, Mapping) and not selector.get("matchLabels") and not selector.get("matchExpressions")


def selector_matches(selector: Any, labels: Mapping[str, str]) -> bool | None:
    """Whether a metav1.LabelSelector matches; None when it cannot be converted (LabelSelectorAsSelector
    fails). A missing selector selects nothing."""
    if not isinstance(selector, dict):
        return False
    clean = {
        "matchLabels": string_map(selector, "matchLabels"),
        "matchExpressions": [
            {"key": text(req, "key"), "operator": text(req, "operator"), "values": strings(req, "values")}
            for req in items(selector, "matchExpressions")
        ],
    }
    try:
        return label_selector_from_spec(clean).matches(labels)
    except SelectorError:
        return None


# -- update rules ------------------------------------------------------------------------------------


def immutable(new: Any, old: Any, path: str, shown: Any = None) -> list[FieldError]:
    """ValidateImmutableField; `shown` is the bad value as kube prints it (defaults to the new value)."""
    if semantic_equal(new, old):
        return []
    return [FieldError.invalid(path, new if shown is None else shown, FIELD_IMMUTABLE)]


def _is_empty(value: Any) -> bool:
    return value is None or value == "" or value == [] or value == {} or value is False or value == 0


def normalized(value: Any) -> Any:
    """A value with Go's zero values dropped, so that two objects compare as apiequality.Semantic does
    (an omitted field, an explicit zero and an empty list are the same)."""
    if isinstance(value, dict):
        out = {k: normalized(v) for k, v in value.items()}
        return {k: v for k, v in out.items() if not _is_empty(v)}
    if isinstance(value, list):
        return [normalized(v) for v in value]
    return value


def semantic_equal(a: Any, b: Any) -> bool:
    a, b = normalized(a), normalized(b)
    return (None if _is_empty(a) else a) == (None if _is_empty(b) else b)
