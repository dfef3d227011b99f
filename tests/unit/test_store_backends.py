"""The generic Store over each storage implementation, bare SQLite included: a backend without a watch cache
serves every verb, storage errors become kube's Status errors in one place, and time comes from the clock."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import uvloop

from kubelite.apimachinery.errors import StatusError
from kubelite.apimachinery.meta import Obj, rfc3339
from kubelite.apimachinery.selectors import parse_label_selector
from kubelite.registry.catalog import BUILTIN_RESOURCES
from kubelite.registry.options import DeleteParams, ListParams, WriteParams
from kubelite.registry.store import Store
from kubelite.registry.strategy import PlainStrategy
from kubelite.storage.interface import Storage, StreamWatcher, WatchCache
from kubelite.storage.sqlite import SQLiteStorage
from kubelite.storage.testing.backends import IMPLEMENTATIONS
from kubelite.storage.testing.fake import FaultyStorage, InjectedFault
from kubelite.util.clock import FakeClock

SPEC = next(spec for spec in BUILTIN_RESOURCES if (spec.group, spec.resource) == ("", "configmaps"))
WRITE = WriteParams()


def run(body: Callable[[], Awaitable[None]]) -> None:
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        runner.run(asyncio.wait_for(body(), 20))


@asynccontextmanager
async def store_over(storage: Storage, clock: FakeClock) -> AsyncIterator[Store]:
    try:
        yield Store(SPEC, PlainStrategy(SPEC), storage, key_root="configmaps", clock=clock)
    finally:
        await storage.close()


def configmap(name: str, **labels: str) -> Obj:
    return {"metadata": {"name": name, "labels": labels}, "data": {"k": name}}


def replace_data(value: str) -> Callable[[Obj | None], Awaitable[Obj]]:
    async def update(current: Obj | None) -> Obj:
        assert current is not None
        current["data"] = {"k": value}
        return current

    return update


async def expect_status(call: Awaitable[Any]) -> StatusError:
    with pytest.raises(StatusError) as caught:
        await call
    return caught.value


async def take(watcher: StreamWatcher, count: int) -> list[tuple[str, str]]:
    async def events() -> list[tuple[str, str]]:
        seen = []
        async for event in watcher:
            if event.type.value != "BOOKMARK":
                seen.append((event.type.value, event.obj["metadata"]["name"]))
            if len(seen) == count:
                break
        return seen

    return await asyncio.wait_for(events(), 5)


@pytest.mark.parametrize("backend", sorted(IMPLEMENTATIONS), ids=sorted(IMPLEMENTATIONS))
def test_every_verb_over_every_backend(backend: str, tmp_path: Path) -> None:
    async def body() -> None:
        clock = FakeClock()
        async with store_over(await IMPLEMENTATIONS[backend](tmp_path), clock) as store:
            assert (store.cache is not None) == isinstance(store.storage, WatchCache) == (backend == "cacher")
            created = await store.create("default", configmap("a", app="web"), WRITE)
            assert created["metadata"]["creationTimestamp"] == rfc3339(clock.now())
            assert (await store.get("default", "a", shared=True))["data"] == {"k": "a"}
            watcher = await store.watch(
                "default", ListParams(label_selector=parse_label_selector("app=web"))
            )
            try:
                assert await take(watcher, 1) == [("ADDED", "a")]  # the state it starts from
                await store.create("default", configmap("b", app="db"), WRITE)
                updated, was_created = await store.update("default", "a", replace_data("2"), WRITE)
                assert (updated["data"], was_created) == ({"k": "2"}, False)

                async def relabel(current: Obj | None) -> Obj:
                    assert current is not None
                    current["metadata"]["labels"] = {"app": "db"}
                    return current

                await store.update("default", "a", relabel, WRITE)
                # the selector's edge: a changed object that leaves it is DELETED for this watch
                assert await take(watcher, 2) == [("MODIFIED", "a"), ("DELETED", "a")]
            finally:
                watcher.stop()
            listed = await store.list("default", ListParams(limit=1))
            assert [i["metadata"]["name"] for i in listed["items"]] == ["a"]
            assert listed["metadata"]["remainingItemCount"] == 1

            clock.step(90)
            marked, gone_now = await store.delete("default", "b", DeleteParams(propagation_policy="Orphan"))
            assert (marked["metadata"]["deletionTimestamp"], gone_now) == (rfc3339(clock.now()), False)
            deleted, gone_now = await store.delete("default", "a", DeleteParams())
            assert (deleted["metadata"]["name"], gone_now) == ("a", True)
            missing = await expect_status(store.get("default", "a"))
            assert (missing.code, missing.message) == (404, 'configmaps "a" not found')

    run(body)


def test_a_failed_write_is_an_internal_error(tmp_path: Path) -> None:
    async def body() -> None:
        storage = FaultyStorage(await SQLiteStorage.open(tmp_path))
        async with store_over(storage, FakeClock()) as store:
            storage.fail_next_write(InjectedFault("disk I/O error"))
            error = await expect_status(store.create("default", configmap("a"), WRITE))
            assert error.to_status() == {
                "kind": "Status",
                "apiVersion": "v1",
                "metadata": {},
                "status": "Failure",
                "message": "Internal error occurred: disk I/O error",
                "reason": "InternalError",
                "details": {"causes": [{"message": "disk I/O error"}]},
                "code": 500,
            }
            assert isinstance(error.__cause__, InjectedFault)  # raised from the storage error
            created = await store.create("default", configmap("a"), WRITE)  # one fault, then healthy
            storage.fail_next_write()
            failed = await expect_status(store.update("default", "a", replace_data("2"), WRITE))
            assert (failed.code, failed.reason) == (500, "InternalError")
            assert await store.get("default", "a") == created

    run(body)


def test_a_delete_whose_precondition_fails_in_storage_carries_the_storage_text(tmp_path: Path) -> None:
    """The Store checks preconditions first (kube's BeforeDelete texts); when the object changes between
    that check and the delete, storage's precondition fails, and kube reports etcd's invalid-object text."""

    async def body() -> None:
        storage = await SQLiteStorage.open(tmp_path)
        async with store_over(storage, FakeClock()) as store:
            created = await store.create("default", configmap("a"), WRITE)
            rv = created["metadata"]["resourceVersion"]
            original = storage.delete

            async def delete_after_a_write(key: str, **kwargs: Any) -> Obj:
                await storage.guaranteed_update(key, replace_data("raced"))
                return await original(key, **kwargs)

            storage.delete = delete_after_a_write  # type: ignore[method-assign]
            error = await expect_status(store.delete("default", "a", DeleteParams(precondition_resource_version=rv)))
            assert (error.code, error.reason, error.message) == (
                409,
                "Conflict",
                'Operation cannot be fulfilled on configmaps "a": StorageError: invalid object, Code: 4, '
                f"Key: /registry/configmaps/default/a, ResourceVersion: 0, AdditionalErrorMsg: Precondition "
                f"failed: ResourceVersion in precondition: {rv}, ResourceVersion in object meta: {int(rv) + 1}",
            )

    run(body)
