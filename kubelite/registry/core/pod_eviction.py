"""pods/eviction: a deletion that honours PodDisruptionBudgets (kube's EvictionREST).

`kubectl drain` evicts rather than deletes: the API server deletes the pod only if the one budget covering it
allows one more disruption, and then records the disruption in that budget's status (`disruptedPods`,
`disruptionsAllowed` one less) so that concurrent evictions cannot all spend the same allowance before the
disruption controller recounts. The order of kube's checks, and their answers:

- a pod that is already not running (Pending, Succeeded, Failed) or already terminating disrupts nothing:
  it is deleted at once (a Pending one with its resourceVersion as precondition, so a pod that just became
  ready is not deleted on stale grounds);
- more than one budget selects the pod: 500, as kube does not support that;
- a pod that is not Ready is deleted without spending the budget when the budget is healthy anyway (or says
  `unhealthyPodEvictionPolicy: AlwaysAllow`), again guarded by its resourceVersion; a conflict there is a 429
  so the client retries;
- otherwise the budget must be current (`observedGeneration`) and allow a disruption, or the answer is 429
  `Cannot evict pod as it would violate the pod's disruption budget.` with a `DisruptionBudget` cause naming
  why; the decrement and the pod's entry in `disruptedPods` are written under the budget's resourceVersion,
  so racing evictions are retried on the fresh budget.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from typing import Any

from kubelite.apimachinery import errors
from kubelite.apimachinery.meta import Obj, rfc3339
from kubelite.apimachinery.selectors import label_selector_from_spec
from kubelite.registry.options import DeleteParams, ListParams, WriteParams
from kubelite.registry.store import Store

#: kube's MaxDisruptedPodSize: evictions the disruption controller has not yet confirmed, past which more are refused
MAX_DISRUPTED_PODS = 2000
_PDB = errors.GroupResource("policy", "poddisruptionbudget")
_VIOLATION = "Cannot evict pod as it would violate the pod's disruption budget."

SUCCESS: Obj = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}


def too_many_requests(cause: str, retry_after: int) -> errors.StatusError:
    details: dict[str, Any] = {"causes": [{"reason": "DisruptionBudget", "message": cause}]}
    headers = {}
    if retry_after:
        details["retryAfterSeconds"] = retry_after
        headers["Retry-After"] = str(retry_after)
    return errors.StatusError(429, "TooManyRequests", _VIOLATION, details, headers)


def still_processing(pdb_name: str) -> errors.StatusError:
    return too_many_requests(f"The disruption budget {pdb_name} is still being processed by the server.", 10)


def is_pod_ready(pod: Obj) -> bool:
    conditions = (pod.get("status") or {}).get("conditions") or []
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)


def can_ignore_budget(pod: Obj) -> bool:
    phase = (pod.get("status") or {}).get("phase")
    return phase in ("Succeeded", "Failed", "Pending") or bool(pod["metadata"].get("deletionTimestamp"))


def should_enforce_resource_version(pod: Obj) -> bool:
    phase = (pod.get("status") or {}).get("phase")
    return phase not in ("Succeeded", "Failed") and not pod["metadata"].get("deletionTimestamp")


def selects(pdb: Obj, pod: Obj) -> bool:
    """Whether the budget covers the pod; a missing or empty selector covers nothing, a broken one too."""
    raw = (pdb.get("spec") or {}).get("selector")
    if not raw or not (raw.get("matchLabels") or raw.get("matchExpressions")):
        return False
    try:
        selector = label_selector_from_spec(raw)
    except (ValueError, errors.StatusError):
        return False
    return selector.matches(pod["metadata"].get("labels") or {})


def disruption_allowed_condition(status: Obj, now: str) -> None:
    """kube's UpdateDisruptionAllowedCondition, for a budget whose allowance just reached zero."""
    allowed = int(status.get("disruptionsAllowed") or 0) > 0
    wanted = {
        "type": "DisruptionAllowed",
        "status": "True" if allowed else "False",
        "reason": "SufficientPods" if allowed else "InsufficientPods",
        "message": "",
    }
    conditions = status.setdefault("conditions", [])
    for condition in conditions:
        if condition.get("type") == "DisruptionAllowed":
            if condition.get("status") != wanted["status"]:
                condition["lastTransitionTime"] = now
            condition.update(wanted)
            condition.setdefault("observedGeneration", status.get("observedGeneration", 0))
            return
    conditions.append({**wanted, "observedGeneration": status.get("observedGeneration", 0), "lastTransitionTime": now})


