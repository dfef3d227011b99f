"""The string formats kube validates in custom resources (kube-openapi's strfmt.Default registry), and which
`format` values of a CRD schema survive to be validated at all.

A CRD may name any format, but apiextensions-apiserver strips the ones it does not support before it builds
the validator (StripUnsupportedFormatsPostProcessor): on strings (and schemas without a type) only the
registry's names are kept, on integers only int32/int64, on numbers only float/double, on anything else
none. Names are compared without dashes (`date-time` is `datetime`). Each checker below follows the Go
function the registry calls for that name (net.ParseIP, net/mail.ParseAddress, time.Parse, ...).
"""

from __future__ import annotations

import ipaddress
import re
from calendar import monthrange
from collections.abc import Callable
from typing import Final

import re2

from kubelite.apiextensions.schema.patterns import compile_pattern

Checker = Callable[[str], bool]

# -- IP addresses (k8s.io/utils/net's sloppy parsers keep Go 1.16's acceptance of leading zeros) ---------


def _ipv4_sloppy(text: str) -> bool:
    parts = text.split(".")
    if len(parts) != 4:
        return False
    for part in parts:
        if not part or not part.isascii() or not part.isdigit() or len(part) > 7 or int(part) > 255:
            return False
    return True


def _ipv6(text: str, *, sloppy: bool) -> bool:
    if "%" in text or ":" not in text:
        return False
    head, sep, tail = text.rpartition(":")
    if sloppy and "." in tail:
        # an embedded IPv4 part with leading zeros: check it sloppily, then the rest with a stand-in
        if not _ipv4_sloppy(tail):
            return False
        text = head + sep + "0.0.0.0"
    try:
        ipaddress.IPv6Address(text)
    except ValueError:
        return False
    return True


def _parse_ip_sloppy(text: str) -> bool:
    return _ipv4_sloppy(text) or _ipv6(text, sloppy=True)


def is_ipv4(text: str) -> bool:
    return "." in text and _parse_ip_sloppy(text)


def is_ipv6(text: str) -> bool:
    # net.ParseIP: strict (no leading zeros), and the text must contain a colon
    return _ipv6(text, sloppy=False)


def is_cidr(text: str) -> bool:
    address, slash, prefix = text.partition("/")
    if not slash or not prefix or not prefix.isascii() or not prefix.isdigit():
        return False
    if _ipv4_sloppy(address):
        bits = 32
    elif _ipv6(address, sloppy=True):
        bits = 128
    else:
        return False
    return int(prefix) <= bits


def is_mac(text: str) -> bool:
    """net.ParseMAC: 6, 8 or 20 octets as `xx:xx`, `xx-xx` or `xxxx.xxxx` groups."""
    if len(text) < 14:
        return False
    hexdigits = "0123456789abcdefABCDEF"
    if text[2] in ":-":
        sep = text[2]
        if (len(text) + 1) % 3 != 0:
            return False
        octets = (len(text) + 1) // 3
        if octets not in (6, 8, 20):
            return False
        for i in range(octets):
            chunk = text[3 * i : 3 * i + 2]
            if any(c not in hexdigits for c in chunk):
                return False
            if i < octets - 1 and text[3 * i + 2] != sep:
                return False
        return True
    if text[4] == ".":
        if (len(text) + 1) % 5 != 0:
            return False
        groups = (len(text) + 1) // 5
        if groups * 2 not in (6, 8, 20):
            return False
        for i in range(groups):
            chunk = text[5 * i : 5 * i + 4]
            if any(c not in hexdigits for c in chunk):
                return False
            if i < groups - 1 and text[5 * i + 4] != ".":
                return False
        return True
    return False


# -- URIs and e-mail addresses ---------------------------------------------------------------------------

_SCHEME: Final = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*")
_PORT: Final = re.compile(r"[0-9]*")
_BAD_ESCAPE: Final = re.compile(r"%(?![0-9A-Fa-f]{2})")
# characters net/url refuses in a host name (besides the CTL bytes refused everywhere)
_BAD_HOST_CHARS: Final = frozenset(' "#%<>\\^`{|}/?@')


