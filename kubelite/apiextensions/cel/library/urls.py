"""Kubernetes' URL library (k8s.io/apiserver/pkg/cel/library/urls.go): url(), isURL and the getters of a
kubernetes.URL, with Go's url.ParseRequestURI rules (an absolute URL or an absolute path)."""

from __future__ import annotations

import urllib.parse
from typing import Any

from cel_expr_python import cel

from kubelite.apiextensions.cel.library.types import URL, T, URLMessage, overload


def _parse(text: str) -> urllib.parse.SplitResult:
    try:
        parts = urllib.parse.urlsplit(text)
        parts.port  # noqa: B018 - validates the port
    except ValueError as err:
        raise ValueError(f'URL parse error during conversion from string: parse "{text}": {err}') from err
    relative = not parts.scheme and not text.startswith("/")
    if relative or " " in text or (parts.scheme and not parts.netloc and not parts.path):
        raise ValueError(f'URL parse error during conversion from string: parse "{text}": invalid URI for request')
    return parts


def _url(text: str) -> Any:
    _parse(text)
    return URLMessage(value=text)


def _is_url(text: str) -> bool:
    try:
        _parse(text)
    except ValueError:
        return False
    return True


def _hostname(u: Any) -> str:
    netloc = _parse(u.value).netloc.rpartition("@")[2]
    if netloc.startswith("["):
        return netloc[1:netloc.find("]")]
    return netloc.partition(":")[0]


def _port(u: Any) -> str:
    netloc = _parse(u.value).netloc.rpartition("@")[2]
    host_end = netloc.find("]") + 1 if netloc.startswith("[") else 0
    _, colon, port = netloc[host_end:].partition(":")
    return port if colon else ""


def _query(u: Any) -> dict[str, list[str]]:
    return urllib.parse.parse_qs(_parse(u.value).query, keep_blank_values=True)


EXTENSION = cel.CelExtension(
    "kubernetes.urls",
    [
        cel.FunctionDecl("url", [overload("string_to_url", URL, [T.STRING], _url)]),
        cel.FunctionDecl("isURL", [overload("is_url_string", T.BOOL, [T.STRING], _is_url)]),
        cel.FunctionDecl("getScheme", [overload("url_get_scheme", T.STRING, [URL],
                                                lambda u: _parse(u.value).scheme, True)]),
        cel.FunctionDecl("getHost", [overload("url_get_host", T.STRING, [URL],
                                              lambda u: _parse(u.value).netloc.rpartition("@")[2], True)]),
        cel.FunctionDecl("getHostname", [overload("url_get_hostname", T.STRING, [URL], _hostname, True)]),
        cel.FunctionDecl("getPort", [overload("url_get_port", T.STRING, [URL], _port, True)]),
        cel.FunctionDecl("getEscapedPath", [overload("url_get_escaped_path", T.STRING, [URL],
                                                     lambda u: _parse(u.value).path, True)]),
        cel.FunctionDecl("getQuery", [overload("url_get_query", T.Map(T.STRING, T.List(T.STRING)), [URL],
                                               _query, True)]),
    ],
)
