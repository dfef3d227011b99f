"""The garbage collector on the shared informers: what its graph keeps (only objects that take part), how an
owner's existence is decided (the informer cache, then storage by name), and the three propagation policies
end to end against a real registry, no HTTP."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from kubelite.apimachinery.meta import Obj
from kubelite.controllers.garbage_collector import GarbageCollector
from kubelite.controllers.informers import RegistryInformerFactory
from kubelite.registry.builtin import Registry
from kubelite.registry.options import DeleteParams, WriteParams
from tests.unit.test_controller_informers import Reconciles, eventually, run

NO_SUCH_UID = "00000000-0000-0000-0000-000000000000"


def owned(name: str, owner: Obj | None = None, *, uid: str = "", kind: str = "ConfigMap") -> Obj:
    """A ConfigMap in `default`, owned by `owner` (or by a ConfigMap of `uid` that never existed)."""
    meta: dict[str, object] = {"name": name}
    if owner is not None or uid:
        ref = {
            "apiVersion": "v1",
            "kind": kind,
            "name": owner["metadata"]["name"] if owner else "never-was",
            "uid": owner["metadata"]["uid"] if owner else uid,
        }
        meta["ownerReferences"] = [ref]
    return {"metadata": meta}


#: each running collector's reconciles
RECONCILES: dict[int, Reconciles] = {}


@contextlib.asynccontextmanager
async def collecting(registry: Registry) -> AsyncIterator[GarbageCollector]:
    informers = RegistryInformerFactory(registry)
    collector = GarbageCollector(registry, informers)
    RECONCILES[id(collector)] = Reconciles(collector.controller)
    informers.start()
    task = asyncio.create_task(collector.run())

    async def synced() -> bool:
        return collector.has_synced()

    try:
        await eventually(synced)
        yield collector
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await informers.shutdown()
        del RECONCILES[id(collector)]


async def had_its_chance(registry: Registry, collector: GarbageCollector) -> None:
    """The positive barrier before asserting that the collector did no more than it should: a later stray
    ConfigMap (its owner never existed) is collected, and the collector is idle, so every earlier ConfigMap
    event has been handled and every reconcile it caused has finished."""
    configmaps = registry.store("", "configmaps")
    await configmaps.create("default", owned("sentinel", uid=NO_SUCH_UID), WriteParams())

    async def sentinel_collected() -> bool:
        return configmaps.peek("default", "sentinel") is None

    await RECONCILES[id(collector)].settled_after(sentinel_collected)


def test_the_graph_keeps_only_objects_that_take_part(tmp_path: Path) -> None:
    async def body(registry: Registry) -> None:
        configmaps = registry.store("", "configmaps")
        async with collecting(registry) as collector:
            owner = await configmaps.create("default", owned("owner"), WriteParams())
            await configmaps.create("default", owned("plain"), WriteParams())
            child = await configmaps.create("default", owned("child", owner), WriteParams())
            owner_uid, child_uid = owner["metadata"]["uid"], child["metadata"]["uid"]

            async def linked() -> bool:
                return child_uid in collector._nodes

            await eventually(linked)
            node = collector._nodes[child_uid]
            graph = (list(collector._nodes), (node.key, node.owners, node.finalizing), collector._dependents)
            assert graph == (
                [child_uid],
                ("default/child", (owner_uid,), False),
                {owner_uid: {child_uid}},
            )
            await configmaps.delete("default", "child", DeleteParams())

            async def unlinked() -> bool:
                return not collector._nodes and not collector._dependents

            await eventually(unlinked)

    run(tmp_path, body)


@pytest.mark.parametrize(
    ("in_storage", "ref_uid", "kind", "exists"),
    [
        (True, "same", "ConfigMap", True),
        (True, NO_SUCH_UID, "ConfigMap", False),
        (False, NO_SUCH_UID, "ConfigMap", False),
        (False, NO_SUCH_UID, "Widget", True),
    ],
    ids=["same-uid", "another-uid", "no-such-name", "a-kind-not-served"],
)
def test_an_owner_missing_from_the_cache_is_looked_up_in_storage(
    tmp_path: Path, in_storage: bool, ref_uid: str, kind: str, exists: bool
) -> None:
    async def body(registry: Registry) -> None:
        collector = GarbageCollector(registry, RegistryInformerFactory(registry))  # informers never started
        owner = owned("owner")
        if in_storage:
            owner = await registry.store("", "configmaps").create("default", owner, WriteParams())
        uid = owner["metadata"]["uid"] if ref_uid == "same" else ref_uid
        ref = {"apiVersion": "v1", "kind": kind, "name": "owner", "uid": uid}
        assert await collector._owner_exists("default", ref) is exists

    run(tmp_path, body)


@pytest.mark.parametrize(
    ("policy", "owner_goes", "child_after"),
    [
        ("Background", True, None),
        ("Foreground", True, None),
        ("Orphan", True, "kept-without-owner"),
        (None, False, "kept-with-owner"),
    ],
    ids=["background", "foreground", "orphan", "owner-not-deleted"],
)
def test_propagation(tmp_path: Path, policy: str | None, owner_goes: bool, child_after: str | None) -> None:
    async def body(registry: Registry) -> None:
        configmaps = registry.store("", "configmaps")
        async with collecting(registry) as collector:
            owner = await configmaps.create("default", owned("owner"), WriteParams())
            await configmaps.create("default", owned("child", owner), WriteParams())
            if policy is not None:
                await configmaps.delete("default", "owner", DeleteParams(propagation_policy=policy))

            async def settled() -> bool:
                return (configmaps.peek("default", "owner") is None) is owner_goes and (
                    policy != "Background" or configmaps.peek("default", "child") is None
                )

            await eventually(settled)
            await had_its_chance(registry, collector)
            child = configmaps.peek("default", "child")
            state = None if child is None else (
                "kept-with-owner" if child["metadata"].get("ownerReferences") else "kept-without-owner"
            )  # fmt: skip
            assert (configmaps.peek("default", "owner") is None, state) == (owner_goes, child_after)

    run(tmp_path, body)


def test_a_dependent_of_an_owner_that_never_existed_is_collected(tmp_path: Path) -> None:
    async def body(registry: Registry) -> None:
        configmaps = registry.store("", "configmaps")
        async with collecting(registry):
            await configmaps.create("default", owned("stray", uid=NO_SUCH_UID), WriteParams())

            async def collected() -> bool:
                return configmaps.peek("default", "stray") is None

            await eventually(collected)

    run(tmp_path, body)
