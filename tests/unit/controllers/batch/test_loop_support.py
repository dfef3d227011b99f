"""What the batch loops share: the controlling owner, and the writes and finalizer removals a sync waits for
the cache to show."""

from __future__ import annotations

from kubelite.controllers.batch.loop_support import FinalizerExpectations, StatusWrites, controller_of, with_kind


def owned(*refs: dict[str, object]) -> dict[str, object]:
    return {"metadata": {"name": "p", "ownerReferences": list(refs)}}


def test_the_controller_is_the_reference_marked_controller_of_the_kind_and_group() -> None:
    job = {"apiVersion": "batch/v1", "kind": "Job", "name": "j", "uid": "u", "controller": True}
    assert controller_of(owned(job), "batch/v1", "Job") == job
    # another version of the group still names it
    assert controller_of(owned({**job, "apiVersion": "batch/v2"}), "batch/v1", "Job") is not None
    assert controller_of(owned({**job, "apiVersion": "example.com/v1"}), "batch/v1", "Job") is None
    assert controller_of(owned({**job, "kind": "CronJob"}), "batch/v1", "Job") is None
    # an owner that is not the controller does not count, and the first controller decides
    assert controller_of(owned({**job, "controller": False}), "batch/v1", "Job") is None
    other = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "r", "uid": "v", "controller": True}
    assert controller_of(owned(other, job), "batch/v1", "Job") is None
    assert controller_of({"metadata": {}}, "batch/v1", "Job") is None


def test_with_kind_fills_only_what_is_missing() -> None:
    assert with_kind({"metadata": {}}, "batch/v1", "Job")["kind"] == "Job"
    assert with_kind({"apiVersion": "batch/v1", "kind": "Job"}, "x/v1", "Other")["kind"] == "Job"


def test_a_cache_showing_a_replaced_version_is_stale_until_it_moves_on() -> None:
    writes = StatusWrites(ttl=300)
    assert not writes.stale("ns/a", "5", now=0)
    writes.wrote("ns/a", "5", now=0)
    writes.wrote("ns/a", "6", now=1)  # two writes in one sync: both versions are behind
    assert writes.stale("ns/a", "5", now=2)
    assert writes.stale("ns/a", "6", now=2)
    assert not writes.stale("ns/b", "5", now=2)
    # the cache shows our write (or a later one): not stale, and forgotten
    assert not writes.stale("ns/a", "7", now=3)
    assert not writes.stale("ns/a", "5", now=3)


def test_a_remembered_write_is_forgotten_after_the_ttl() -> None:
    writes = StatusWrites(ttl=10)
    writes.wrote("ns/a", "5", now=0)
    assert writes.stale("ns/a", "5", now=10)
    assert not writes.stale("ns/a", "5", now=10.5)


def test_finalizer_removals_are_pending_until_each_is_observed() -> None:
    expected = FinalizerExpectations(ttl=300)
    assert not expected.pending("ns/j", now=0)
    expected.expect_removals("ns/j", ["u1", "u2"], now=0)
    assert expected.pending("ns/j", now=1)
    expected.observed("ns/j", "u1")
    assert expected.pending("ns/j", now=1)
    expected.observed("ns/j", "u3")  # never expected: no effect
    expected.observed("ns/j", "u2")
    assert not expected.pending("ns/j", now=1)


def test_finalizer_removals_never_observed_stop_holding_the_job_after_the_ttl() -> None:
    expected = FinalizerExpectations(ttl=10)
    expected.expect_removals("ns/j", ["u1"], now=0)
    expected.expect_removals("ns/j", ["u2"], now=5)
    assert expected.pending("ns/j", now=12)  # u2 is still young
    assert not expected.pending("ns/j", now=16)
    expected.expect_removals("ns/k", ["u1"], now=0)
    expected.forget("ns/k")
    assert not expected.pending("ns/k", now=0)
