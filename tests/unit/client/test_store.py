"""The Indexer: keys, index maintenance through every write, lookups, indexers added later, thread safety."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from kubelite.client.cache.keys import (
    DeletedFinalStateUnknown,
    KeyFuncError,
    meta_namespace_key,
    split_meta_namespace_key,
)
from kubelite.client.cache.store import NAMESPACE_INDEX, IndexConflictError, Indexer, IndexNotFoundError
from tests.unit.client.support import cm


def by_app(obj: dict[str, Any]) -> list[str]:
    app = (obj["metadata"].get("labels") or {}).get("app")
    return [app] if app else []


def by_tiers(obj: dict[str, Any]) -> list[str]:
    tiers = (obj["metadata"].get("labels") or {}).get("tiers", "")
    return [t for t in tiers.split(".") if t]


@pytest.mark.parametrize(
    ("obj", "key"),
    [
        (cm("a", "ns"), "ns/a"),
        ({"metadata": {"name": "node-1"}}, "node-1"),
        ({"metadata": {"name": "x", "namespace": ""}}, "x"),
        (DeletedFinalStateUnknown("ns/gone", None), "ns/gone"),
        ("ns/already-a-key", "ns/already-a-key"),
    ],
    ids=["namespaced", "cluster-scoped", "empty-namespace", "tombstone", "string"],
)
def test_meta_namespace_key(obj: Any, key: str) -> None:
    assert meta_namespace_key(obj) == key


@pytest.mark.parametrize(
    "obj", [{}, {"metadata": {}}, {"metadata": {"name": ""}}, 42], ids=["no-meta", "no-name", "empty", "int"]
)
def test_meta_namespace_key_refuses(obj: Any) -> None:
    with pytest.raises(KeyFuncError):
        meta_namespace_key(obj)


@pytest.mark.parametrize(
    ("key", "parts"), [("ns/a", ("ns", "a")), ("a", ("", "a"))], ids=["namespaced", "cluster"]
)
def test_split_key(key: str, parts: tuple[str, str]) -> None:
    assert split_meta_namespace_key(key) == parts


def test_split_key_refuses_three_parts() -> None:
    with pytest.raises(KeyFuncError):
        split_meta_namespace_key("a/b/c")


def indexer() -> Indexer:
    store = Indexer()
    store.add_indexers({"app": by_app, "tiers": by_tiers})
    return store


def test_indices_follow_every_write() -> None:
    store = indexer()
    store.add(cm("a", "ns1", app="web", tiers="front.back"))
    store.add(cm("b", "ns1", app="db", tiers="back"))
    store.add(cm("c", "ns2", app="web"))
    store.check_invariants()
    assert store.index_keys("app", "web") == ["ns1/a", "ns2/c"]
    assert store.index_keys("tiers", "back") == ["ns1/a", "ns1/b"]
    assert sorted(o["metadata"]["name"] for o in store.by_index(NAMESPACE_INDEX, "ns1")) == ["a", "b"]

    store.update(cm("a", "ns1", app="db", tiers="front"))
    store.check_invariants()
    assert store.index_keys("app", "web") == ["ns2/c"]
    assert store.index_keys("app", "db") == ["ns1/a", "ns1/b"]
    assert store.index_keys("tiers", "back") == ["ns1/b"]

    store.delete(cm("b", "ns1"))
    store.delete(DeletedFinalStateUnknown("ns2/c", None))
    store.check_invariants()
    assert store.list_keys() == ["ns1/a"]
    assert sorted(store.list_index_func_values("app")) == ["db"]
    assert store.list_index_func_values("tiers") == ["front"]


def test_index_returns_objects_sharing_any_value() -> None:
    store = indexer()
    store.add(cm("a", app="x", tiers="1.2"))
    store.add(cm("b", app="y", tiers="2"))
    store.add(cm("c", app="z", tiers="3"))
    found = store.index("tiers", cm("probe", tiers="2.3"))
    assert sorted(o["metadata"]["name"] for o in found) == ["a", "b", "c"]
    assert store.index("tiers", cm("probe", tiers="9")) == []


def test_replace_rebuilds_indices() -> None:
    store = indexer()
    store.add(cm("old", app="web"))
    store.replace([cm("new", "ns", app="db")], "42")
    store.check_invariants()
    assert store.list_keys() == ["ns/new"]
    assert store.index_keys("app", "web") == []
    assert store.index_keys("app", "db") == ["ns/new"]


def test_get_and_missing() -> None:
    store = Indexer()
    obj = cm("a")
    store.add(obj)
    assert store.get(cm("a")) is obj
    assert store.get_by_key("default/a") is obj
    assert store.get_by_key("default/none") is None
    assert "default/a" in store
    assert len(store) == 1
    store.delete(cm("none"))  # deleting what is absent is a no-op
    assert len(store) == 1


def test_unknown_index() -> None:
    store = Indexer()
    with pytest.raises(IndexNotFoundError) as caught:
        store.by_index("nope", "x")
    assert str(caught.value) == "Index with name nope does not exist"


def test_add_indexers_indexes_existing_objects_and_refuses_duplicates() -> None:
    store = Indexer()
    store.add(cm("a", app="web"))
    store.add_indexers({"app": by_app})
    assert store.index_keys("app", "web") == ["default/a"]
    with pytest.raises(IndexConflictError):
        store.add_indexers({"app": by_app})
    assert sorted(store.get_indexers()) == ["app", NAMESPACE_INDEX]


def test_concurrent_writers_keep_indices_consistent() -> None:
    store = indexer()

    def writer(worker: int) -> None:
        for i in range(300):
            name = f"o{i % 20}"
            store.add(cm(name, f"ns{worker % 3}", app=f"a{(i + worker) % 4}"))
            if i % 7 == 0:
                store.delete(cm(name, f"ns{worker % 3}"))

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    store.check_invariants()
