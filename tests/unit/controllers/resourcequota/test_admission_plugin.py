"""The ResourceQuota admission plugin's reads and writes: kube's 403, charging under the quota's
resourceVersion, a conflict checked again on the stored quota, and no charge on a dry run."""

from __future__ import annotations

import asyncio
import copy
from typing import Any

import pytest

from kubelite.admission.chain import Attributes
from kubelite.admission.plugins.resource_quota import ResourceQuotaAdmission
from kubelite.apimachinery import errors
from kubelite.apimachinery.errors import GroupResource, StatusError
from kubelite.controllers.resourcequota import admission as quota_check
from kubelite.registry.spec import ResourceSpec

PODS = ResourceSpec("", "v1", "pods", "Pod", "pod", True)


class Quotas:
    """A namespace's stored quotas, with a watch cache that can lag behind them."""

    def __init__(self, used: dict[str, str]) -> None:
        self.stored = {
            "metadata": {"name": "q", "namespace": "ns", "resourceVersion": "1"},
            "spec": {"hard": {"pods": "2"}},
            "status": {"hard": {"pods": "2"}, "used": used},
        }
        self.cached = copy.deepcopy(self.stored)
        self.writes: list[dict[str, str]] = []
        self.reads: list[bool] = []

    async def list(self, namespace: str, fresh: bool) -> list[Any]:
        self.reads.append(fresh)
        return [copy.deepcopy(self.stored if fresh else self.cached)]

    async def write(self, quota: Any) -> Any:
        if quota["metadata"]["resourceVersion"] != self.stored["metadata"]["resourceVersion"]:
            raise errors.conflict(GroupResource("", "resourcequotas"), "q", errors.OBJECT_MODIFIED)
        self.writes.append(quota["status"]["used"])
        self.stored = {**quota, "metadata": {**quota["metadata"], "resourceVersion": str(len(self.writes) + 1)}}
        return self.stored

    def plugin(self) -> ResourceQuotaAdmission:
        return ResourceQuotaAdmission(self.list, self.write, quota_check.handles, quota_check.check_request)

    def lag(self, used: dict[str, str]) -> None:
        """Storage moved on (another write charged the quota); the cache has not seen it yet."""
        self.stored = {**self.stored, "metadata": {**self.stored["metadata"], "resourceVersion": "9"},
                       "status": {"hard": {"pods": "2"}, "used": used}}  # fmt: skip


def create(plugin: ResourceQuotaAdmission, name: str = "p", *, dry_run: bool = False) -> None:
    attrs = Attributes("CREATE", PODS, "ns", "", "", None, dry_run)
    pod = {"metadata": {"name": name, "namespace": "ns"}, "spec": {"containers": [{"name": "c"}]}}
    asyncio.run(plugin.validate(attrs, pod, None))


def test_a_pod_is_charged_under_the_quota_s_resource_version() -> None:
    quotas = Quotas({"pods": "0"})
    create(quotas.plugin())
    assert quotas.writes == [{"pods": "1"}]
    assert quotas.reads == [False]  # the cache was enough


def test_a_conflict_is_checked_again_on_the_stored_quota() -> None:
    quotas = Quotas({"pods": "0"})
    quotas.lag({"pods": "1"})
    create(quotas.plugin())
    assert quotas.writes == [{"pods": "2"}]
    assert quotas.reads == [False, True]


def test_a_refusal_is_confirmed_on_the_stored_quota() -> None:
    quotas = Quotas({"pods": "2"})
    quotas.lag({"pods": "1"})  # a pod went away: the cache still counts it
    create(quotas.plugin())
    assert quotas.writes == [{"pods": "2"}]
    quotas.lag({"pods": "2"})
    quotas.cached = copy.deepcopy(quotas.stored)
    with pytest.raises(StatusError) as refused:
        create(quotas.plugin(), "x")
    assert (refused.value.code, refused.value.message) == (
        403,
        'pods "x" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2',
    )


def test_dry_run_checks_without_charging() -> None:
    quotas = Quotas({"pods": "0"})
    create(quotas.plugin(), dry_run=True)
    assert quotas.writes == []


def test_updates_that_cannot_change_usage_read_no_quota() -> None:
    quotas = Quotas({"pods": "2"})
    attrs = Attributes("UPDATE", PODS, "ns", "p", "", None)
    pod = {"metadata": {"name": "p", "resourceVersion": "3"}, "spec": {}}
    asyncio.run(quotas.plugin().validate(attrs, pod, pod))
    assert quotas.reads == []
