"""The Deployment controller's decisions (kube's pkg/controller/deployment), as a function over dicts.

`sync_deployment(deployment, replica_sets, pods, now=...)` runs one `syncDeployment`: claim the
ReplicaSets the selector matches, then pause handling, a scaling event (proportional scaling), or a
rollout step of the strategy (RollingUpdate: grow the new ReplicaSet within maxSurge, shrink old ones within
maxUnavailable, unhealthy ones first; Recreate: all old pods gone before the new ReplicaSet grows), history
cleanup, and the status with its Available and Progressing conditions. kube's sync writes as it goes and
reads its own writes back (the ReplicaSet it just created, the replicas it just set); `_Sync` keeps those
objects in memory and appends each write to a `Plan` in kube's order, with the events kube records.

Rollback: apps/v1 has no rollbackTo; `kubectl rollout undo` patches the Deployment's template (and
annotations) from the chosen revision's ReplicaSet on the client side (`rollback_patch`). The controller
then finds that ReplicaSet as the new one (its template matches) and moves it to the next revision,
keeping its old number in revision-history.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from kubelite.apimachinery.meta import Obj, deep_copy, rfc3339
from kubelite.apimachinery.selectors import label_selector_from_spec
from kubelite.controllers.workloads import deployment_util as du
from kubelite.controllers.workloads.actions import STRATEGIC_MERGE_PATCH, Action, Event, Plan
from kubelite.controllers.workloads.controller_utils import controller_ref, owner_controller
from kubelite.controllers.workloads.replicaset import adopt_patch, claim_objects, release_patch
from kubelite.controllers.workloads.template_hash import compute_hash

SELECTING_ALL_TEXT = "This deployment is selecting all pods. A non-empty selector is required."


def scaling_event(operation: str, rs_name: str, old: int, new: int) -> Event:
    return Event("Normal", "ScalingReplicaSet", f"Scaled {operation} replica set {rs_name} from {old} to {new}")


def _name(obj: Obj) -> str:
    return str(obj["metadata"]["name"])


def _normalized_status(status: Obj | None) -> Obj:
    """A status as the API would serve it back: omitempty drops zero counts and empty lists."""
    return {k: v for k, v in (status or {}).items() if v not in (0, None, [], {})}


class _Sync:
    def __init__(self, d: Obj, replica_sets: Sequence[Obj], pods: Sequence[Obj], now: datetime) -> None:
        self.d: Obj = deep_copy(d)
        self.d.setdefault("status", {})
        self.namespace = self.d["metadata"].get("namespace", "")
        self.rs_list: list[Obj] = [deep_copy(rs) for rs in replica_sets]
        self.pods = pods
        self.now = now
        self.plan = Plan()

    # -- writes ------------------------------------------------------------------------------------------

    def _write_status(self) -> None:
        self.plan.actions.append(
            Action("update_status", "deployments", self.namespace, _name(self.d), deep_copy(self.d))
        )

    def _replace(self, rs: Obj) -> None:
        self.rs_list = [rs if _name(r) == _name(rs) else r for r in self.rs_list]

    def _update_rs(self, rs: Obj) -> None:
        self.plan.actions.append(Action("update", "replicasets", self.namespace, _name(rs), deep_copy(rs)))
        self._replace(rs)

    def _event(self, event: Event) -> None:
        self.plan.add_event(event)

    # -- claiming ------------------------------------------------------------------------------------------

    def claim_replica_sets(self, all_rss: Sequence[Obj]) -> None:
        selector = label_selector_from_spec(self.d["spec"].get("selector"))
        ref = controller_ref(self.d, "apps/v1", "Deployment")
        claim = claim_objects(self.d, selector, all_rss)
        for rs in claim.adopt:
            body = adopt_patch(ref, rs)
            self.plan.actions.append(
                Action("patch", "replicasets", self.namespace, _name(rs), body, STRATEGIC_MERGE_PATCH)
            )
            rs.setdefault("metadata", {})["ownerReferences"] = [
                *(rs["metadata"].get("ownerReferences") or []),
                ref,
            ]
        for rs in claim.release:
            body = release_patch(self.d["metadata"]["uid"], rs)
            self.plan.actions.append(
                Action("patch", "replicasets", self.namespace, _name(rs), body, STRATEGIC_MERGE_PATCH)
            )
        self.rs_list = claim.claimed

    # -- the new ReplicaSet -------------------------------------------------------------------------------------

    def all_replica_sets(self, create: bool) -> tuple[Obj | None, list[Obj]]:
        """getAllReplicaSetsAndSyncRevision."""
        _, all_old = du.find_old_replica_sets(self.d, self.rs_list)
        return self.new_replica_set(all_old, create), all_old

    def new_replica_set(self, old_rss: list[Obj], create: bool) -> Obj | None:
        """getNewReplicaSet: sync the existing new ReplicaSet's annotations, or create it."""
        d = self.d
        existing = du.find_new_replica_set(d, self.rs_list)
        new_revision = str(du.max_revision(old_rss) + 1)
        if existing is not None:
            rs = deep_copy(existing)
            annotations_updated = du.set_new_replica_set_annotations(d, rs, new_revision, True)
            min_ready = int(d["spec"].get("minReadySeconds") or 0)
            if annotations_updated or int(rs["spec"].get("minReadySeconds") or 0) != min_ready:
                rs["spec"]["minReadySeconds"] = min_ready
                self._update_rs(rs)
                return rs
            needs_update = du.set_deployment_revision(d, rs["metadata"]["annotations"].get(du.REVISION, ""))
            if du.has_progress_deadline(d) and du.get_condition(d["status"], du.PROGRESSING) is None:
                message = f'Found new replica set "{_name(rs)}"'
                du.set_condition(
                    d["status"], du.new_condition(du.PROGRESSING, "True", du.FOUND_NEW_RS, message, self.now)
                )
                needs_update = True
            if needs_update:
                self._write_status()
            return rs
        if not create:
            return None
        template = deep_copy(d["spec"].get("template") or {})
        hash_value = compute_hash(template, d["status"].get("collisionCount"))
        template_meta = template.setdefault("metadata", {})
        template_meta["labels"] = {**(template_meta.get("labels") or {}), du.POD_TEMPLATE_HASH: hash_value}
        selector = deep_copy(d["spec"].get("selector") or {})
        selector["matchLabels"] = {**(selector.get("matchLabels") or {}), du.POD_TEMPLATE_HASH: hash_value}
        created: Obj = {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "metadata": {
                "name": f"{_name(d)}-{hash_value}",
                "namespace": self.namespace,
                "labels": dict(template_meta["labels"]),
                "ownerReferences": [controller_ref(d, "apps/v1", "Deployment")],
            },
            "spec": {
                "replicas": 0,
                "minReadySeconds": int(d["spec"].get("minReadySeconds") or 0),
                "selector": selector,
                "template": template,
            },
        }
        count = du.new_rs_new_replicas(d, [*old_rss, created], created)
        created["spec"]["replicas"] = count
        du.set_new_replica_set_annotations(d, created, new_revision, False)
        self.plan.actions.append(Action("create", "replicasets", self.namespace, _name(created), deep_copy(created)))
        # what the server hands back, as far as the rest of the sync reads it
        created["metadata"]["creationTimestamp"] = rfc3339(self.now)
        self.rs_list.append(created)
        if count > 0:
            self._event(scaling_event("up", _name(created), 0, count))
        du.set_deployment_revision(d, new_revision)
        if du.has_progress_deadline(d):
            message = f'Created new replica set "{_name(created)}"'
            du.set_condition(
                d["status"], du.new_condition(du.PROGRESSING, "True", du.NEW_REPLICA_SET, message, self.now)
            )
        self._write_status()
        return created

    # -- scaling -------------------------------------------------------------------------------------------------

    def scale_rs(self, rs: Obj, new_scale: int) -> tuple[bool, Obj]:
        """scaleReplicaSet (and scaleReplicaSetAndRecordEvent's no-op check by the caller)."""
        d = self.d
        desired, ceiling = du.replicas(d), du.replicas(d) + du.max_surge(d)
        size_changes = du.replicas(rs) != new_scale
        if not size_changes and not du.replicas_annotations_need_update(rs, desired, ceiling):
            return False, rs
        old_scale = du.replicas(rs)
        copy = deep_copy(rs)
        copy["spec"]["replicas"] = new_scale
        du.set_replicas_annotations(copy, desired, ceiling)
        self._update_rs(copy)
        if size_changes:
            self._event(scaling_event("up" if old_scale < new_scale else "down", _name(copy), old_scale, new_scale))
        return size_changes, copy

    def scale_and_record(self, rs: Obj, new_scale: int) -> tuple[bool, Obj]:
        if du.replicas(rs) == new_scale:
            return False, rs
        return self.scale_rs(rs, new_scale)

    def scale(self, new_rs: Obj | None, old_rss: list[Obj]) -> None:
        """scale: a scaling event spread over the active ReplicaSets."""
        d = self.d
        target = du.find_active_or_latest(new_rs, old_rss)
        if target is not None:
            if du.replicas(target) != du.replicas(d):
                self.scale_and_record(target, du.replicas(d))
            return
        if du.is_saturated(d, new_rs):
            for old in du.filter_active_replica_sets(old_rss):
                self.scale_and_record(old, 0)
            return
        if not du.is_rolling_update(d):
            return
        active = du.filter_active_replica_sets([*old_rss, new_rs])
        allowed = du.replicas(d) + du.max_surge(d) if du.replicas(d) > 0 else 0
        to_add = allowed - du.replica_count(active)
        if to_add > 0:
            active = du.by_size_newer(active)
        elif to_add < 0:
            active = du.by_size_older(active)
        added = 0
        sizes: dict[str, int] = {}
        for rs in active:
            if to_add != 0:
                proportion = du.replica_set_proportion(rs, d, to_add, added)
                sizes[_name(rs)] = du.replicas(rs) + proportion
                added += proportion
            else:
                sizes[_name(rs)] = du.replicas(rs)
        for index, rs in enumerate(active):
            if index == 0 and to_add != 0:
                sizes[_name(rs)] = max(sizes[_name(rs)] + to_add - added, 0)
            self.scale_rs(rs, sizes[_name(rs)])

    def is_scaling_event(self) -> bool:
        new_rs, old_rss = self.all_replica_sets(False)
        for rs in du.filter_active_replica_sets([*old_rss, new_rs]):
            desired = du.desired_replicas_annotation(rs)
            if desired is not None and desired != du.replicas(self.d):
                return True
        return False

    # -- rolling update ------------------------------------------------------------------------------------------

    def rollout_rolling(self) -> None:
        # as in kube, the status is computed over the ReplicaSets as this sync first read them: the scaling
        # writes below show up in the ReplicaSets' next events
        new_rs, old_rss = self.all_replica_sets(True)
        assert new_rs is not None  # created when missing
        all_rss = [*old_rss, new_rs]
        scaled_up, _ = self.reconcile_new(all_rss, new_rs)
        if scaled_up:
            self.sync_rollout_status(all_rss, new_rs)
            return
        if self.reconcile_old(all_rss, du.filter_active_replica_sets(old_rss), new_rs):
            self.sync_rollout_status(all_rss, new_rs)
            return
        if du.deployment_complete(self.d, self.d["status"]):
            self.cleanup(old_rss)
        self.sync_rollout_status(all_rss, new_rs)

    def reconcile_new(self, all_rss: list[Obj], new_rs: Obj) -> tuple[bool, Obj]:
        d = self.d
        if du.replicas(new_rs) == du.replicas(d):
            return False, new_rs
        if du.replicas(new_rs) > du.replicas(d):
            return self.scale_and_record(new_rs, du.replicas(d))
        return self.scale_and_record(new_rs, du.new_rs_new_replicas(d, all_rss, new_rs))

    def reconcile_old(self, all_rss: list[Obj], old_rss: list[Obj], new_rs: Obj) -> bool:
        d = self.d
        if du.replica_count(old_rss) == 0:
            return False
        min_available = du.replicas(d) - du.max_unavailable(d)
        new_unavailable = du.replicas(new_rs) - du.status_int(new_rs, "availableReplicas")
        max_scaled_down = du.replica_count(all_rss) - min_available - new_unavailable
        if max_scaled_down <= 0:
            return False
        old_rss, cleaned = self.cleanup_unhealthy(old_rss, max_scaled_down)
        scaled = self.scale_down_old_for_rolling([*old_rss, new_rs], old_rss)
        return cleaned + scaled > 0

    def cleanup_unhealthy(self, old_rss: list[Obj], max_cleanup: int) -> tuple[list[Obj], int]:
        """cleanupUnhealthyReplicas: shrink old ReplicaSets by their unavailable pods first."""
        ordered = du.by_creation(old_rss)
        total = 0
        for index, rs in enumerate(ordered):
            if total >= max_cleanup:
                break
            have, available = du.replicas(rs), du.status_int(rs, "availableReplicas")
            if have == 0 or have == available:
                continue
            count = min(max_cleanup - total, have - available)
            _, ordered[index] = self.scale_and_record(rs, have - count)
            total += count
        return ordered, total

    def scale_down_old_for_rolling(self, all_rss: list[Obj], old_rss: list[Obj]) -> int:
        d = self.d
        min_available = du.replicas(d) - du.max_unavailable(d)
        available = du.available_replica_count(all_rss)
        if available <= min_available:
            return 0
        budget = available - min_available
        total = 0
        for rs in du.by_creation(old_rss):
            if total >= budget:
                break
            if du.replicas(rs) == 0:
                continue
            count = min(du.replicas(rs), budget - total)
            self.scale_and_record(rs, du.replicas(rs) - count)
            total += count
        return total

    # -- recreate ------------------------------------------------------------------------------------------------

    def rollout_recreate(self) -> None:
        new_rs, old_rss = self.all_replica_sets(False)
        scaled_down = False
        for rs in du.filter_active_replica_sets(old_rss):
            scaled, _ = self.scale_and_record(rs, 0)
            scaled_down = scaled_down or scaled
        if scaled_down:
            self.sync_rollout_status([*old_rss, new_rs], new_rs)
            return
        if self.old_pods_running(new_rs, old_rss):
            self.sync_rollout_status([*old_rss, new_rs], new_rs)
            return
        if new_rs is None:
            new_rs, old_rss = self.all_replica_sets(True)
        assert new_rs is not None
        self.scale_and_record(new_rs, du.replicas(self.d))
        if du.deployment_complete(self.d, self.d["status"]):
            self.cleanup(old_rss)
        self.sync_rollout_status([*old_rss, new_rs], new_rs)

    def old_pods_running(self, new_rs: Obj | None, old_rss: list[Obj]) -> bool:
        if du.actual_replica_count(old_rss) > 0:
            return True
        owned = {rs["metadata"].get("uid") for rs in self.rs_list if rs["metadata"].get("uid")}
        new_uid = new_rs["metadata"].get("uid") if new_rs is not None else None
        for pod in self.pods:
            ref = owner_controller(pod)
            if ref is None or ref.get("uid") not in owned or ref.get("uid") == new_uid:
                continue
            if pod.get("status", {}).get("phase") not in ("Failed", "Succeeded"):
                return True
        return False

    # -- history -------------------------------------------------------------------------------------------------

    def cleanup(self, old_rss: list[Obj]) -> None:
        """cleanupDeployment: delete the oldest revisions beyond revisionHistoryLimit, empty ones only."""
        d = self.d
        if not du.has_revision_history_limit(d):
            return
        alive = [rs for rs in old_rss if not rs["metadata"].get("deletionTimestamp")]
        diff = len(alive) - int(d["spec"]["revisionHistoryLimit"])
        if diff <= 0:
            return
        for rs in du.by_revision(alive)[:diff]:
            status = rs.get("status") or {}
            observed = int(status.get("observedGeneration") or 0)
            if int(status.get("replicas") or 0) != 0 or du.replicas(rs) != 0:
                continue
            if int(rs["metadata"].get("generation") or 0) > observed:
                continue
            self.plan.actions.append(
                Action("delete", "replicasets", self.namespace, _name(rs), preconditions_uid=rs["metadata"].get("uid"))
            )

    # -- status --------------------------------------------------------------------------------------------------

    def calculate_status(self, all_rss: Sequence[Obj | None], new_rs: Obj | None) -> Obj:
        d = self.d
        available = du.available_replica_count(all_rss)
        unavailable = max(du.replica_count(all_rss) - available, 0)
        status: Obj = {
            "observedGeneration": int(d["metadata"].get("generation") or 0),
            "replicas": du.actual_replica_count(all_rss),
            "updatedReplicas": du.actual_replica_count([new_rs]),
            "readyReplicas": du.ready_replica_count(all_rss),
            "availableReplicas": available,
            "unavailableReplicas": unavailable,
        }
        terminating = du.terminating_replica_count(all_rss)
        if terminating is not None:
            status["terminatingReplicas"] = terminating
        if d["status"].get("conditions"):
            status["conditions"] = deep_copy(d["status"]["conditions"])
        if d["status"].get("collisionCount") is not None:
            status["collisionCount"] = d["status"]["collisionCount"]
        if available >= du.replicas(d) - du.max_unavailable(d):
            condition = du.new_condition(
                du.AVAILABLE, "True", du.MINIMUM_REPLICAS_AVAILABLE, du.MIN_AVAILABILITY_TEXT, self.now
            )
        else:
            condition = du.new_condition(
                du.AVAILABLE, "False", du.MINIMUM_REPLICAS_UNAVAILABLE, du.NO_MIN_AVAILABILITY_TEXT, self.now
            )
        du.set_condition(status, condition)
        return status

    def _put_status(self, status: Obj) -> None:
        if _normalized_status(self.d["status"]) == _normalized_status(status):
            return
        self.d["status"] = status
        self._write_status()

    def sync_status(self, all_rss: Sequence[Obj | None], new_rs: Obj | None) -> None:
        """syncDeploymentStatus."""
        self._put_status(self.calculate_status(all_rss, new_rs))

    def sync_rollout_status(self, all_rss: Sequence[Obj | None], new_rs: Obj | None) -> None:
        """syncRolloutStatus: the status, the Progressing condition, and ReplicaFailure from the ReplicaSets."""
        d = self.d
        status = self.calculate_status(all_rss, new_rs)
        if not du.has_progress_deadline(d):
            du.remove_condition(status, du.PROGRESSING)
        current = du.get_condition(d["status"], du.PROGRESSING)
        complete_rollout = (
            int(status.get("replicas") or 0) == int(status.get("updatedReplicas") or 0)
            and current is not None
            and current.get("reason") == du.NEW_RS_AVAILABLE
        )
        subject = f'ReplicaSet "{_name(new_rs)}"' if new_rs is not None else f'Deployment "{_name(d)}"'
        if du.has_progress_deadline(d) and not complete_rollout:
            if du.deployment_complete(d, status):
                message = f"{subject} has successfully progressed."
                du.set_condition(
                    status, du.new_condition(du.PROGRESSING, "True", du.NEW_RS_AVAILABLE, message, self.now)
                )
            elif du.deployment_progressing(d, status):
                message = f"{subject} is progressing."
                condition = du.new_condition(du.PROGRESSING, "True", du.REPLICA_SET_UPDATED, message, self.now)
                if current is not None:
                    if current.get("status") == "True":
                        condition["lastTransitionTime"] = current.get("lastTransitionTime")
                    du.remove_condition(status, du.PROGRESSING)
                du.set_condition(status, condition)
            elif du.deployment_timed_out(d, status, self.now):
                message = f"{subject} has timed out progressing."
                du.set_condition(status, du.new_condition(du.PROGRESSING, "False", du.TIMED_OUT, message, self.now))
        failures = self.replica_failures(all_rss, new_rs)
        if failures:
            du.set_condition(status, failures[0])
        else:
            du.remove_condition(status, du.REPLICA_FAILURE)
        if _normalized_status(d["status"]) == _normalized_status(status):
            self.plan.requeue_after = du.seconds_until_progress_check(d, status, self.now)
            return
        d["status"] = status
        self._write_status()

    def replica_failures(self, all_rss: Sequence[Obj | None], new_rs: Obj | None) -> list[Obj]:
        ordered = [rs for rs in [new_rs, *all_rss] if rs is not None]
        seen: set[str] = set()
        for rs in ordered:
            if _name(rs) in seen:
                continue
            seen.add(_name(rs))
            for condition in (rs.get("status") or {}).get("conditions") or []:
                if condition.get("type") == du.REPLICA_FAILURE:
                    return [du.rs_condition_to_deployment(condition)]
        return []

    # -- the sync --------------------------------------------------------------------------------------------------

    def check_paused_conditions(self) -> None:
        d = self.d
        if not du.has_progress_deadline(d):
            return
        current = du.get_condition(d["status"], du.PROGRESSING)
        if current is not None and current.get("reason") == du.TIMED_OUT:
            return
        paused_recorded = current is not None and current.get("reason") == du.PAUSED
        paused = bool(d["spec"].get("paused"))
        if paused and not paused_recorded:
            condition = du.new_condition(du.PROGRESSING, "Unknown", du.PAUSED, "Deployment is paused", self.now)
        elif not paused and paused_recorded:
            condition = du.new_condition(du.PROGRESSING, "Unknown", du.RESUMED, "Deployment is resumed", self.now)
        else:
            return
        du.set_condition(d["status"], condition)
        self._write_status()

    def sync(self) -> None:
        """sync: scale, clean up when paused, and write the status."""
        new_rs, old_rss = self.all_replica_sets(False)
        self.scale(new_rs, old_rss)
        if self.d["spec"].get("paused"):
            self.cleanup(old_rss)
        self.sync_status([*old_rss, new_rs], new_rs)

    def run(self) -> Plan:
        d = self.d
        selector = d["spec"].get("selector")
        if selector == {} or selector is None:
            self._event(Event("Warning", "SelectingAll", SELECTING_ALL_TEXT))
            if int(d["status"].get("observedGeneration") or 0) < int(d["metadata"].get("generation") or 0):
                d["status"]["observedGeneration"] = int(d["metadata"].get("generation") or 0)
                self._write_status()
            return self.plan
        self.claim_replica_sets(self.rs_list)
        if d["metadata"].get("deletionTimestamp"):
            new_rs, old_rss = self.all_replica_sets(False)
            self.sync_status([*old_rss, new_rs], new_rs)
            return self.plan
        self.check_paused_conditions()
        if d["spec"].get("paused"):
            self.sync()
            return self.plan
        if self.is_scaling_event():
            self.sync()
            return self.plan
        if (d["spec"].get("strategy") or {}).get("type") == "Recreate":
            self.rollout_recreate()
        else:
            self.rollout_rolling()
        return self.plan


