"""JSON list bodies from items encoded once: the same bytes as encoding the list whole, caches kept per
group-version, and one byte budget shared by the caches of a server."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from kubelite.endpoints.handlers.list_encoding import (
    EncodedItems,
    EncodingBudget,
    ResourceEncodings,
    encode_list_json,
    strip_type_meta,
)
from kubelite.registry.builtin import BUILTIN_RESOURCES


def pod(name: str, rv: str = "5", uid: str | None = None, **extra: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": "ns", "resourceVersion": rv}
    if uid != "":
        meta["uid"] = uid or f"uid-{name}"
    return {"kind": "Pod", "apiVersion": "v1", "metadata": meta, "spec": {"containers": [{"name": "c"}]}, **extra}


def whole(listed: dict[str, Any]) -> bytes:
    return orjson.dumps({**listed, "items": [strip_type_meta(i) for i in listed["items"]]})


@pytest.mark.parametrize(
    "listed",
    [
        {"kind": "PodList", "apiVersion": "v1", "metadata": {"resourceVersion": "9"}, "items": []},
        {"kind": "PodList", "apiVersion": "v1", "metadata": {"resourceVersion": "9"}, "items": [pod("a")]},
        {
            "kind": "PodList",
            "apiVersion": "v1",
            "metadata": {"resourceVersion": "9", "continue": "x", "remainingItemCount": 3},
            "items": [pod("a"), pod("b", status={"phase": "Running"}), pod("c", uid="")],
        },
        {"items": [pod("a")]},
    ],
    ids=["empty", "one", "several-with-continue", "items-only"],
)
def test_the_body_is_the_whole_list_encoded(listed: dict[str, Any]) -> None:
    assert encode_list_json(listed, EncodedItems(1 << 20, group_version="v1")) == whole(listed)


def test_an_item_is_encoded_once_per_uid_and_revision() -> None:
    items = EncodedItems(1 << 20, group_version="v1")
    first = items.encode(pod("a"))
    # another dict with the same uid and resourceVersion is the same stored content
    assert items.encode(pod("a")) is first
    assert items.encode(pod("a", rv="6")) is not first
    assert len(items) == 2


def test_the_cache_keeps_the_most_recently_used_within_its_budget() -> None:
    size = len(EncodedItems(1 << 20, group_version="v1").encode(pod("a")))
    items = EncodedItems(2 * size, group_version="v1")
    a, b = items.encode(pod("a")), items.encode(pod("b"))
    assert items.encode(pod("a")) is a  # a is now the most recent
    c = items.encode(pod("c"))  # over budget: b, the least recently used, goes
    assert len(items) == 2
    assert (items.encode(pod("a")), items.encode(pod("c"))) == (a, c)
    assert items.encode(pod("a")) is a
    assert items.encode(pod("b")) is not b  # encoded again


def test_items_without_uid_or_revision_are_encoded_but_not_kept() -> None:
    items = EncodedItems(1 << 20, group_version="v1")
    assert items.encode(pod("a", uid="")) == orjson.dumps(strip_type_meta(pod("a", uid="")))
    assert len(items) == 0


def _spec(group: str, resource: str) -> Any:
    return next(s for s in BUILTIN_RESOURCES if (s.group, s.resource) == (group, resource))


def test_each_resource_serving_path_keeps_its_own_items() -> None:
    """One stored Event served as core/v1 and as events.k8s.io/v1 has one uid and resourceVersion but two
    encodings: each serving path has its own cache, so neither answers with the other's bytes."""
    budget = EncodingBudget(1 << 20)
    core = ResourceEncodings.for_resource(_spec("", "events"), budget)
    events_v1 = ResourceEncodings.for_resource(_spec("events.k8s.io", "events"), budget)
    assert (core.json_items.group_version, events_v1.json_items.group_version) == ("v1", "events.k8s.io/v1")
    meta = {"name": "e", "namespace": "ns", "uid": "u-e", "resourceVersion": "3"}
    as_core = {"kind": "Event", "apiVersion": "v1", "metadata": meta, "message": "hi"}
    as_v1 = {"kind": "Event", "apiVersion": "events.k8s.io/v1", "metadata": meta, "note": "hi"}
    assert core.json_items.encode(as_core) == orjson.dumps(strip_type_meta(as_core))
    assert events_v1.json_items.encode(as_v1) == orjson.dumps(strip_type_meta(as_v1))
    assert core.json_items.encode(as_core) == orjson.dumps(strip_type_meta(as_core))


def test_the_caches_of_a_server_share_one_budget() -> None:
    size = len(EncodedItems(1 << 20, group_version="v1").encode(pod("a")))
    budget = EncodingBudget(3 * size)
    first, second = EncodedItems(budget, group_version="v1"), EncodedItems(budget, group_version="apps/v1")
    first.encode(pod("a"))
    first.encode(pod("b"))
    second.encode(pod("c"))
    assert (len(first), len(second), budget.used) == (2, 1, 3 * size)
    # over the budget: the inserting cache gives up its own oldest item first
    second.encode(pod("d"))
    assert (len(first), len(second), budget.used) == (2, 1, 3 * size)
    assert second.bytes == size
    # a cache with nothing of its own left to give takes from the largest other one
    third = EncodedItems(budget, group_version="batch/v1")
    third.encode(pod("e"))
    assert (len(first), len(second), len(third), budget.used) == (1, 1, 1, 3 * size)
    assert first.bytes + second.bytes + third.bytes == budget.used


def test_a_cache_that_filled_the_budget_first_does_not_starve_a_later_one() -> None:
    size = len(EncodedItems(1 << 20, group_version="v1").encode(pod("x000")))  # every name here is as long
    budget = EncodingBudget(40 * size)
    pods, configmaps = EncodedItems(budget, group_version="v1"), EncodedItems(budget, group_version="v1")
    for i in range(100):
        pods.encode(pod(f"p{i:03d}"))
    for i in range(10):
        configmaps.encode(pod(f"c{i:03d}"))
    # the later cache keeps what it encoded, taken from the one over its share
    assert (len(pods), len(configmaps), budget.used) == (30, 10, 40 * size)
