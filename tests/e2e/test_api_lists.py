"""Lists over raw HTTP: pagination with limit/continue, the resourceVersion semantics of a list (0, Exact,
NotOlderThan, compacted revisions), label and field selectors, and lists across namespaces.

Clients such as informers depend on these details (one snapshot per paginated list, a 410 that tells them to
relist), and client libraries hide them, so they are checked on the wire.
"""

from __future__ import annotations

import itertools
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from tests.e2e.server import KubeliteProcess

_COUNTER = itertools.count()
ONE, TWO = "MQ==", "Mg=="  # base64 of "1" and "2"

INCONSISTENT_CONTINUE = (
    "The provided continue parameter is too old to display a consistent list result. You can start a new "
    "list without the continue parameter, or use the continue token in this response to retrieve the "
    "remainder of the results. Continuing with the provided token results in an inconsistent list - objects "
    "that were created, modified, or deleted between the time the first chunk was returned and now may show "
    "up in the list."
)


def _namespace(server: KubeliteProcess, request: pytest.FixtureRequest) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", request.node.name.lower().removeprefix("test_"))
    name = f"l{next(_COUNTER)}-{slug}"[:63].strip("-")
    assert server.http("POST", "/api/v1/namespaces", {"metadata": {"name": name}}).status == 201
    return name


@pytest.fixture
def ns(server: KubeliteProcess, request: pytest.FixtureRequest) -> str:
    """A namespace of the test's own, so tests sharing the module's server never see each other's objects."""
    return _namespace(server, request)


@pytest.fixture(scope="module")
def compacting(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KubeliteProcess]:
    """A server that compacts its history every second, as `--etcd-compaction-interval` makes kube's do."""
    data = Path(tmp_path_factory.mktemp("kubelite-compacting"))
    proc = KubeliteProcess(data, extra_args=["--etcd-compaction-interval", "1s"]).start()
    yield proc
    proc.stop()


def obj_path(ns: str, name: str = "") -> str:
    # secrets: no controller creates any on its own (configmaps get kube-root-ca.crt), so lists hold only ours
    base = f"/api/v1/namespaces/{ns}/secrets"
    return f"{base}/{name}" if name else base


def create_obj(server: KubeliteProcess, ns: str, name: str, **labels: str) -> dict[str, Any]:
    body: dict[str, Any] = {"metadata": {"name": name, "labels": labels}, "data": {"v": ONE}}
    result = server.http("POST", obj_path(ns), body)
    assert result.status == 201, result.body
    return result.json()  # type: ignore[no-any-return]


def get_json(server: KubeliteProcess, path: str) -> dict[str, Any]:
    result = server.http("GET", path)
    assert result.status == 200, result.body
    return result.json()  # type: ignore[no-any-return]


def names(listed: dict[str, Any]) -> list[str]:
    return [item["metadata"]["name"] for item in listed["items"]]


def rv(obj: dict[str, Any]) -> int:
    return int(obj["metadata"]["resourceVersion"])


# -- pagination ----------------------------------------------------------------------------------------------


def test_pages_are_disjoint_complete_and_share_one_revision(server: KubeliteProcess, ns: str) -> None:
    for name in "abcdefg":
        create_obj(server, ns, name)
    pages: list[dict[str, Any]] = []
    token = ""
    while True:
        suffix = f"&continue={token}" if token else ""
        page = get_json(server, f"{obj_path(ns)}?limit=3{suffix}")
        pages.append(page)
        token = page["metadata"].get("continue", "")
        if not token:
            break
    assert [names(p) for p in pages] == [["a", "b", "c"], ["d", "e", "f"], ["g"]]
    assert [p["metadata"].get("remainingItemCount") for p in pages] == [4, 1, None]
    assert len({p["metadata"]["resourceVersion"] for p in pages}) == 1
    assert [p["kind"] for p in pages] == ["SecretList"] * 3


