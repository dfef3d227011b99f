"""Discovery documents (aggregated and legacy) into resources, name resolution; error classification."""

from __future__ import annotations

from typing import Any

import pytest

from kubelite.client.discovery import DiscoveryClient, parse_aggregated, parse_resource_list
from kubelite.client.errors import (
    AlreadyExists,
    ApiError,
    Conflict,
    Expired,
    Gone,
    Invalid,
    NotFound,
    ServerTimeout,
    Timeout,
    is_expired,
    is_too_large_resource_version,
)
from kubelite.client.schema import GroupVersionResource
from tests.unit.client.support import run

AGGREGATED_APIS = {
    "kind": "APIGroupDiscoveryList",
    "apiVersion": "apidiscovery.k8s.io/v2",
    "items": [
        {
            "metadata": {"name": "apps"},
            "versions": [
                {
                    "version": "v1",
                    "resources": [
                        {
                            "resource": "deployments",
                            "responseKind": {"group": "apps", "version": "v1", "kind": "Deployment"},
                            "scope": "Namespaced",
                            "singularResource": "deployment",
                            "verbs": ["get", "list"],
                            "shortNames": ["deploy"],
                            "categories": ["all"],
                            "subresources": [{"subresource": "scale"}, {"subresource": "status"}],
                        },
                    ],
                },
                {
                    "version": "v1beta1",
                    "resources": [
                        {
                            "resource": "deployments",
                            "responseKind": {"kind": "Deployment"},
                            "scope": "Namespaced",
                        },
                    ],
                },
            ],
        },
        {
            "metadata": {"name": "events.k8s.io"},
            "versions": [
                {
                    "version": "v1",
                    "resources": [
                        {
                            "resource": "events",
                            "responseKind": {"kind": "Event"},
                            "scope": "Namespaced",
                            "shortNames": ["ev"],
                        },
                    ],
                }
            ],
        },
    ],
}
AGGREGATED_CORE = {
    "kind": "APIGroupDiscoveryList",
    "items": [
        {
            "metadata": {},
            "versions": [
                {
                    "version": "v1",
                    "resources": [
                        {
                            "resource": "events",
                            "responseKind": {"kind": "Event"},
                            "scope": "Namespaced",
                            "shortNames": ["ev"],
                        },
                        {
                            "resource": "nodes",
                            "responseKind": {"kind": "Node"},
                            "scope": "Cluster",
                            "singularResource": "node",
                        },
                    ],
                }
            ],
        },
    ],
}


def test_parse_aggregated() -> None:
    resources = parse_aggregated(AGGREGATED_APIS)
    deployments = resources[0]
    assert deployments.gvr == GroupVersionResource("apps", "v1", "deployments")
    assert (deployments.kind, deployments.namespaced, deployments.preferred) == ("Deployment", True, True)
    assert (deployments.short_names, deployments.subresources) == (("deploy",), ("scale", "status"))
    assert (resources[1].gvr.version, resources[1].preferred) == ("v1beta1", False)


def test_parse_legacy_resource_list() -> None:
    document = {
        "kind": "APIResourceList",
        "groupVersion": "v1",
        "resources": [
            {
                "name": "pods",
                "singularName": "pod",
                "namespaced": True,
                "kind": "Pod",
                "verbs": ["get"],
                "shortNames": ["po"],
            },
            {"name": "pods/status", "namespaced": True, "kind": "Pod"},
            {"name": "pods/log", "namespaced": True, "kind": "Pod"},
            {"name": "namespaces", "namespaced": False, "kind": "Namespace"},
        ],
    }
    pods, namespaces = parse_resource_list(document, preferred=True)
    assert (pods.gvr, pods.subresources, pods.short_names) == (
        GroupVersionResource("", "v1", "pods"),
        ("status", "log"),
        ("po",),
    )
    assert (namespaces.namespaced, namespaces.kind) == (False, "Namespace")


class FakeRest:
    """Answers discovery paths from a dict; counts requests."""

    def __init__(self, documents: dict[str, Any]) -> None:
        self.documents = documents
        self.requests: list[str] = []

    async def get(self, path: str, **_: Any) -> Any:
        self.requests.append(path)
        return self.documents[path]


