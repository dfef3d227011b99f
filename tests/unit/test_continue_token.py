"""Continue tokens: kube's wire format (unpadded base64url of {"v","rv","start"}) and its decode checks."""

from __future__ import annotations

import base64

import orjson
import pytest

from kubelite.storage.continue_token import InvalidContinueToken, decode, encode


def raw_token(payload: bytes) -> str:
    return base64.urlsafe_b64encode(payload).decode().rstrip("=")


@pytest.mark.parametrize(
    ("revision", "suffix"),
    [
        (1, "default/web-0"),
        (12345, "kube-system/coredns-5d78c9869d-abcde"),
        (7, "node-1"),
        (2**62, "ns/a.b-c"),
        (9, "ns/ünïcode"),
    ],
    ids=["namespaced", "long-name", "cluster-scoped", "big-revision", "non-ascii"],
)
def test_round_trip(revision: int, suffix: str) -> None:
    assert decode(encode(revision, suffix)) == (revision, suffix)


def test_wire_format_is_kubes() -> None:
    token = encode(5, "default/web-0")
    assert "=" not in token and "+" not in token and "/" not in token
    payload = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    assert payload == b'{"v":"meta.k8s.io/v1","rv":5,"start":"default/web-0\\u0000"}'
    assert orjson.loads(payload) == {"v": "meta.k8s.io/v1", "rv": 5, "start": "default/web-0\x00"}


@pytest.mark.parametrize(
    ("token", "expected"),
    [
        # what kube-apiserver (etcd3 store) hands out: the last key plus NUL, relative to the list prefix
        (raw_token(b'{"v":"meta.k8s.io/v1","rv":42,"start":"default/b\\u0000"}'), (42, "default/b")),
        # a start key without the NUL is still a key to start from
        (raw_token(b'{"v":"meta.k8s.io/v1","rv":42,"start":"default/b"}'), (42, "default/b")),
        # a leading slash is tolerated, as kube's path.Clean check allows it
        (raw_token(b'{"v":"meta.k8s.io/v1","rv":42,"start":"/default/b\\u0000"}'), (42, "default/b")),
        # kube's inconsistent continuation: a negative revision means "the latest"
        (raw_token(b'{"v":"meta.k8s.io/v1","rv":-1,"start":"default/b\\u0000"}'), (-1, "default/b")),
    ],
    ids=["kube-token", "without-nul", "leading-slash", "negative-revision"],
)
def test_decodes_tokens_kube_issues(token: str, expected: tuple[int, str]) -> None:
    assert decode(token) == expected


@pytest.mark.parametrize(
    ("token", "message"),
    [
        ("%%%", "continue key is not valid: illegal base64 data at input byte 0"),
        ("abc=", "continue key is not valid: illegal base64 data at input byte 3"),
        ("ab+c", "continue key is not valid: illegal base64 data at input byte 2"),
        ("abcde", "continue key is not valid: illegal base64 data at input byte 4"),
        (
            raw_token(b'{"v":"meta.k8s.io/v2","rv":1,"start":"a\\u0000"}'),
            "continue key is not valid: server does not recognize this encoded version meta.k8s.io/v2",
        ),
        (
            raw_token(b'{"rv":1,"start":"a\\u0000"}'),
            "continue key is not valid: server does not recognize this encoded version ",
        ),
        (
            raw_token(b'{"v":"meta.k8s.io/v1","rv":0,"start":"a\\u0000"}'),
            "continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)",
        ),
        (
            raw_token(b'{"v":"meta.k8s.io/v1","start":"a\\u0000"}'),
            "continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)",
        ),
        (
            raw_token(b'{"v":"meta.k8s.io/v1","rv":3,"start":""}'),
            "continue key is not valid: encoded start key empty (version meta.k8s.io/v1)",
        ),
        (
            raw_token(b'{"v":"meta.k8s.io/v1","rv":3,"start":"../kube-system/x"}'),
            "continue key is not valid: ../kube-system/x",
        ),
        (
            raw_token(b'{"v":"meta.k8s.io/v1","rv":3,"start":"default/../../secrets/x"}'),
            "continue key is not valid: default/../../secrets/x",
        ),
        (
            raw_token(b'{"v":"meta.k8s.io/v1","rv":3,"start":"default//x"}'),
            "continue key is not valid: default//x",
        ),
        (raw_token(b'{"v":"meta.k8s.io/v1","rv":3,"start":"./x"}'), "continue key is not valid: ./x"),
        (
            raw_token(b'{"v":"meta.k8s.io/v1","rv":3,"start":"default/"}'),
            "continue key is not valid: default/",
        ),
        (
            raw_token(b'{"v":"meta.k8s.io/v1","rv":"3","start":"a"}'),
            "continue key is not valid: rv must be an integer and start a string",
        ),
        (
            raw_token(b'{"v":"meta.k8s.io/v1","rv":true,"start":"a"}'),
            "continue key is not valid: rv must be an integer and start a string",
        ),
        (
            raw_token(b'{"v":"meta.k8s.io/v1","rv":3,"start":7}'),
            "continue key is not valid: rv must be an integer and start a string",
        ),
        (raw_token(b'["meta.k8s.io/v1",3,"a"]'), "continue key is not valid: the token is not a JSON object"),
    ],
    ids=[
        "not-base64",
        "padding-is-not-raw-encoding",
        "standard-alphabet",
        "impossible-length",
        "unknown-version",
        "missing-version",
        "zero-revision",
        "missing-revision",
        "empty-start",
        "parent-traversal",
        "inner-traversal",
        "empty-segment",
        "dot-segment",
        "trailing-slash",
        "revision-string",
        "revision-bool",
        "start-number",
        "not-an-object",
    ],
)
def test_invalid_tokens(token: str, message: str) -> None:
    with pytest.raises(InvalidContinueToken) as caught:
        decode(token)
    assert str(caught.value) == message


@pytest.mark.parametrize(
    "payload",
    [b"foo", b"", b'{"v":'],
    ids=["not-json", "empty", "truncated-json"],
)
def test_json_errors_are_invalid_tokens(payload: bytes) -> None:
    with pytest.raises(InvalidContinueToken) as caught:
        decode(raw_token(payload))
    assert str(caught.value).startswith("continue key is not valid: ")
