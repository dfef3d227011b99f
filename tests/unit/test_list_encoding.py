"""JSON list bodies from items encoded once: the same bytes as encoding the list whole, and a bounded cache."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from kubelite.endpoints.handlers.list_encoding import EncodedItems, encode_list_json, strip_type_meta


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
    assert encode_list_json(listed, EncodedItems(1 << 20)) == whole(listed)


def test_an_item_is_encoded_once_per_uid_and_revision() -> None:
    items = EncodedItems(1 << 20)
    first = items.encode(pod("a"))
    # another dict with the same uid and resourceVersion is the same stored content
    assert items.encode(pod("a")) is first
    assert items.encode(pod("a", rv="6")) is not first
    assert len(items) == 2


def test_the_cache_keeps_the_most_recently_used_within_its_budget() -> None:
    size = len(EncodedItems(1 << 20).encode(pod("a")))
    items = EncodedItems(2 * size)
    a, b = items.encode(pod("a")), items.encode(pod("b"))
    assert items.encode(pod("a")) is a  # a is now the most recent
    c = items.encode(pod("c"))  # over budget: b, the least recently used, goes
    assert len(items) == 2
    assert (items.encode(pod("a")), items.encode(pod("c"))) == (a, c)
    assert items.encode(pod("a")) is a
    assert items.encode(pod("b")) is not b  # encoded again


def test_items_without_uid_or_revision_are_encoded_but_not_kept() -> None:
    items = EncodedItems(1 << 20)
    assert items.encode(pod("a", uid="")) == orjson.dumps(strip_type_meta(pod("a", uid="")))
    assert len(items) == 0
