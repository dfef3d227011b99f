"""The scheduler's cache: assumed pods confirmed by the watch, forgotten when their binding fails, expired when
their bound state never arrives; and which node changes may help a pending pod."""

from __future__ import annotations

from kubelite.cluster.scheduler.cache import SchedulerCache, node_update_may_help
from kubelite.cluster.scheduler.testing import make_node, make_pod


def cpu_on(cache: SchedulerCache, node: str) -> int:
    info = cache.snapshot.node(node)
    assert info is not None
    return info.requested.get("cpu", 0)


def test_an_assumed_pod_counts_at_once_and_is_confirmed_by_its_bound_state() -> None:
    cache = SchedulerCache(ttl=30)
    cache.add_node(make_node("a"))
    pod = make_pod("p", cpu="1")
    cache.assume(pod, "a")
    assert (cache.is_assumed("uid-default-p"), cache.knows(pod), cpu_on(cache, "a")) == (True, True, 1000)
    cache.finish_binding(pod, now=100)
    cache.add_pod(make_pod("p", cpu="1", node_name="a"))
    assert cache.is_assumed("uid-default-p") is False
    assert cache.cleanup(now=1_000) == []
    assert cpu_on(cache, "a") == 1000


def test_a_failed_binding_forgets_the_pod() -> None:
    cache = SchedulerCache()
    cache.add_node(make_node("a"))
    pod = make_pod("p", cpu="1")
    cache.assume(pod, "a")
    cache.forget(pod)
    assert (cache.knows(pod), cpu_on(cache, "a")) == (False, 0)


def test_an_assumed_pod_expires_ttl_after_its_binding_finished_and_never_while_binding() -> None:
    cache = SchedulerCache(ttl=30)
    cache.add_node(make_node("a"))
    binding, bound = make_pod("binding", cpu="1"), make_pod("bound", cpu="1")
    cache.assume(binding, "a")
    cache.assume(bound, "a")
    cache.finish_binding(bound, now=100)
    assert cache.cleanup(now=129.9) == []
    assert cache.cleanup(now=130) == [bound]
    assert (cache.knows(bound), cache.knows(binding), cpu_on(cache, "a")) == (False, True, 1000)
    assert cache.cleanup(now=10_000) == []


def test_no_ttl_keeps_assumed_pods_until_confirmed_or_forgotten() -> None:
    cache = SchedulerCache(ttl=0)
    cache.add_node(make_node("a"))
    pod = make_pod("p")
    cache.assume(pod, "a")
    cache.finish_binding(pod, now=0)
    assert cache.cleanup(now=1e9) == []
    assert cache.is_assumed("uid-default-p")


def test_a_pod_bound_elsewhere_than_assumed_counts_where_the_server_says() -> None:
    cache = SchedulerCache()
    cache.add_node(make_node("a"))
    cache.add_node(make_node("b"))
    cache.assume(make_pod("p", cpu="1"), "a")
    cache.add_pod(make_pod("p", cpu="1", node_name="b"))
    assert (cpu_on(cache, "a"), cpu_on(cache, "b")) == (0, 1000)
    cache.remove_pod(make_pod("p", node_name="b"))
    assert cpu_on(cache, "b") == 0


def test_namespaces_labels_follow_the_watch() -> None:
    cache = SchedulerCache()
    cache.set_namespace({"metadata": {"name": "team", "labels": {"tier": "web"}}})
    assert cache.snapshot.namespace_labels("team") == {"tier": "web"}
    cache.remove_namespace({"metadata": {"name": "team"}})
    assert cache.snapshot.namespace_labels("team") == {}


def test_a_heartbeat_alone_helps_no_pod() -> None:
    old = make_node("a")
    old["status"]["conditions"] = [{"type": "Ready", "status": "True", "lastHeartbeatTime": "2026-01-01T00:00:00Z",
                                    "lastTransitionTime": "2026-01-01T00:00:00Z"}]  # fmt: skip
    beat = {**old, "status": {**old["status"], "conditions": [
        {**old["status"]["conditions"][0], "lastHeartbeatTime": "2026-01-01T00:00:10Z"}]}}  # fmt: skip
    assert node_update_may_help(old, beat) is False
    not_ready = {**old, "status": {**old["status"], "conditions": [
        {**old["status"]["conditions"][0], "status": "False"}]}}  # fmt: skip
    assert node_update_may_help(old, not_ready) is True


def test_scheduling_properties_of_a_node_may_help() -> None:
    old = make_node("a", cpu="2")
    assert node_update_may_help(old, make_node("a", cpu="4")) is True
    assert node_update_may_help(old, make_node("a", cpu="2", labels={"disk": "ssd"})) is True
    assert node_update_may_help(old, make_node("a", cpu="2", taints=[{"key": "k", "effect": "NoSchedule"}])) is True
    assert node_update_may_help(make_node("a", cpu="2", unschedulable=True), old) is True
    assert node_update_may_help(old, make_node("a", cpu="2", unschedulable=True)) is False
    assert node_update_may_help(old, make_node("a", cpu="2")) is False


def test_a_stopped_scheduler_forgets_only_the_bindings_it_was_still_sending() -> None:
    cache = SchedulerCache()
    cache.add_node(make_node("a"))
    sending, sent = make_pod("sending", cpu="1"), make_pod("sent", cpu="1")
    cache.assume(sending, "a")
    cache.assume(sent, "a")
    cache.finish_binding(sent, now=0)
    assert cache.forget_unfinished() == [sending]
    assert (cache.knows(sending), cache.knows(sent)) == (False, True)