class PodEviction:
    """The storage of pods/eviction, served by its own handler (a POST of a policy/v1 Eviction)."""

    def __init__(self, pods: Store, pdbs: Store, pdb_status: Any, *, now: Callable[[], datetime]) -> None:
        self.spec = pods.spec
        self.pods = pods
        self.pdbs = pdbs
        self.pdb_status = pdb_status
        self.now = now

    def connect_methods(self) -> tuple[str, ...]:
        return ("POST",)

    async def evict(self, namespace: str, name: str, options: DeleteParams) -> Obj:
        pod = await self.pods.get(namespace, name)
        if can_ignore_budget(pod):
            if should_enforce_resource_version(pod) and options.precondition_resource_version is None:
                options = _with_resource_version(options, pod)
            await self.pods.delete(namespace, name, options)
            return SUCCESS
        listed = await self.pdbs.list(namespace, ListParams())
        budgets = [pdb for pdb in listed["items"] if selects(pdb, pod)]
        if len(budgets) > 1:
            return {
                "kind": "Status",
                "apiVersion": "v1",
                "metadata": {},
                "status": "Failure",
                "message": "This pod has more than one PodDisruptionBudget, which the eviction subresource does "
                "not support.",
                "code": 500,
            }
        guard = False
        if budgets:
            pdb = budgets[0]
            status = pdb.get("status") or {}
            policy = (pdb.get("spec") or {}).get("unhealthyPodEvictionPolicy") or "IfHealthyBudget"
            ready = is_pod_ready(pod)
            healthy_anyway = (
                int(status.get("currentHealthy") or 0) >= int(status.get("desiredHealthy") or 0)
                and int(status.get("desiredHealthy") or 0) > 0
            )
            if not ready and (policy == "AlwaysAllow" or healthy_anyway):
                guard = True
            else:
                await self._spend(namespace, pdb["metadata"]["name"], name, options.dry_run)
        if guard and options.precondition_resource_version is None:
            try:
                await self.pods.delete(namespace, name, _with_resource_version(options, pod))
            except errors.StatusError as exc:
                if exc.code == 409:  # the pod changed (became ready, say) since it was judged
                    raise still_processing(budgets[0]["metadata"]["name"]) from exc
                raise
            return SUCCESS
        await self.pods.delete(namespace, name, options)
        return SUCCESS

    async def _spend(self, namespace: str, pdb_name: str, pod_name: str, dry_run: bool) -> None:
        """Check and decrement the budget's allowance on its current state (retried on conflicts by the
        store's read-modify-write, as kube retries on a refreshed budget)."""

        def check(pdb: Obj) -> Obj:
            meta, status = pdb["metadata"], pdb.setdefault("status", {})
            if int(status.get("observedGeneration") or 0) < int(meta.get("generation") or 0):
                raise still_processing(pdb_name)
            allowed = int(status.get("disruptionsAllowed") or 0)
            if allowed < 0:
                raise errors.forbidden(_PDB, pdb_name, "pdb disruptions allowed is negative")
            if len(status.get("disruptedPods") or {}) > MAX_DISRUPTED_PODS:
                raise errors.forbidden(
                    _PDB, pdb_name, "DisruptedPods map too big - too many evictions not confirmed by PDB controller"
                )
            if allowed == 0:
                raise too_many_requests(
                    f"The disruption budget {pdb_name} needs {int(status.get('desiredHealthy') or 0)} healthy pods "
                    f"and has {int(status.get('currentHealthy') or 0)} currently",
                    0,
                )
            now = rfc3339(self.now())
            status["disruptionsAllowed"] = allowed - 1
            if allowed - 1 == 0:
                disruption_allowed_condition(status, now)
            status.setdefault("disruptedPods", {})[pod_name] = now
            return pdb

        if dry_run:
            check(await self.pdbs.get(namespace, pdb_name))
            return

        async def update(current: Obj | None) -> Obj:
            if current is None:
                raise errors.not_found(errors.GroupResource("policy", "poddisruptionbudgets"), pdb_name)
            return check(current)

        await self.pdb_status.update(namespace, pdb_name, update, WriteParams())


def _with_resource_version(options: DeleteParams, pod: Obj) -> DeleteParams:
    return replace(options, precondition_resource_version=pod["metadata"]["resourceVersion"])