def _has_ctl(text: str) -> bool:
    return any(ord(c) < 0x20 or ord(c) == 0x7F for c in text)


def _valid_host(host: str) -> bool:
    if host.startswith("["):
        close = host.find("]")
        if close < 0:
            return False
        port = host[close + 1 :]
        return not port or (port.startswith(":") and _PORT.fullmatch(port[1:]) is not None)
    name, colon, port = host.rpartition(":") if ":" in host else (host, "", "")
    if colon and _PORT.fullmatch(port) is None:
        return False
    if _BAD_ESCAPE.search(name):
        return False
    return not any(c in _BAD_HOST_CHARS for c in name if ord(c) < 0x80)


def is_request_uri(text: str) -> bool:
    """url.ParseRequestURI: an absolute URI, or an absolute path."""
    if not text or _has_ctl(text):
        return False
    if text == "*":
        return True
    rest = text
    scheme_match = _SCHEME.match(text)
    scheme = ""
    if scheme_match and text[scheme_match.end() : scheme_match.end() + 1] == ":":
        scheme = scheme_match.group()
        rest = text[scheme_match.end() + 1 :]
    elif text.startswith(":"):
        return False  # "missing protocol scheme"
    rest = rest.partition("?")[0]
    if not rest.startswith("/"):
        return bool(scheme)  # an opaque URI (mailto:x) needs a scheme; a bare relative path is refused
    if scheme and rest.startswith("//"):
        authority, _, rest = rest[2:].partition("/")
        rest = "/" + rest
        _, at, host = authority.rpartition("@")
        if not _valid_host(host if at else authority):
            return False
    return _BAD_ESCAPE.search(rest) is None


_ATEXT: Final = r"[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~\u0080-\U0010ffff]+"
_DOT_ATOM: Final = rf"{_ATEXT}(?:\.{_ATEXT})*"
_QUOTED: Final = r'"(?:[^"\\\r\n]|\\.)*"'
_ADDR_SPEC: Final = rf"(?:{_DOT_ATOM}|{_QUOTED})@(?:{_DOT_ATOM}|\[[^\[\]\\]*\])"
_WORD: Final = rf"(?:{_ATEXT}|{_QUOTED})"
_EMAIL: Final = re.compile(rf"\s*(?:{_ADDR_SPEC}|(?:{_WORD}(?:[ \t]+{_WORD})*)?\s*<{_ADDR_SPEC}>)\s*")


#: beyond this an address is refused unread: the pattern backtracks on long runs of blanks (an address itself
#: is at most 254 octets, RFC 5321)
_EMAIL_MAX_LENGTH: Final = 1024


def is_email(text: str) -> bool:
    """net/mail.ParseAddress: `local@domain`, or `Display Name <local@domain>`."""
    return len(text) <= _EMAIL_MAX_LENGTH and _EMAIL.fullmatch(text) is not None


# -- hostnames and Kubernetes names -----------------------------------------------------------------------

# the registry's own pattern uses Unicode classes (\p{S}, \p{L}), which RE2 matches exactly; its
# automaton is large, so RE2 gets more memory for it (and keeps its complaints to itself)
_HOSTNAME_OPTIONS: Final = re2.Options()
_HOSTNAME_OPTIONS.log_errors = False
_HOSTNAME_OPTIONS.max_mem = 64 << 20
_HOSTNAME: Final = re2.compile(
    r"^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9-\p{S}\p{L}]"
    r"{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$",
    options=_HOSTNAME_OPTIONS,
)


def is_hostname(text: str) -> bool:
    if _HOSTNAME.search(text) is None or len(text.encode()) > 255:
        return False
    return all(len(part.encode()) <= 63 for part in text.split("."))


_SHORT_NAME: Final = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_LONG_NAME: Final = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")


def is_short_name(text: str) -> bool:
    return len(text) <= 63 and _SHORT_NAME.fullmatch(text) is not None


def is_long_name(text: str) -> bool:
    return len(text) <= 253 and _LONG_NAME.fullmatch(text) is not None


# -- dates, times and durations ---------------------------------------------------------------------------

_DATE: Final = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
_TIME: Final = re.compile(r"([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))")