def sync_deployment(deployment: Obj, replica_sets: Sequence[Obj], pods: Sequence[Obj] = (), *, now: datetime) -> Plan:
    """One syncDeployment. `replica_sets` are all ReplicaSets of the Deployment's namespace (the claim
    adopts and releases among them); `pods` those of the namespace (Recreate waits for old ones to go)."""
    return _Sync(deployment, replica_sets, pods, now).run()


def collision_status(deployment: Obj) -> Obj:
    """The Deployment whose status the loop writes when creating the new ReplicaSet hit AlreadyExists with a
    ReplicaSet that is not this template's: collisionCount goes up by one, so the next sync hashes anew."""
    updated = deep_copy(deployment)
    status = updated.setdefault("status", {})
    status["collisionCount"] = int(status.get("collisionCount") or 0) + 1
    return updated


def is_own_replica_set(deployment: Obj, rs: Obj) -> bool:
    """After AlreadyExists: whether the ReplicaSet found is this Deployment's new one after all."""
    ref = owner_controller(rs)
    return (
        ref is not None
        and ref.get("uid") == deployment["metadata"].get("uid")
        and du.equal_ignore_hash(deployment["spec"].get("template"), rs.get("spec", {}).get("template"))
    )


def create_failed(deployment: Obj, rs_name: str, error: str, now: datetime) -> tuple[Obj | None, Event]:
    """Creating the new ReplicaSet failed otherwise: the Progressing=False ReplicaSetCreateError status to
    write (when the Deployment has a progress deadline) and the Warning event."""
    message = f'Failed to create new replica set "{rs_name}": {error}'
    event = Event("Warning", du.FAILED_RS_CREATE, message)
    if not du.has_progress_deadline(deployment):
        return None, event
    updated = deep_copy(deployment)
    status = updated.setdefault("status", {})
    du.set_condition(status, du.new_condition(du.PROGRESSING, "False", du.FAILED_RS_CREATE, message, now))
    return updated, event


