"""ControllerRevisions of a DaemonSet (daemon/update.go)."""

from __future__ import annotations

from kubelite.controllers.daemonset.history import (
    keep_of_duplicates,
    matches,
    revision_patch,
    revisions_to_clean,
    snapshot,
    split_current,
    template_hash,
)
from kubelite.controllers.workloads.template_hash import compute_hash
from tests.unit.controllers.daemonset.support import daemon_set, pod


def _revision(name: str, number: int, revision_hash: str, data: object = None) -> dict[str, object]:
    return {
        "metadata": {"name": name, "labels": {"controller-revision-hash": revision_hash}},
        "revision": number,
        "data": data,
    }


def test_the_patch_replaces_the_template_whole() -> None:
    ds = daemon_set()
    patch = revision_patch(ds)
    assert patch == {"spec": {"template": {**ds["spec"]["template"], "$patch": "replace"}}}
    assert "$patch" not in ds["spec"]["template"]


def test_a_snapshot_is_named_and_labelled_by_the_template_hash() -> None:
    ds = daemon_set()
    ds["metadata"]["annotations"] = {"note": "kept"}
    revision_hash = compute_hash(ds["spec"]["template"])
    assert template_hash(ds) == revision_hash
    revision = snapshot(ds, 4)
    assert revision == {
        "apiVersion": "apps/v1",
        "kind": "ControllerRevision",
        "metadata": {
            "name": f"agent-{revision_hash}",
            "namespace": "default",
            "labels": {"app": "agent", "controller-revision-hash": revision_hash},
            "annotations": {"note": "kept"},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "agent", "uid": "ds-uid",
                                 "controller": True, "blockOwnerDeletion": True}],
        },
        "data": revision_patch(ds),
        "revision": 4,
    }
    assert matches(ds, revision)
    ds["status"]["collisionCount"] = 1
    assert template_hash(ds) == compute_hash(ds["spec"]["template"], 1) != revision_hash


def test_current_and_old_revisions_and_the_duplicate_kept() -> None:
    ds = daemon_set()
    current = _revision("a", 2, "h1", revision_patch(ds))
    duplicate = _revision("b", 3, "h2", revision_patch(ds))
    old = _revision("c", 1, "h0", {"spec": {"template": {"$patch": "replace"}}})
    assert split_current(ds, [current, old, duplicate]) == ([current, duplicate], [old])
    assert keep_of_duplicates([current, duplicate])["metadata"]["name"] == "b"
    assert keep_of_duplicates([duplicate, _revision("d", 3, "h3")])["metadata"]["name"] == "d"


def test_old_revisions_beyond_the_limit_go_oldest_first_unless_a_pod_uses_them() -> None:
    ds = daemon_set(history_limit=1)
    old = [_revision("r3", 3, "h3"), _revision("r1", 1, "h1"), _revision("r2", 2, "h2")]
    assert revisions_to_clean(ds, old, []) == ["r1", "r2"]
    assert revisions_to_clean(ds, old, [pod("p", "n1", revision="h1")]) == ["r2", "r3"]
    assert revisions_to_clean(daemon_set(history_limit=3), old, []) == []
    assert revisions_to_clean(daemon_set(history_limit=0), old, []) == ["r1", "r2", "r3"]
