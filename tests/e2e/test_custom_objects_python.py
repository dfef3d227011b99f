"""Custom resources through Python clients as programs use them: the official `kubernetes` client's
ApiextensionsV1Api (a CRD created, read with its status, listed, deleted) and CustomObjectsApi (every verb, the
status and scale subresources, and `watch.Watch().stream` over a custom resource), then kubelite.client's dynamic
client and a shared informer over the same kind of resource, seeing the same events."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

import pytest
from kubernetes import client, watch
from kubernetes.client.rest import ApiException

from kubelite.client import Config, DynamicClient, RESTClient
from kubelite.client.cache import ResourceEventHandlerFuncs, SharedInformerFactory
from kubelite.client.errors import Conflict, NotFound
from tests.e2e.server import KubeliteProcess
from tests.e2e.test_kopf_operator import create_established_crd, eventually, widget_crd

GROUP, VERSION = "example.com", "v1"
JSON_PATCH = "application/json-patch+json"


def gadget(name: str, size: int = 1, **labels: str) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if labels:
        meta["labels"] = labels
    return {"apiVersion": f"{GROUP}/{VERSION}", "kind": "Gadget", "metadata": meta, "spec": {"size": size}}


def status_of(exc: ApiException) -> tuple[int, str, str]:
    body = json.loads(exc.body)
    return exc.status, body["reason"], body["message"]


@pytest.fixture(scope="module")
def api(server: KubeliteProcess) -> Any:
    return server.python_client()


@pytest.fixture(scope="module")
def gadgets(server: KubeliteProcess) -> str:
    """The plural of a CRD every test here shares, each test in its own namespace."""
    create_established_crd(server, widget_crd(plural="gadgets", kind="Gadget"))
    return "gadgets"


def namespace(server: KubeliteProcess, name: str) -> str:
    created = server.http(
        "POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}
    )
    assert created.status == 201, created.body
    return name


def test_a_crd_through_apiextensions_v1_api(server: KubeliteProcess, api: Any) -> None:
    extensions = client.ApiextensionsV1Api(api)
    created = extensions.create_custom_resource_definition(widget_crd(plural="sprockets", kind="Sprocket"))
    assert (created.metadata.name, created.spec.names.list_kind, created.spec.versions[0].name) == (
        "sprockets.example.com",
        "SprocketList",
        "v1",
    )

    def established() -> Any:
        status = extensions.read_custom_resource_definition_status("sprockets.example.com").status
        conditions = {c.type: (c.status, c.reason) for c in status.conditions or []}
        return status if conditions.get("Established", ("",))[0] == "True" else None

    status = eventually(established, "the CRD Established", timeout=10)
    conditions = {c.type: (c.status, c.reason, c.message) for c in status.conditions}
    assert conditions == {
        "NamesAccepted": ("True", "NoConflicts", "no conflicts found"),
        "Established": ("True", "InitialNamesAccepted", "the initial names have been accepted"),
    }
    assert (
        status.accepted_names.plural,
        status.accepted_names.singular,
        status.accepted_names.kind,
        status.accepted_names.list_kind,
        status.stored_versions,
    ) == ("sprockets", "sprocket", "Sprocket", "SprocketList", ["v1"])

    read = extensions.read_custom_resource_definition("sprockets.example.com")
    assert (read.metadata.uid, read.spec.scope, read.spec.versions[0].subresources.scale.spec_replicas_path) == (
        created.metadata.uid,
        "Namespaced",
        ".spec.replicas",
    )
    listed = extensions.list_custom_resource_definition()
    assert "sprockets.example.com" in [crd.metadata.name for crd in listed.items]

    # the resource is served as soon as the CRD is Established, and goes with it
    objects = client.CustomObjectsApi(api)
    objects.create_namespaced_custom_object(
        GROUP,
        VERSION,
        "default",
        "sprockets",
        {"apiVersion": f"{GROUP}/{VERSION}", "kind": "Sprocket", "metadata": {"name": "s1"}, "spec": {"size": 1}},
    )
    # the CRD is answered Terminating, held by its cleanup finalizer until its custom resources are gone (the
    # client reads it into its declared V1Status)
    deleted = extensions.delete_custom_resource_definition("sprockets.example.com")
    assert (deleted.kind, deleted.api_version) == ("CustomResourceDefinition", "apiextensions.k8s.io/v1")

    def gone() -> bool:
        try:
            extensions.read_custom_resource_definition("sprockets.example.com")
        except ApiException as exc:
            return exc.status == 404
        return False

    eventually(gone, "the CRD gone once its custom resources are", timeout=20)
    with pytest.raises(ApiException) as caught:
        objects.get_namespaced_custom_object(GROUP, VERSION, "default", "sprockets", "s1")
    assert caught.value.status == 404


def test_every_verb_of_custom_objects_api(server: KubeliteProcess, api: Any, gadgets: str) -> None:
    ns = namespace(server, "co-verbs")
    objects = client.CustomObjectsApi(api)
    # a status sent on create is dropped: the status subresource owns it
    sent = gadget("g1", size=2, tier="gold")
    sent["status"] = {"phase": "Forged"}
    created = objects.create_namespaced_custom_object(GROUP, VERSION, ns, gadgets, sent)
    meta = created["metadata"]
    assert (created["kind"], created["spec"], "status" in created, meta["generation"], meta["namespace"]) == (
        "Gadget",
        {"size": 2},
        False,
        1,
        ns,
    )
    objects.create_namespaced_custom_object(GROUP, VERSION, ns, gadgets, gadget("g2", tier="silver"))
    objects.create_namespaced_custom_object(GROUP, VERSION, ns, gadgets, gadget("g3", tier="gold"))

    got = objects.get_namespaced_custom_object(GROUP, VERSION, ns, gadgets, "g1")
    assert got == created
    with pytest.raises(ApiException) as caught:
        objects.get_namespaced_custom_object(GROUP, VERSION, ns, gadgets, "missing")
    assert status_of(caught.value) == (404, "NotFound", 'gadgets.example.com "missing" not found')

    listed = objects.list_namespaced_custom_object(GROUP, VERSION, ns, gadgets)
    assert (listed["kind"], listed["apiVersion"], [o["metadata"]["name"] for o in listed["items"]]) == (
        "GadgetList",
        "example.com/v1",
        ["g1", "g2", "g3"],
    )
    gold = objects.list_namespaced_custom_object(GROUP, VERSION, ns, gadgets, label_selector="tier=gold")
    assert [o["metadata"]["name"] for o in gold["items"]] == ["g1", "g3"]
    page = objects.list_namespaced_custom_object(GROUP, VERSION, ns, gadgets, limit=2)
    rest = objects.list_namespaced_custom_object(
        GROUP, VERSION, ns, gadgets, limit=2, _continue=page["metadata"]["continue"]
    )
    assert ([o["metadata"]["name"] for o in page["items"]], [o["metadata"]["name"] for o in rest["items"]]) == (
        ["g1", "g2"],
        ["g3"],
    )
    everywhere = objects.list_cluster_custom_object(GROUP, VERSION, gadgets, label_selector="tier=silver")
    assert [(o["metadata"]["namespace"], o["metadata"]["name"]) for o in everywhere["items"]] == [(ns, "g2")]

    merged = objects.patch_namespaced_custom_object(GROUP, VERSION, ns, gadgets, "g1", {"spec": {"color": "blue"}})
    assert (merged["spec"], merged["metadata"]["generation"]) == ({"size": 2, "color": "blue"}, 2)
    json_patched = objects.patch_namespaced_custom_object(
        GROUP,
        VERSION,
        ns,
        gadgets,
        "g1",
        [{"op": "replace", "path": "/spec/size", "value": 4}, {"op": "remove", "path": "/spec/color"}],
        _content_type=JSON_PATCH,
    )
    assert (json_patched["spec"], json_patched["metadata"]["generation"]) == ({"size": 4}, 3)
    with pytest.raises(ApiException) as caught:
        objects.patch_namespaced_custom_object(
            GROUP,
            VERSION,
            ns,
            gadgets,
            "g1",
            [{"op": "test", "path": "/spec/size", "value": 5}],
            _content_type=JSON_PATCH,
        )
    assert status_of(caught.value) == (422, "Invalid", "the server rejected our request due to an error in our request")

    replacement = dict(json_patched, spec={"size": 6, "replicas": 2})
    replaced = objects.replace_namespaced_custom_object(GROUP, VERSION, ns, gadgets, "g1", replacement)
    assert (replaced["spec"], replaced["metadata"]["generation"]) == ({"size": 6, "replicas": 2}, 4)
    with pytest.raises(ApiException) as caught:
        objects.replace_namespaced_custom_object(GROUP, VERSION, ns, gadgets, "g1", replacement)  # stale version
    assert status_of(caught.value) == (
        409,
        "Conflict",
        'Operation cannot be fulfilled on gadgets.example.com "g1": the object has been modified; '
        "please apply your changes to the latest version and try again",
    )

    # status: the subresource writes only status, and the main resource never does
    with_status = objects.patch_namespaced_custom_object_status(
        GROUP, VERSION, ns, gadgets, "g1", {"status": {"phase": "Ready", "replicas": 1}, "spec": {"size": 99}}
    )
    assert (with_status["status"], with_status["spec"], with_status["metadata"]["generation"]) == (
        {"phase": "Ready", "replicas": 1},
        {"size": 6, "replicas": 2},
        4,
    )
    read_status = objects.get_namespaced_custom_object_status(GROUP, VERSION, ns, gadgets, "g1")
    assert read_status == with_status
    ignored = objects.patch_namespaced_custom_object(GROUP, VERSION, ns, gadgets, "g1", {"status": {"phase": "Lost"}})
    assert (ignored["status"], ignored["metadata"]["resourceVersion"]) == (
        {"phase": "Ready", "replicas": 1},
        with_status["metadata"]["resourceVersion"],
    )

    # scale: autoscaling/v1 Scale read from and written to the CRD's replicas paths
    scale = objects.get_namespaced_custom_object_scale(GROUP, VERSION, ns, gadgets, "g1")
    assert scale == {
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": {
            "name": "g1",
            "namespace": ns,
            "uid": created["metadata"]["uid"],
            "resourceVersion": with_status["metadata"]["resourceVersion"],
            "creationTimestamp": created["metadata"]["creationTimestamp"],
        },
        "spec": {"replicas": 2},
        "status": {"replicas": 1},
    }
    scaled = objects.patch_namespaced_custom_object_scale(GROUP, VERSION, ns, gadgets, "g1", {"spec": {"replicas": 5}})
    assert (scaled["spec"], scaled["status"]) == ({"replicas": 5}, {"replicas": 1})
    after_scale = objects.get_namespaced_custom_object(GROUP, VERSION, ns, gadgets, "g1")
    assert (after_scale["spec"], after_scale["metadata"]["generation"]) == ({"size": 6, "replicas": 5}, 5)

    g2_uid = objects.get_namespaced_custom_object(GROUP, VERSION, ns, gadgets, "g2")["metadata"]["uid"]
    deleted = objects.delete_namespaced_custom_object(GROUP, VERSION, ns, gadgets, "g2")
    assert deleted == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Success",
        "details": {"name": "g2", "group": "example.com", "kind": "gadgets", "uid": g2_uid},
    }
    with pytest.raises(ApiException) as caught:
        objects.delete_namespaced_custom_object(GROUP, VERSION, ns, gadgets, "g2")
    assert status_of(caught.value) == (404, "NotFound", 'gadgets.example.com "g2" not found')
    collection = objects.delete_collection_namespaced_custom_object(
        GROUP, VERSION, ns, gadgets, label_selector="tier=gold"
    )
    assert (collection["kind"], sorted(o["metadata"]["name"] for o in collection["items"])) == (
        "GadgetList",
        ["g1", "g3"],
    )
    assert objects.list_namespaced_custom_object(GROUP, VERSION, ns, gadgets)["items"] == []


def test_watch_stream_of_a_custom_resource(server: KubeliteProcess, api: Any, gadgets: str) -> None:
    ns = namespace(server, "co-watch")
    objects = client.CustomObjectsApi(api)
    start = objects.list_namespaced_custom_object(GROUP, VERSION, ns, gadgets)["metadata"]["resourceVersion"]
    written: dict[str, Any] = {}

    def write() -> None:
        # the changes come while the stream is open, as a controller sees them
        written["created"] = objects.create_namespaced_custom_object(GROUP, VERSION, ns, gadgets, gadget("w"))
        written["patched"] = objects.patch_namespaced_custom_object(
            GROUP, VERSION, ns, gadgets, "w", {"spec": {"size": 2}}
        )
        written["status"] = objects.patch_namespaced_custom_object_status(
            GROUP, VERSION, ns, gadgets, "w", {"status": {"phase": "On"}}
        )
        objects.delete_namespaced_custom_object(GROUP, VERSION, ns, gadgets, "w")

    writer = threading.Timer(0.5, write)
    writer.start()
    seen: list[tuple[str, str, Any, Any, str]] = []
    stream = watch.Watch()
    for event in stream.stream(
        objects.list_namespaced_custom_object, GROUP, VERSION, ns, gadgets, resource_version=start, timeout_seconds=15
    ):
        obj = event["object"]
        meta = obj["metadata"]
        seen.append((event["type"], meta["name"], obj["spec"], obj.get("status"), meta["resourceVersion"]))
        if event["type"] == "DELETED":
            stream.stop()
    writer.join(10)
    versions = [written[step]["metadata"]["resourceVersion"] for step in ("created", "patched", "status")]
    assert [event[:4] for event in seen] == [
        ("ADDED", "w", {"size": 1}, None),
        ("MODIFIED", "w", {"size": 2}, None),
        ("MODIFIED", "w", {"size": 2}, {"phase": "On"}),
        ("DELETED", "w", {"size": 2}, {"phase": "On"}),
    ]
    assert [event[4] for event in seen[:3]] == versions
    assert int(seen[3][4]) > int(versions[2])
    assert (written["created"]["metadata"]["generation"], written["status"]["metadata"]["generation"]) == (1, 2)


def test_kubelite_client_dynamic_client_and_informer(server: KubeliteProcess, gadgets: str) -> None:
    ns = namespace(server, "co-informer")

    async def body() -> None:
        async with RESTClient(Config(host=server.url)) as rest:
            dynamic = DynamicClient(rest)
            resource, found = await dynamic.for_kind(f"{GROUP}/{VERSION}", "Gadget")
            assert (found.gvr.resource, found.namespaced, found.kind) == ("gadgets", True, "Gadget")
            items = resource.namespace(ns)
            events: list[tuple[str, str, str]] = []

            def add(obj: dict[str, Any]) -> None:
                events.append(("ADDED", obj["metadata"]["name"], obj["metadata"]["resourceVersion"]))

            def update(old: dict[str, Any], new: dict[str, Any]) -> None:
                events.append(("MODIFIED", new["metadata"]["name"], new["metadata"]["resourceVersion"]))

            def delete(obj: Any) -> None:
                events.append(("DELETED", obj["metadata"]["name"], obj["metadata"]["resourceVersion"]))

            async with SharedInformerFactory(dynamic, namespace=ns) as factory:
                generic = await factory.for_kind(f"{GROUP}/{VERSION}", "Gadget")
                generic.informer.add_event_handler(ResourceEventHandlerFuncs(add=add, update=update, delete=delete))
                factory.start()
                assert list((await factory.wait_for_cache_sync(timeout=30)).values()) == [True]

                created = await items.create(gadget("d1", size=1, tier="gold"))
                merged = await items.patch("d1", {"spec": {"size": 2}})
                json_patched = await items.patch(
                    "d1", [{"op": "add", "path": "/spec/color", "value": "red"}], patch_type="json"
                )
                applied = await items.apply(
                    {
                        "apiVersion": f"{GROUP}/{VERSION}",
                        "kind": "Gadget",
                        "metadata": {"name": "d1"},
                        "spec": {"replicas": 3},
                    },
                    field_manager="gadget-tool",
                )
                assert applied["spec"] == {"size": 2, "color": "red", "replicas": 3}
                with_status = await items.update_status(dict(applied, status={"phase": "Ready", "replicas": 3}))
                assert (with_status["status"], with_status["metadata"]["generation"]) == (
                    {"phase": "Ready", "replicas": 3},
                    4,
                )
                scale = await items.get("d1", subresource="scale")
                assert (scale["kind"], scale["spec"], scale["status"]) == ("Scale", {"replicas": 3}, {"replicas": 3})
                with pytest.raises(Conflict):
                    await items.update(created)
                deleted = await items.delete("d1")
                with pytest.raises(NotFound):
                    await items.get("d1")

                expected = [
                    ("ADDED", "d1", created["metadata"]["resourceVersion"]),
                    ("MODIFIED", "d1", merged["metadata"]["resourceVersion"]),
                    ("MODIFIED", "d1", json_patched["metadata"]["resourceVersion"]),
                    ("MODIFIED", "d1", applied["metadata"]["resourceVersion"]),
                    ("MODIFIED", "d1", with_status["metadata"]["resourceVersion"]),
                ]
                for _ in range(100):
                    if len(events) > len(expected):
                        break
                    await asyncio.sleep(0.05)
                # the deletion is a change of its own, with a version after the object's last
                assert (events[:-1], events[-1][:2]) == (expected, ("DELETED", "d1"))
                assert int(events[-1][2]) > int(with_status["metadata"]["resourceVersion"])
                assert (deleted["status"], deleted["details"]["name"]) == ("Success", "d1")

                # the cache and its lister follow the server
                await items.create(gadget("d2"))
                await items.create(gadget("d3"))
                for _ in range(100):
                    if len(generic.lister.list()) == 2:
                        break
                    await asyncio.sleep(0.05)
                assert sorted(o["metadata"]["name"] for o in generic.lister.list()) == ["d2", "d3"]
                assert generic.lister.namespace(ns).get("d2")["spec"] == {"size": 1}
                gone = await items.delete_collection()
                assert sorted(o["metadata"]["name"] for o in gone["items"]) == ["d2", "d3"]
                for _ in range(100):
                    if not generic.lister.list():
                        break
                    await asyncio.sleep(0.05)
                assert generic.lister.list() == []

    asyncio.run(asyncio.wait_for(body(), 60))