# -- kubectl rollout undo ----------


class RollbackError(ValueError):
    pass


def rollback_patch(deployment: Obj, replica_sets: Sequence[Obj], to_revision: int = 0) -> list[Obj] | None:
    """The JSON patch `kubectl rollout undo [--to-revision=N]` sends, or None when the template already
    matches that revision ("skipped rollback"). Revision 0 means the one before the current.

    kubectl picks the ReplicaSet of the revision among those the Deployment controls, strips its
    pod-template-hash label, and replaces spec.template and metadata.annotations (the Deployment's own
    bookkeeping annotations kept, the rest taken from the ReplicaSet)."""
    if deployment.get("spec", {}).get("paused"):
        raise RollbackError(
            "you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume' and try again"
        )
    uid = deployment["metadata"].get("uid")
    owned = [rs for rs in replica_sets if (ref := owner_controller(rs)) is not None and ref.get("uid") == uid]
    target = _revision_replica_set(owned, to_revision, _name(deployment))
    template = deep_copy(target["spec"].get("template") or {})
    if du.equal_ignore_hash(template, deployment["spec"].get("template")):
        return None
    labels = (template.get("metadata") or {}).get("labels")
    if labels:
        labels.pop(du.POD_TEMPLATE_HASH, None)
    current = deployment["metadata"].get("annotations") or {}
    kept = {k: v for k, v in current.items() if k in du.ANNOTATIONS_TO_SKIP}
    kept.update(
        {k: v for k, v in (target["metadata"].get("annotations") or {}).items() if k not in du.ANNOTATIONS_TO_SKIP}
    )
    return [
        {"op": "replace", "path": "/spec/template", "value": template},
        {"op": "replace", "path": "/metadata/annotations", "value": kept},
    ]


def _revision_replica_set(owned: Sequence[Obj], to_revision: int, name: str) -> Obj:
    if to_revision > 0:
        for rs in owned:
            if du.revision(rs) == to_revision:
                return rs
        raise RollbackError(f"unable to find specified revision {to_revision} in history")
    latest: Obj | None = None
    previous: Obj | None = None
    for rs in owned:
        rev = du.revision(rs) or 0
        if latest is None or rev > (du.revision(latest) or 0):
            previous, latest = latest, rs
        elif previous is None or rev > (du.revision(previous) or 0):
            previous = rs
    if previous is None:
        raise RollbackError(f'no rollout history found for deployment "{name}"')
    return previous


__all__ = [
    "SELECTING_ALL_TEXT",
    "RollbackError",
    "collision_status",
    "create_failed",
    "is_own_replica_set",
    "rollback_patch",
    "scaling_event",
    "sync_deployment",
]