def test_later_pages_read_the_first_pages_snapshot(server: KubeliteProcess, ns: str) -> None:
    for name in "abcd":
        create_obj(server, ns, name)
    first = get_json(server, f"{obj_path(ns)}?limit=2")
    snapshot = first["metadata"]["resourceVersion"]
    # changes after the first page: an update, a delete and a create, all after the page boundary
    assert (
        server.http("PUT", obj_path(ns, "c"), {"metadata": {"name": "c"}, "data": {"v": TWO}}).status == 200
    )
    assert server.http("DELETE", obj_path(ns, "d")).status == 200
    create_obj(server, ns, "e")
    rest = get_json(server, f"{obj_path(ns)}?limit=10&continue={first['metadata']['continue']}")
    assert (names(rest), rest["items"][0]["data"], rest["metadata"]["resourceVersion"]) == (
        ["c", "d"],
        {"v": ONE},
        snapshot,
    )
    assert "continue" not in rest["metadata"]


def test_limit_at_the_exact_size_leaves_no_continue(server: KubeliteProcess, ns: str) -> None:
    for name in "abc":
        create_obj(server, ns, name)
    listed = get_json(server, f"{obj_path(ns)}?limit=3")
    assert (names(listed), set(listed["metadata"])) == (["a", "b", "c"], {"resourceVersion"})


def test_selector_pages_carry_no_remaining_item_count(server: KubeliteProcess, ns: str) -> None:
    """kube only counts what is left when nothing is filtered: a count with a selector would be wrong."""
    for name in "abcde":
        create_obj(server, ns, name, keep="yes" if name != "b" else "no")
    first = get_json(server, f"{obj_path(ns)}?limit=2&labelSelector=keep%3Dyes")
    assert (names(first), "remainingItemCount" in first["metadata"]) == (["a", "c"], False)
    rest = get_json(
        server, f"{obj_path(ns)}?limit=2&labelSelector=keep%3Dyes&continue={first['metadata']['continue']}"
    )
    assert (names(rest), "continue" in rest["metadata"]) == (["d", "e"], False)


# -- resourceVersion semantics ------------------------------------------------------------------------------


def test_resource_version_zero_lists_current_state(server: KubeliteProcess, ns: str) -> None:
    create_obj(server, ns, "a")
    last = create_obj(server, ns, "b")
    listed = get_json(server, f"{obj_path(ns)}?resourceVersion=0")
    assert names(listed) == ["a", "b"]
    assert rv(listed) >= rv(last)


def test_exact_match_at_an_old_revision_returns_the_old_state(server: KubeliteProcess, ns: str) -> None:
    first = create_obj(server, ns, "a")
    old = first["metadata"]["resourceVersion"]
    create_obj(server, ns, "b")
    assert (
        server.http("PUT", obj_path(ns, "a"), {"metadata": {"name": "a"}, "data": {"v": TWO}}).status == 200
    )
    listed = get_json(server, f"{obj_path(ns)}?resourceVersion={old}&resourceVersionMatch=Exact")
    assert (names(listed), listed["items"][0]["data"], listed["metadata"]["resourceVersion"]) == (
        ["a"],
        {"v": ONE},
        old,
    )


def test_legacy_paginated_list_at_a_revision_is_exact(server: KubeliteProcess, ns: str) -> None:
    """Without resourceVersionMatch, a list with a limit and a resourceVersion reads that exact revision."""
    first = create_obj(server, ns, "a")
    old = first["metadata"]["resourceVersion"]
    create_obj(server, ns, "b")
    listed = get_json(server, f"{obj_path(ns)}?resourceVersion={old}&limit=5")
    assert (names(listed), listed["metadata"]["resourceVersion"]) == (["a"], old)


def test_not_older_than_returns_a_state_at_least_that_new(server: KubeliteProcess, ns: str) -> None:
    first = create_obj(server, ns, "a")
    latest = create_obj(server, ns, "b")
    listed = get_json(server, f"{obj_path(ns)}?resourceVersion={rv(first)}&resourceVersionMatch=NotOlderThan")
    assert names(listed) == ["a", "b"]
    assert rv(listed) >= rv(latest)


def test_not_older_than_a_future_revision_times_out(server: KubeliteProcess, ns: str) -> None:
    current = rv(get_json(server, obj_path(ns)))
    future = current + 1_000_000
    result = server.http("GET", f"{obj_path(ns)}?resourceVersion={future}&resourceVersionMatch=NotOlderThan")
    status = result.json()
    assert (result.status, status["reason"], status["code"]) == (504, "Timeout", 504)
    assert re.fullmatch(rf"Timeout: Too large resource version: {future}, current: \d+", status["message"])
    assert status["details"] == {
        "causes": [{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}],
        "retryAfterSeconds": 1,
    }


