"""Go's net/url.Parse, as far as kube's webhook and approval checks see it: the parts they read (scheme, user
info, host, query, fragment) and the errors Parse returns, in Go's words.

Python's urllib accepts almost anything, while Go rejects control characters, bad percent escapes, bad ports,
characters a host may not hold and a colon in a scheme-less first segment; kube prints those errors verbatim.
"""

from __future__ import annotations

import string
from dataclasses import dataclass

from kubelite.apimachinery import gofmt

_HEX = frozenset(string.hexdigits)
_ALNUM = frozenset(string.ascii_letters + string.digits)
_USERINFO_OK = frozenset(string.ascii_letters + string.digits + "-._:~!$&'()*+,;=%@")
_HOST_SUBDELIMS = frozenset("!$&'()*+,;=:[]<>\"")


class URLError(ValueError):
    """url.Parse failed; the message is Go's (`parse "...": ...`)."""


@dataclass(frozen=True, slots=True)
class URL:
    scheme: str = ""
    user: str | None = None  # Userinfo.String(), None when no `@`
    host: str = ""
    raw_query: str = ""
    fragment: str = ""
    path: str = ""
    opaque: str = ""


def _escape_error(text: str) -> str:
    return "invalid URL escape " + gofmt.quote(text)


def _unescape(text: str, host: bool = False) -> str:
    out = bytearray()
    data = text.encode("utf-8", "surrogatepass")
    i = 0
    while i < len(data):
        c = data[i]
        if c == 0x25:  # %
            if i + 2 >= len(data) or chr(data[i + 1]) not in _HEX or chr(data[i + 2]) not in _HEX:
                bad = data[i : i + 3]
                raise ValueError(_escape_error(bad.decode("utf-8", "replace")))
            value = int(data[i + 1 : i + 3], 16)
            if host and value < 0x80 and data[i : i + 3] != b"%25" and int(chr(data[i + 1]), 16) < 8:
                raise ValueError(_escape_error(data[i : i + 3].decode()))
            out.append(value)
            i += 3
            continue
        if host and c < 0x80 and _host_should_escape(chr(c)):
            raise ValueError(f"invalid character {gofmt.quote(chr(c))} in host name")
        out.append(c)
        i += 1
    return out.decode("utf-8", "surrogateescape")


def _host_should_escape(ch: str) -> bool:
    return not (ch in _ALNUM or ch in _HOST_SUBDELIMS or ch in "-_.~")


def _valid_optional_port(port: str) -> bool:
    return port == "" or (port.startswith(":") and all(ch in string.digits for ch in port[1:]))


def _parse_host(host: str) -> str:
    if host.startswith("["):
        end = host.rfind("]")
        if end < 0:
            raise ValueError("missing ']' in host")
        colon_port = host[end + 1 :]
        if not _valid_optional_port(colon_port):
            raise ValueError(f"invalid port {gofmt.quote(colon_port)} after host")
    elif (colon := host.rfind(":")) != -1:
        colon_port = host[colon:]
        if not _valid_optional_port(colon_port):
            raise ValueError(f"invalid port {gofmt.quote(colon_port)} after host")
    return _unescape(host, host=True)


def _escape_userinfo(text: str) -> str:
    out = []
    for byte in text.encode("utf-8", "surrogatepass"):
        ch = chr(byte)
        if ch in _ALNUM or ch in "-_.~$&+,;=":
            out.append(ch)
        else:
            out.append(f"%{byte:02X}")
    return "".join(out)


def _parse_authority(authority: str) -> tuple[str | None, str]:
    at = authority.rfind("@")
    host = _parse_host(authority[at + 1 :] if at >= 0 else authority)
    if at < 0:
        return None, host
    userinfo = authority[:at]
    if any(ch not in _USERINFO_OK for ch in userinfo):
        raise ValueError("net/url: invalid userinfo")
    if ":" not in userinfo:
        return _escape_userinfo(_unescape(userinfo)), host
    username, _, password = userinfo.partition(":")
    return _escape_userinfo(_unescape(username)) + ":" + _escape_userinfo(_unescape(password)), host


def _scheme(raw: str) -> tuple[str, str]:
    for i, ch in enumerate(raw):
        if ch in string.ascii_letters:
            continue
        if ch in string.digits + "+-.":
            if i == 0:
                return "", raw
            continue
        if ch == ":":
            if i == 0:
                raise ValueError("missing protocol scheme")
            return raw[:i], raw[i + 1 :]
        return "", raw
    return "", raw


def _parse(raw: str) -> URL:
    if any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in raw):
        raise ValueError("net/url: invalid control character in URL")
    if raw == "*":
        return URL(path="*")
    scheme, rest = _scheme(raw)
    scheme = scheme.lower()
    if rest.endswith("?") and rest.count("?") == 1:
        rest, raw_query = rest[:-1], ""
    else:
        rest, _, raw_query = rest.partition("?")
    if not rest.startswith("/"):
        if scheme:
            return URL(scheme=scheme, raw_query=raw_query, opaque=rest)
        if ":" in rest.partition("/")[0]:
            raise ValueError("first path segment in URL cannot contain colon")
    user, host = None, ""
    if (scheme or not rest.startswith("///")) and rest.startswith("//"):
        authority, slash, path = rest[2:].partition("/")
        rest = slash + path
        user, host = _parse_authority(authority)
    return URL(scheme=scheme, user=user, host=host, raw_query=raw_query, path=_unescape(rest))


def parse(raw: str) -> URL:
    """url.Parse: raises URLError with Go's message."""
    without_fragment, hashed, fragment = raw.partition("#")
    try:
        url = _parse(without_fragment)
    except ValueError as exc:
        raise URLError(f"parse {gofmt.quote(without_fragment)}: {exc}") from None
    if not hashed:
        return url
    try:
        unescaped = _unescape(fragment)
    except ValueError as exc:
        raise URLError(f"parse {gofmt.quote(raw)}: {exc}") from None
    return URL(url.scheme, url.user, url.host, url.raw_query, unescaped, url.path, url.opaque)


def parse_request_uri(raw: str) -> URL:
    """url.ParseRequestURI: no fragment; a scheme-less URI must be an absolute path."""
    try:
        if not _scheme(raw)[0] and not raw.startswith("/"):
            raise ValueError("invalid URI for request")
        return _parse(raw)
    except ValueError as exc:
        raise URLError(f"parse {gofmt.quote(raw)}: {exc}") from None