def is_date(text: str) -> bool:
    """time.Parse("2006-01-02", text): fixed-width fields and a day that exists."""
    match = _DATE.fullmatch(text)
    if match is None:
        return False
    year, month, day = int(match[1]), int(match[2]), int(match[3])
    if not 1 <= month <= 12:
        return False
    # Go's calendar has a year 0 (a leap year), which Python's dates lack
    return 1 <= day <= monthrange(year if year else 2000, month)[1]


def is_date_time(text: str) -> bool:
    """strfmt.IsDateTime: a date, a `t`, and a time matched case-insensitively."""
    if len(text) < 4:
        return False
    parts = text.lower().split("t")
    if len(parts) < 2 or not is_date(parts[0]):
        return False
    match = _TIME.fullmatch(parts[1])
    return match is not None and match[1] <= "23" and match[2] <= "59" and match[3] <= "59"


_GO_DURATION_UNITS: Final = frozenset({"ns", "us", "\u00b5s", "\u03bcs", "ms", "s", "m", "h"})
_GO_DURATION_PART: Final = re.compile(r"([0-9]*)(\.[0-9]*)?([^0-9.]*)")
_DIGITS: Final = re.compile(r"[0-9]+")
_UNIT_AFTER_DIGITS: Final = re.compile(r"[\t\n\f\r ]*([A-Za-z\u00b5]+)")
_LOOSE_UNITS: Final = (
    ("ns", "nano"),
    ("us", "\u00b5s", "micro"),
    ("ms", "milli"),
    ("s", "sec"),
    ("m", "min"),
    ("h", "hr", "hour"),
    ("d", "day"),
    ("w", "wk", "week"),
)


def _is_go_duration(text: str) -> bool:
    # time.ParseDuration: [-+] then one or more `<number><unit>`, or a lone "0"
    if text[:1] in ("-", "+"):
        text = text[1:]
    if text == "0":
        return True
    if not text:
        return False
    pos = 0
    while pos < len(text):
        match = _GO_DURATION_PART.match(text, pos)
        if match is None or match.end() == pos:
            return False
        whole, fraction, unit = match.groups()
        if not whole and (fraction is None or fraction == "."):
            return False
        if unit not in _GO_DURATION_UNITS:
            return False
        pos = match.end()
    return True


def _loose_duration_parts(text: str) -> list[tuple[str, str]]:
    """The (digits, unit) of every `((\\d+)\\s*([A-Za-zµ]+))` match, found in one pass: a match starts at a
    run of digits exactly when the whole run is followed by blanks and a letter (a backtracking findall
    would retry every digit of a long run)."""
    parts: list[tuple[str, str]] = []
    pos = 0
    while (digits := _DIGITS.search(text, pos)) is not None:
        unit = _UNIT_AFTER_DIGITS.match(text, digits.end())
        if unit is None:
            pos = digits.end()
            continue
        parts.append((digits.group(), unit.group(1)))
        pos = unit.end()
    return parts


def is_duration(text: str) -> bool:
    """strfmt.ParseDuration: Go's duration syntax, else any `<n> <unit>` such as `3 days` found in the text."""
    if _is_go_duration(text):
        return True
    found = False
    for digits, unit_text in _loose_duration_parts(text):
        if len(digits) > 18 and int(digits) >= 2**63:
            return False  # strconv.Atoi fails, whatever was found before
        unit = unit_text.strip().lower()
        for variants in _LOOSE_UNITS:
            last = len(variants) - 1
            for i, variant in enumerate(variants):
                if (i == last and unit.startswith(variant)) or variant.lower() == unit:
                    found = True
    return found


# -- the rest of the registry -----------------------------------------------------------------------------


def _regex_checker(pattern: str) -> Checker:
    return compile_pattern(pattern)


def _digits_only(text: str) -> str:
    return "".join(c for c in text if "0" <= c <= "9")


_ISBN10: Final = re.compile(r"(?:[0-9]{9}X|[0-9]{10})")
_ISBN13: Final = re.compile(r"[0-9]{13}")
_ISBN_SEPARATORS: Final = re.compile(r"[\s-]+")


