"""Server-side apply takes the Store's order: the merged object is defaulted, then mutating admission sees it
(kube's field manager defaults inside Apply, before admission). Served in-process, over real HTTP, with a
mutating plugin of the test's own that records what it is given."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import aiohttp
import uvloop
from aiohttp import web
from aiohttp.test_utils import RawTestServer

from kubelite.admission import AdmissionChain, Attributes
from kubelite.auth.authz.always_allow import AlwaysAllow
from kubelite.endpoints.filters import chain
from kubelite.endpoints.installer import ResourceRoutes, ScopeOptions
from kubelite.endpoints.request_context import request_info_from
from kubelite.registry.builtin import build_registry
from kubelite.registry.catalog import BUILTIN_RESOURCES
from kubelite.storage.sqlite import SQLiteStorage

APPLY = {"Content-Type": "application/apply-patch+yaml"}
POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "p", "namespace": "default"},
    "spec": {"containers": [{"name": "c", "image": "nginx"}]},
}


class Recorder:
    """A mutating plugin: notes the defaulted fields it sees, and sets a label."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, Any, Any, Any]] = []

    async def admit(self, attrs: Attributes, obj: Any, old: Any) -> None:
        if obj is None or attrs.spec.resource != "pods":
            return
        spec = obj["spec"]
        container = spec["containers"][0]
        self.seen.append(
            (attrs.operation, spec.get("restartPolicy"), container.get("terminationMessagePath"), spec.get("dnsPolicy"))
        )
        obj["metadata"].setdefault("labels", {})["admitted"] = "yes"

    async def validate(self, attrs: Attributes, obj: Any, old: Any) -> None:
        return None


def _run(tmp_path: Path, recorder: Recorder) -> list[dict[str, Any]]:
    async def main() -> list[dict[str, Any]]:
        storage = await SQLiteStorage.open(tmp_path)
        registry = await build_registry(storage)
        routes = ResourceRoutes()
        options = ScopeOptions(AdmissionChain(mutating=[recorder], validating=[]))
        for spec in BUILTIN_RESOURCES:
            key = (spec.group, spec.resource)
            if key in registry.stores:
                routes.install(spec, registry.stores[key], registry.subresources.get(key, {}), options)

        async def serve(request: web.Request) -> web.StreamResponse:
            return await routes.serve(request, request_info_from(request))

        handler = chain.build_handler(serve, chain.authenticate_insecure, AlwaysAllow())
        server = RawTestServer(handler)
        await server.start_server()
        results: list[dict[str, Any]] = []
        try:
            async with aiohttp.ClientSession() as session:
                url = str(server.make_url("/api/v1/namespaces/default/pods/p?fieldManager=m"))
                for image in ("nginx", "nginx:2"):
                    POD["spec"]["containers"][0]["image"] = image
                    async with session.patch(url, data=json.dumps(POD), headers=APPLY) as response:
                        results.append({"status": response.status, "body": await response.json()})
        finally:
            await server.close()
            for cacher in registry.cachers:
                await cacher.close()
            await storage.close()
        return results

    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(asyncio.wait_for(main(), 30))


def test_mutating_admission_sees_the_applied_object_defaulted(tmp_path: Path) -> None:
    recorder = Recorder()
    created, updated = _run(tmp_path, recorder)
    assert (created["status"], updated["status"]) == (201, 200), (created, updated)
    # create, then update: each time the plugin is given the defaulted object
    assert recorder.seen == [
        ("CREATE", "Always", "/dev/termination-log", "ClusterFirst"),
        ("UPDATE", "Always", "/dev/termination-log", "ClusterFirst"),
    ]
    pod = updated["body"]
    assert pod["metadata"]["labels"] == {"admitted": "yes"}
    assert pod["spec"]["containers"][0]["image"] == "nginx:2"
    # the applier owns what it applied; defaulted fields and admission's label are owned by no one
    (entry,) = pod["metadata"]["managedFields"]
    assert (entry["manager"], entry["operation"]) == ("m", "Apply")
    assert entry["fieldsV1"] == {
        "f:spec": {"f:containers": {'k:{"name":"c"}': {".": {}, "f:image": {}, "f:name": {}}}}
    }
