"""Discovery documents: legacy (/api, /apis, /apis/{g}, APIResourceList) and aggregated (apidiscovery v2)."""

from __future__ import annotations

from typing import Any

import pytest

from kubelite.endpoints.api_resource import APIResource
from kubelite.endpoints.discovery import Discovery
from kubelite.registry.catalog import BUILTIN_RESOURCES, GROUP_ORDER
from kubelite.registry.spec import ALL_VERBS, ResourceSpec, SubresourceSpec

ADDRESS = "127.0.0.1:6443"
STATUS = SubresourceSpec("status")
SCALE = SubresourceSpec("scale", group="autoscaling", version="v1", kind="Scale")

#: a small, fixed set: what discovery does with it does not move when the served catalog grows
SPECS = (
    ResourceSpec(
        "",
        "v1",
        "pods",
        "Pod",
        "pod",
        True,
        short_names=("po",),
        categories=("all",),
        subresources=(
            STATUS,
            SubresourceSpec("log", verbs=("get",)),
            SubresourceSpec("binding", group="", version="v1", kind="Binding", verbs=("create",)),
        ),
    ),
    ResourceSpec(
        "",
        "v1",
        "namespaces",
        "Namespace",
        "namespace",
        False,
        short_names=("ns",),
        verbs=("create", "delete", "get", "list", "patch", "update", "watch"),
        subresources=(SubresourceSpec("finalize", verbs=("update",)), STATUS),
    ),
    ResourceSpec(
        "apps",
        "v1",
        "deployments",
        "Deployment",
        "deployment",
        True,
        short_names=("deploy",),
        categories=("all",),
        subresources=(STATUS, SCALE),
    ),
    ResourceSpec("zeta.example.com", "v1", "zs", "Z", "z", True),
    ResourceSpec(
        "autoscaling",
        "v2",
        "horizontalpodautoscalers",
        "HorizontalPodAutoscaler",
        "horizontalpodautoscaler",
        True,
        short_names=("hpa",),
    ),
    ResourceSpec(
        "autoscaling",
        "v1",
        "horizontalpodautoscalers",
        "HorizontalPodAutoscaler",
        "horizontalpodautoscaler",
        True,
        short_names=("hpa",),
    ),
    ResourceSpec("alpha.example.com", "v1", "as", "A", "a", False),
)


@pytest.fixture
def discovery() -> Discovery:
    return Discovery([APIResource.declared(spec) for spec in SPECS], ("apps", "autoscaling"), ADDRESS)


def test_api_versions(discovery: Discovery) -> None:
    assert discovery.api_versions() == {
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": ADDRESS}],
    }


def test_group_order_puts_known_groups_first_then_the_rest_by_name(discovery: Discovery) -> None:
    assert [g["name"] for g in discovery.api_group_list()["groups"]] == [
        "apps",
        "autoscaling",
        "alpha.example.com",
        "zeta.example.com",
    ]


def test_api_group_list(discovery: Discovery) -> None:
    listed = discovery.api_group_list()
    assert (listed["kind"], listed["apiVersion"], listed["groups"][1]) == (
        "APIGroupList",
        "v1",
        {
            "name": "autoscaling",
            "versions": [
                {"groupVersion": "autoscaling/v2", "version": "v2"},
                {"groupVersion": "autoscaling/v1", "version": "v1"},
            ],
            "preferredVersion": {"groupVersion": "autoscaling/v2", "version": "v2"},
        },
    )


@pytest.mark.parametrize(
    ("group", "expected"),
    [
        (
            "apps",
            {
                "kind": "APIGroup",
                "apiVersion": "v1",
                "name": "apps",
                "versions": [{"groupVersion": "apps/v1", "version": "v1"}],
                "preferredVersion": {"groupVersion": "apps/v1", "version": "v1"},
            },
        ),
        ("batch", None),
        ("", None),
    ],
    ids=["served", "unknown", "core-is-not-a-group"],
)
def test_api_group(discovery: Discovery, group: str, expected: dict[str, Any] | None) -> None:
    assert discovery.api_group(group) == expected