def is_isbn10(text: str) -> bool:
    sanitized = _ISBN_SEPARATORS.sub("", text)
    if _ISBN10.fullmatch(sanitized) is None:
        return False
    checksum = sum((i + 1) * int(sanitized[i]) for i in range(9))
    checksum += 100 if sanitized[9] == "X" else 10 * int(sanitized[9])
    return checksum % 11 == 0


def is_isbn13(text: str) -> bool:
    sanitized = _ISBN_SEPARATORS.sub("", text)
    if _ISBN13.fullmatch(sanitized) is None:
        return False
    factors = (1, 3)
    checksum = sum(factors[i % 2] * int(sanitized[i]) for i in range(12))
    return (int(sanitized[12]) - (10 - checksum % 10)) % 10 == 0


_CREDIT_CARD: Final = re.compile(
    r"(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}"
    r"|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35[0-9]{3})[0-9]{11})"
)


def is_credit_card(text: str) -> bool:
    sanitized = _digits_only(text)
    if _CREDIT_CARD.fullmatch(sanitized) is None:
        return False
    total = 0
    double = False
    for ch in reversed(sanitized):
        digit = int(ch)
        if double:
            digit *= 2
            total += digit % 10 + 1 if digit >= 10 else digit
        else:
            total += digit
        double = not double
    return total % 10 == 0


_SSN: Final = re.compile(r"[0-9]{3}[- ]?[0-9]{2}[- ]?[0-9]{4}")


def is_ssn(text: str) -> bool:
    return len(text) == 11 and _SSN.fullmatch(text) is not None


_BSON_OBJECT_ID: Final = re.compile(r"[0-9a-fA-F]{24}")
_UUID: Final = "(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?%s[0-9a-f]{3}-?%s[0-9a-f]{3}-?[0-9a-f]{12}$"

#: the registry, by normalized name (no dashes)
CHECKERS: Final[dict[str, Checker]] = {
    "bsonobjectid": lambda text: _BSON_OBJECT_ID.fullmatch(text) is not None,
    "uri": is_request_uri,
    "email": is_email,
    "hostname": is_hostname,
    "ipv4": is_ipv4,
    "ipv6": is_ipv6,
    "cidr": is_cidr,
    "mac": is_mac,
    "uuid": _regex_checker(_UUID % ("[0-9a-f]", "[0-9a-f]")),
    "uuid3": _regex_checker(_UUID % ("3", "[0-9a-f]")),
    "uuid4": _regex_checker(_UUID % ("4", "[89ab]")),
    "uuid5": _regex_checker(_UUID % ("5", "[89ab]")),
    "isbn": lambda text: is_isbn10(text) or is_isbn13(text),
    "isbn10": is_isbn10,
    "isbn13": is_isbn13,
    "creditcard": is_credit_card,
    "ssn": is_ssn,
    "hexcolor": _regex_checker(r"^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$"),
    "rgbcolor": _regex_checker(
        r"^rgb\(\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,"
        r"\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\)$"
    ),
    "byte": _regex_checker(r"^(?:[A-Za-z0-9+\/]{4})*(?:[A-Za-z0-9+\/]{2}==|[A-Za-z0-9+\/]{3}=|[A-Za-z0-9+\/]{4})$"),
    "password": lambda text: True,
    "date": is_date,
    "datetime": is_date_time,
    "duration": is_duration,
    "k8sshortname": is_short_name,
    "k8slongname": is_long_name,
}

_INTEGER_FORMATS: Final = frozenset({"int32", "int64"})
_NUMBER_FORMATS: Final = frozenset({"float", "double"})


def effective_format(schema_type: str, format_name: str) -> str:
    """The format kube keeps for a schema of this single type ("" for none or several), "" if stripped."""
    if not format_name:
        return ""
    if schema_type in ("", "string"):
        return format_name if format_name.replace("-", "") in CHECKERS else ""
    if schema_type == "integer":
        return format_name if format_name in _INTEGER_FORMATS else ""
    if schema_type == "number":
        return format_name if format_name in _NUMBER_FORMATS else ""
    return ""


def checker(format_name: str) -> Checker | None:
    """The registry's check of a (kept) string format, None for the numeric formats it does not hold."""
    return CHECKERS.get(format_name.replace("-", ""))