def _wait_for_410(server: KubeliteProcess, path: str, deadline: float = 8.0) -> dict[str, Any]:
    """Compaction runs on its own clock: poll until the old revision is gone."""
    end = time.monotonic() + deadline
    while True:
        result = server.http("GET", path)
        if result.status == 410 or time.monotonic() > end:
            assert result.status == 410, result.body
            return result.json()  # type: ignore[no-any-return]
        # writes move the compactor's target past the revision the request names
        server.http("POST", "/api/v1/namespaces/default/configmaps", {"metadata": {"generateName": "tick-"}})
        time.sleep(0.3)


def test_continue_token_of_a_compacted_revision_is_expired(
    compacting: KubeliteProcess, request: pytest.FixtureRequest
) -> None:
    ns = _namespace(compacting, request)
    for name in "abc":
        create_obj(compacting, ns, name)
    token = get_json(compacting, f"{obj_path(ns)}?limit=1")["metadata"]["continue"]
    status = _wait_for_410(compacting, f"{obj_path(ns)}?limit=1&continue={token}")
    assert {k: v for k, v in status.items() if k != "metadata"} == {
        "kind": "Status",
        "apiVersion": "v1",
        "status": "Failure",
        "message": INCONSISTENT_CONTINUE,
        "reason": "Expired",
        "code": 410,
    }


def test_expired_continue_offers_a_token_for_the_rest(
    compacting: KubeliteProcess, request: pytest.FixtureRequest
) -> None:
    ns = _namespace(compacting, request)
    for name in "abc":
        create_obj(compacting, ns, name)
    token = get_json(compacting, f"{obj_path(ns)}?limit=1")["metadata"]["continue"]
    create_obj(compacting, ns, "d")
    status = _wait_for_410(compacting, f"{obj_path(ns)}?limit=1&continue={token}")
    fresh = status["metadata"]["continue"]
    rest = get_json(compacting, f"{obj_path(ns)}?continue={fresh}")
    assert names(rest) == ["b", "c", "d"]


def test_exact_list_at_a_compacted_revision_is_expired(
    compacting: KubeliteProcess, request: pytest.FixtureRequest
) -> None:
    ns = _namespace(compacting, request)
    old = create_obj(compacting, ns, "a")["metadata"]["resourceVersion"]
    status = _wait_for_410(compacting, f"{obj_path(ns)}?resourceVersion={old}&resourceVersionMatch=Exact")
    assert status == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": "The resourceVersion for the provided list is too old.",
        "reason": "Expired",
        "code": 410,
    }


# -- selectors -----------------------------------------------------------------------------------------------

#: a: prod/web, b: dev/db, c: prod, d: no labels, e: count 7 (for the numeric operators)
LABELLED = {
    "a": {"env": "prod", "tier": "web"},
    "b": {"env": "dev", "tier": "db"},
    "c": {"env": "prod"},
    "d": {},
    "e": {"count": "7"},
}


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        ("env=prod", ["a", "c"]),
        ("env==prod", ["a", "c"]),
        ("env!=prod", ["b", "d", "e"]),
        ("env in (prod,dev)", ["a", "b", "c"]),
        ("env notin (prod)", ["b", "d", "e"]),
        ("tier", ["a", "b"]),
        ("!tier", ["c", "d", "e"]),
        ("env=prod,tier", ["a"]),
        ("env in (prod),tier notin (web)", ["c"]),
        ("count>5", ["e"]),
        ("count<5", []),
        ("env=staging", []),
    ],
    ids=[
        "equals",
        "double-equals",
        "not-equals",
        "in",
        "notin",
        "exists",
        "not-exists",
        "and-exists",
        "in-and-notin",
        "greater-than",
        "less-than",
        "no-match",
    ],
)
def test_label_selector_operators(
    server: KubeliteProcess, ns: str, selector: str, expected: list[str]
) -> None:
    for name, labels in LABELLED.items():
        create_obj(server, ns, name, **labels)
    listed = get_json(server, f"{obj_path(ns)}?labelSelector={quote(selector)}")
    assert names(listed) == expected


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        ("metadata.name=b", ["b"]),
        ("metadata.name==b", ["b"]),
        ("metadata.name!=b", ["a", "c"]),
        ("metadata.name!=a,metadata.name!=c", ["b"]),
        ("metadata.namespace={ns}", ["a", "b", "c"]),
        ("metadata.namespace!={ns}", []),
    ],
    ids=["equals", "double-equals", "not-equals", "two-terms", "namespace", "other-namespace"],
)
def test_field_selectors(server: KubeliteProcess, ns: str, selector: str, expected: list[str]) -> None:
    for name in "abc":
        create_obj(server, ns, name)
    listed = get_json(server, f"{obj_path(ns)}?fieldSelector={quote(selector.format(ns=ns))}")
    assert names(listed) == expected