def test_core_resource_list_with_subresources(discovery: Discovery) -> None:
    # resources by name, each followed by its subresources by name: kube's sorted paths
    assert discovery.resource_list("", "v1") == {
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": "v1",
        "resources": [
            {
                "name": "namespaces",
                "singularName": "namespace",
                "namespaced": False,
                "kind": "Namespace",
                "verbs": ["create", "delete", "get", "list", "patch", "update", "watch"],
                "shortNames": ["ns"],
                "storageVersionHash": "Q3oi5N2YM8M=",
            },
            {
                "name": "namespaces/finalize",
                "singularName": "",
                "namespaced": False,
                "kind": "Namespace",
                "verbs": ["update"],
            },
            {
                "name": "namespaces/status",
                "singularName": "",
                "namespaced": False,
                "kind": "Namespace",
                "verbs": ["get", "patch", "update"],
            },
            {
                "name": "pods",
                "singularName": "pod",
                "namespaced": True,
                "kind": "Pod",
                "verbs": list(ALL_VERBS),
                "shortNames": ["po"],
                "categories": ["all"],
                "storageVersionHash": "xPOwRZ+Yhw8=",
            },
            {
                "name": "pods/binding",
                "singularName": "",
                "namespaced": True,
                "kind": "Binding",
                "verbs": ["create"],
            },
            {"name": "pods/log", "singularName": "", "namespaced": True, "kind": "Pod", "verbs": ["get"]},
            {
                "name": "pods/status",
                "singularName": "",
                "namespaced": True,
                "kind": "Pod",
                "verbs": ["get", "patch", "update"],
            },
        ],
    }


def test_group_resource_list_names_the_scale_kind(discovery: Discovery) -> None:
    assert discovery.resource_list("apps", "v1") == {
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": "apps/v1",
        "resources": [
            {
                "name": "deployments",
                "singularName": "deployment",
                "namespaced": True,
                "kind": "Deployment",
                "verbs": list(ALL_VERBS),
                "shortNames": ["deploy"],
                "categories": ["all"],
                "storageVersionHash": "8aSe+NMegvE=",
            },
            {
                "name": "deployments/scale",
                "singularName": "",
                "namespaced": True,
                "group": "autoscaling",
                "version": "v1",
                "kind": "Scale",
                "verbs": ["get", "patch", "update"],
            },
            {
                "name": "deployments/status",
                "singularName": "",
                "namespaced": True,
                "kind": "Deployment",
                "verbs": ["get", "patch", "update"],
            },
        ],
    }


@pytest.mark.parametrize(
    ("group", "version"),
    [("apps", "v2"), ("nope", "v1"), ("", "v2")],
    ids=["unknown-version", "unknown-group", "unknown-core-version"],
)
def test_unknown_group_versions(discovery: Discovery, group: str, version: str) -> None:
    assert discovery.resource_list(group, version) is None


def test_aggregated_groups(discovery: Discovery) -> None:
    doc = discovery.aggregated(legacy=False)
    assert (doc["kind"], doc["apiVersion"], doc["metadata"]) == (
        "APIGroupDiscoveryList",
        "apidiscovery.k8s.io/v2",
        {},
    )
    assert [(i["metadata"]["name"], [v["version"] for v in i["versions"]]) for i in doc["items"]] == [
        ("apps", ["v1"]),
        ("autoscaling", ["v2", "v1"]),
        ("alpha.example.com", ["v1"]),
        ("zeta.example.com", ["v1"]),
    ]
    apps = doc["items"][0]
    assert apps == {
        "metadata": {"name": "apps", "creationTimestamp": None},
        "versions": [
            {
                "version": "v1",
                "freshness": "Current",
                "resources": [
                    {
                        "resource": "deployments",
                        "responseKind": {"group": "apps", "version": "v1", "kind": "Deployment"},
                        "scope": "Namespaced",
                        "singularResource": "deployment",
                        "verbs": list(ALL_VERBS),
                        "shortNames": ["deploy"],
                        "categories": ["all"],
                        "subresources": [
                            {
                                "subresource": "scale",
                                "responseKind": {"group": "autoscaling", "version": "v1", "kind": "Scale"},
                                "verbs": ["get", "patch", "update"],
                            },
                            {
                                "subresource": "status",
                                "responseKind": {"group": "apps", "version": "v1", "kind": "Deployment"},
                                "verbs": ["get", "patch", "update"],
                            },
                        ],
                    }
                ],
            }
        ],
    }