LEGACY = {
    "/api": {"kind": "APIVersions", "versions": ["v1"]},
    "/apis": {
        "kind": "APIGroupList",
        "groups": [
            {
                "name": "batch",
                "versions": [{"groupVersion": "batch/v1", "version": "v1"}],
                "preferredVersion": {"groupVersion": "batch/v1"},
            },
        ],
    },
    "/api/v1": {
        "groupVersion": "v1",
        "resources": [{"name": "pods", "namespaced": True, "kind": "Pod", "shortNames": ["po"]}],
    },
    "/apis/batch/v1": {
        "groupVersion": "batch/v1",
        "resources": [
            {"name": "jobs", "singularName": "job", "namespaced": True, "kind": "Job"},
            {"name": "jobs/status", "namespaced": True, "kind": "Job"},
        ],
    },
}


@pytest.mark.parametrize(
    ("documents", "name", "gvr"),
    [
        ({"/api": AGGREGATED_CORE, "/apis": AGGREGATED_APIS}, "deploy", ("apps", "v1", "deployments")),
        ({"/api": AGGREGATED_CORE, "/apis": AGGREGATED_APIS}, "events", ("", "v1", "events")),
        (
            {"/api": AGGREGATED_CORE, "/apis": AGGREGATED_APIS},
            "events.events.k8s.io",
            ("events.k8s.io", "v1", "events"),
        ),
        (
            {"/api": AGGREGATED_CORE, "/apis": AGGREGATED_APIS},
            "deployments.v1beta1.apps",
            ("apps", "v1beta1", "deployments"),
        ),
        ({"/api": AGGREGATED_CORE, "/apis": AGGREGATED_APIS}, "Node", ("", "v1", "nodes")),
        (LEGACY, "po", ("", "v1", "pods")),
        (LEGACY, "job", ("batch", "v1", "jobs")),
    ],
    ids=[
        "short-name",
        "core-first",
        "group-qualified",
        "version-qualified",
        "kind",
        "legacy-short",
        "legacy-singular",
    ],
)
def test_resolve(documents: dict[str, Any], name: str, gvr: tuple[str, str, str]) -> None:
    discovery = DiscoveryClient(FakeRest(documents))  # type: ignore[arg-type]
    assert run(lambda: discovery.resolve(name)).gvr == GroupVersionResource(*gvr)


def test_lookup_miss_refreshes_once_then_raises() -> None:
    rest = FakeRest(LEGACY)
    discovery = DiscoveryClient(rest)  # type: ignore[arg-type]
    assert run(lambda: discovery.resource_for_kind("batch/v1", "Job")).subresources == ("status",)
    assert rest.requests.count("/apis") == 1
    with pytest.raises(NotFound, match=r'the server doesn\'t have a resource type "Widget\.example\.com/v1"'):
        run(lambda: discovery.resource_for_kind("example.com/v1", "Widget"))
    assert rest.requests.count("/apis") == 2


@pytest.mark.parametrize(
    ("status", "cls"),
    [
        ({"reason": "NotFound", "code": 404}, NotFound),
        ({"reason": "AlreadyExists", "code": 409}, AlreadyExists),
        ({"reason": "Conflict", "code": 409}, Conflict),
        ({"reason": "", "code": 409}, Conflict),
        ({"reason": "Expired", "code": 410}, Expired),
        ({"reason": "Gone", "code": 410}, Gone),
        ({"reason": "Invalid", "code": 422}, Invalid),
        ({"reason": "Timeout", "code": 504}, Timeout),
        ({"reason": "ServerTimeout", "code": 500}, ServerTimeout),
        ({"reason": "Teapot", "code": 418}, ApiError),
    ],
    ids=lambda v: v.__name__ if isinstance(v, type) else v.get("reason") or "no-reason",
)
def test_status_classification(status: dict[str, Any], cls: type[ApiError]) -> None:
    error = ApiError.from_status({"kind": "Status", "message": "m", **status})
    assert type(error) is cls
    assert error.code == status["code"]


def test_predicates_and_retry_after() -> None:
    expired = ApiError.from_status({"reason": "Expired", "code": 410})
    assert is_expired(expired) and is_expired(ApiError.from_status({"reason": "Gone", "code": 410}))
    too_large = ApiError.from_status(
        {"reason": "Timeout", "code": 504, "details": {"causes": [{"reason": "ResourceVersionTooLarge"}]}}
    )
    assert is_too_large_resource_version(too_large)
    assert is_too_large_resource_version(
        ApiError.from_status({"reason": "Timeout", "code": 504, "message": "Too large resource version: 9"})
    )
    assert not is_too_large_resource_version(expired)
    busy = ApiError.from_status(
        {"reason": "TooManyRequests", "code": 429, "details": {"retryAfterSeconds": 4}}
    )
    assert busy.retry_after == 4.0