def test_pod_field_selectors_of_kubelets_and_schedulers(server: KubeliteProcess, ns: str) -> None:
    """spec.nodeName and status.phase are what kubelets and schedulers list pods by."""
    for name, node in (("on-n1", "n1"), ("on-n2", "n2"), ("pending", "")):
        spec: dict[str, Any] = {"containers": [{"name": "c", "image": "busybox"}]}
        if node:
            spec["nodeName"] = node
        result = server.http(
            "POST", f"/api/v1/namespaces/{ns}/pods", {"metadata": {"name": name}, "spec": spec}
        )
        assert result.status == 201, result.body
    pods = f"/api/v1/namespaces/{ns}/pods"
    assert names(get_json(server, f"{pods}?fieldSelector=spec.nodeName%3Dn1")) == ["on-n1"]
    assert names(get_json(server, f"{pods}?fieldSelector=spec.nodeName%3D")) == ["pending"]
    assert names(get_json(server, f"{pods}?fieldSelector=status.phase%3DPending")) == [
        "on-n1",
        "on-n2",
        "pending",
    ]
    assert names(get_json(server, f"{pods}?fieldSelector=status.phase%3DRunning")) == []


# -- across namespaces ---------------------------------------------------------------------------------------


def test_list_across_all_namespaces(server: KubeliteProcess, request: pytest.FixtureRequest) -> None:
    first, second = _namespace(server, request), _namespace(server, request)
    marker = f"m{next(_COUNTER)}"
    for namespace, name in ((second, "x"), (first, "y"), (second, "a")):
        create_obj(server, namespace, name, marker=marker)
    listed = get_json(server, f"/api/v1/secrets?labelSelector=marker%3D{marker}")
    assert listed["kind"] == "SecretList"
    # storage order: by namespace, then by name
    assert [(i["metadata"]["namespace"], i["metadata"]["name"]) for i in listed["items"]] == [
        (first, "y"),
        (second, "a"),
        (second, "x"),
    ]


def test_paginated_list_across_all_namespaces(
    server: KubeliteProcess, request: pytest.FixtureRequest
) -> None:
    first, second = _namespace(server, request), _namespace(server, request)
    marker = f"m{next(_COUNTER)}"
    for namespace in (first, second):
        for name in "ab":
            create_obj(server, namespace, name, marker=marker)
    seen: list[tuple[str, str]] = []
    token = ""
    for _ in range(4):
        suffix = f"&continue={token}" if token else ""
        page = get_json(server, f"/api/v1/secrets?labelSelector=marker%3D{marker}&limit=1{suffix}")
        seen += [(i["metadata"]["namespace"], i["metadata"]["name"]) for i in page["items"]]
        token = page["metadata"].get("continue", "")
        if not token:
            break
    # in key order, namespace by namespace (as names: "l10-..." comes before "l9-...")
    assert seen == sorted([(first, "a"), (first, "b"), (second, "a"), (second, "b")])


def test_cluster_scoped_list_with_a_field_selector(server: KubeliteProcess, ns: str) -> None:
    listed = get_json(server, f"/api/v1/namespaces?fieldSelector=metadata.name%3D{ns}")
    assert (listed["kind"], names(listed)) == ("NamespaceList", [ns])
