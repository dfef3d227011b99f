"""kubelite.client's config, REST, discovery and dynamic clients against a real kubelite: TLS with the admin
kubeconfig's client certificate, every verb, typed Status errors, pagination and watches."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from kubelite.client import (
    AlreadyExists,
    Config,
    Conflict,
    DynamicClient,
    Invalid,
    NotFound,
    RESTClient,
    Unauthorized,
    load_kube_config,
)
from kubelite.client.cache.listwatch import ListOptions, ListWatch
from kubelite.client.cache.pager import list_all
from tests.e2e.server import KubeliteProcess

CONFIGMAPS = ("", "v1", "configmaps")


def run(body: Callable[[], Awaitable[Any]]) -> Any:
    return asyncio.run(asyncio.wait_for(body(), 60))


def configmap(name: str, **data: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": dict(data)}


def test_tls_client_certificate_from_kubeconfig(server: KubeliteProcess) -> None:
    config = load_kube_config(server.kubeconfig, env={})
    assert config.host == server.secure_url

    async def body() -> dict[str, Any]:
        async with RESTClient(config) as rest:
            review = {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}
            return dict(await rest.post("/apis/authentication.k8s.io/v1/selfsubjectreviews", review))

    user = run(body)["status"]["userInfo"]
    assert user["username"] == "kubelite-admin"
    assert "system:authenticated" in user["groups"]


def test_a_bad_token_over_tls_is_a_typed_error(server: KubeliteProcess) -> None:
    config = load_kube_config(server.kubeconfig, env={})
    stranger = Config(host=config.host, ca_data=config.ca_data, token="not-a-valid-token")

    async def body() -> None:
        async with RESTClient(stranger) as rest:
            await rest.get("/api/v1/namespaces/default/configmaps")

    with pytest.raises(Unauthorized) as caught:
        run(body)
    assert (caught.value.code, caught.value.reason, caught.value.message) == (
        401,
        "Unauthorized",
        "Unauthorized",
    )


def test_every_verb_and_typed_errors(server: KubeliteProcess) -> None:
    async def body() -> None:
        async with RESTClient(load_kube_config(server.kubeconfig, env={})) as rest:
            cms = DynamicClient(rest).resource(CONFIGMAPS).namespace("default")
            created = await cms.create(configmap("verbs", a="1"))
            assert created["metadata"]["uid"]
            with pytest.raises(AlreadyExists) as exists:
                await cms.create(configmap("verbs"))
            assert exists.value.details == {"name": "verbs", "kind": "configmaps"}

            fetched = await cms.get("verbs")
            fetched["data"]["a"] = "2"
            updated = await cms.update(fetched)
            with pytest.raises(Conflict):
                await cms.update(fetched)  # the same resourceVersion again
            assert updated["data"] == {"a": "2"}

            merged = await cms.patch("verbs", {"data": {"b": "3"}})
            assert merged["data"] == {"a": "2", "b": "3"}
            jsonp = await cms.patch("verbs", [{"op": "remove", "path": "/data/a"}], patch_type="json")
            assert jsonp["data"] == {"b": "3"}
            strategic = await cms.patch("verbs", {"metadata": {"labels": {"x": "y"}}}, patch_type="strategic")
            assert strategic["metadata"]["labels"] == {"x": "y"}

            with pytest.raises(Invalid) as invalid:
                await cms.create(configmap("Not_A_Name"))
            assert invalid.value.causes()[0]["field"] == "metadata.name"

            await cms.delete("verbs")
            with pytest.raises(NotFound) as missing:
                await cms.get("verbs")
            assert missing.value.message == 'configmaps "verbs" not found'
            gone = await cms.delete_collection(label_selector="x=y")
            assert gone["kind"] == "ConfigMapList"

    run(body)


def test_discovery_and_for_kind(server: KubeliteProcess) -> None:
    async def body() -> None:
        async with RESTClient(Config(host=server.url)) as rest:
            client = DynamicClient(rest)
            deploy = await client.discovery.resolve("deploy")
            assert (deploy.gvr.group, deploy.gvr.version, deploy.gvr.resource) == (
                "apps",
                "v1",
                "deployments",
            )
            assert deploy.namespaced and "scale" in deploy.subresources
            lease = await client.discovery.resource_for_kind("coordination.k8s.io/v1", "Lease")
            assert lease.gvr.resource == "leases"
            namespaces = await client.for_object(
                {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "x"}}
            )
            assert namespaces.namespace_name is None
            with pytest.raises(NotFound):
                await client.discovery.resource_for_kind("example.com/v1", "Widget")

    run(body)


def test_paginated_list_and_a_watch(server: KubeliteProcess) -> None:
    async def body() -> None:
        async with RESTClient(Config(host=server.url)) as rest:
            client = DynamicClient(rest)
            await client.resource(("", "v1", "namespaces")).create(
                {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "pages"}}
            )
            cms = client.resource(CONFIGMAPS).namespace("pages")
            for i in range(7):
                await cms.create(configmap(f"p{i}"))
            listing, paginated = await list_all(ListWatch(cms).list, ListOptions(), page_size=3)
            names = sorted(o["metadata"]["name"] for o in listing["items"])
            assert paginated and names == ["kube-root-ca.crt"] + [f"p{i}" for i in range(7)]

            stream = await cms.watch(
                resource_version=listing["metadata"]["resourceVersion"], timeout_seconds=30
            )
            await cms.patch("p0", {"data": {"k": "v"}})
            await cms.delete("p1")
            seen = []
            async for event in stream:
                seen.append((event.type, event.object["metadata"]["name"]))
                if len(seen) == 2:
                    break
            await stream.close()
            assert seen == [("MODIFIED", "p0"), ("DELETED", "p1")]

    run(body)


def test_event_recorder_aggregates_repeats(server: KubeliteProcess) -> None:
    from kubelite.client.record import EventRecorder

    async def body() -> list[tuple[str, str, int]]:
        async with RESTClient(Config(host=server.url)) as rest:
            client = DynamicClient(rest)
            subject = await client.resource(CONFIGMAPS).namespace("default").create(configmap("evented"))
            recorder = EventRecorder(client, component="e2e-recorder")
            for _ in range(3):
                recorder.event(subject, "Warning", "Broken", "it broke")
            recorder.event(subject, "Normal", "Fixed", "it is fine")
            await recorder.flush()
            await recorder.close()
            events = await client.resource(("", "v1", "events")).namespace("default").list(
                field_selector="involvedObject.name=evented"
            )
            return sorted((e["reason"], e["source"]["component"], e["count"]) for e in events["items"])

    assert run(body) == [("Broken", "e2e-recorder", 3), ("Fixed", "e2e-recorder", 1)]