def test_aggregated_core(discovery: Discovery) -> None:
    doc = discovery.aggregated(legacy=True)
    (core,) = doc["items"]
    (v1,) = core["versions"]
    assert (core["metadata"]["name"], v1["version"], [r["resource"] for r in v1["resources"]]) == (
        "",
        "v1",
        ["namespaces", "pods"],
    )
    namespaces, pods = v1["resources"]
    assert (namespaces["scope"], "categories" in namespaces, pods["scope"]) == (
        "Cluster",
        False,
        "Namespaced",
    )
    assert pods["subresources"] == [
        {
            "subresource": "binding",
            "responseKind": {"group": "", "version": "v1", "kind": "Binding"},
            "verbs": ["create"],
        },
        {
            "subresource": "log",
            "responseKind": {"group": "", "version": "v1", "kind": "Pod"},
            "verbs": ["get"],
        },
        {
            "subresource": "status",
            "responseKind": {"group": "", "version": "v1", "kind": "Pod"},
            "verbs": ["get", "patch", "update"],
        },
    ]


# -- the served catalog --------------------------------------------------------------------------------------


@pytest.fixture
def served() -> Discovery:
    return Discovery([APIResource.declared(spec) for spec in BUILTIN_RESOURCES], GROUP_ORDER, ADDRESS)


def test_served_pods(served: Discovery) -> None:
    listed = served.resource_list("", "v1")
    assert listed is not None
    entries = {r["name"]: r for r in listed["resources"]}
    assert entries["pods"] == {
        "name": "pods",
        "singularName": "pod",
        "namespaced": True,
        "kind": "Pod",
        "verbs": list(ALL_VERBS),
        "shortNames": ["po"],
        "categories": ["all"],
        "storageVersionHash": "xPOwRZ+Yhw8=",
    }
    assert entries["pods/status"] == {
        "name": "pods/status",
        "singularName": "",
        "namespaced": True,
        "kind": "Pod",
        "verbs": ["get", "patch", "update"],
    }
    assert entries["pods/log"]["verbs"] == ["get"]
    pod_entries = [n for n in entries if n.startswith("pods/")]
    assert pod_entries == sorted(pod_entries)


def test_served_deployment_scale_is_an_autoscaling_scale(served: Discovery) -> None:
    doc = served.aggregated(legacy=False)
    apps = next(i for i in doc["items"] if i["metadata"]["name"] == "apps")
    deployments = next(r for r in apps["versions"][0]["resources"] if r["resource"] == "deployments")
    scale = next(s for s in deployments["subresources"] if s["subresource"] == "scale")
    assert scale == {
        "subresource": "scale",
        "responseKind": {"group": "autoscaling", "version": "v1", "kind": "Scale"},
        "verbs": ["get", "patch", "update"],
    }


def test_served_groups_follow_the_priority_order(served: Discovery) -> None:
    names = [g["name"] for g in served.api_group_list()["groups"]]
    ordered = [g for g in GROUP_ORDER if g in names]
    assert (names[: len(ordered)], names[0]) == (ordered, "apps")
    assert [i["metadata"]["name"] for i in served.aggregated(legacy=False)["items"]] == names
