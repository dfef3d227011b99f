"""One sync of a StatefulSet (kube's stateful_set_control.go and stateful_pod_control.go).

kube's sync interleaves decisions and writes: it creates the update revision before it can build pods at
it, it stops at the first pod it must wait for, it counts a deletion into the status only once the delete
went through. So this module keeps kube's shape, an async `StatefulSetControl.update_stateful_set`, but does
no I/O of its own: it reads caches and writes through an `Objects` it is given (the loop's HTTP one, or a
test's in-memory one) and records events through a callback.

The order is kube's: revisions (current and update, maybe a new one or a renumbered one for a rollback),
then each member in ordinal order (recreate a failed one, create a missing one with its claims, wait for it
to be Running, Ready and Available under OrderedReady), then the condemned members past the replicas,
highest ordinal first, then the rolling update (highest ordinal first, down to the partition, at most
maxUnavailable members down at a time: MaxUnavailableStatefulSet is beta and on in 1.36), then the status,
then the history beyond revisionHistoryLimit.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from typing import Any, Protocol

from kubelite.apimachinery.meta import Obj, deep_copy
from kubelite.client.errors import AlreadyExists, Conflict, NotFound
from kubelite.controllers.statefulset import claims as claim_policy
from kubelite.controllers.statefulset import history
from kubelite.controllers.statefulset.identity import (
    allows_burst,
    by_descending_ordinal,
    claim_name,
    claim_templates,
    identity_matches,
    in_ordinal_range,
    is_created,
    is_failed,
    is_pending,
    is_running_and_available,
    is_running_and_ready,
    is_succeeded,
    is_terminating,
    is_unavailable,
    member_claims,
    min_ready_seconds,
    new_versioned_pod,
    ordinal_of,
    pod_revision,
    replicas_of,
    start_ordinal,
    storage_matches,
    update_identity,
    update_storage,
    update_strategy,
)
from kubelite.controllers.workloads.controller_utils import slow_start_batches
from kubelite.controllers.workloads.deployment_util import scaled_value

log = logging.getLogger(__name__)

#: the most writes one parallel batch issues (MaxBatchSize)
MAX_BATCH = 500
#: attempts of a write that meets a conflict (retry.DefaultBackoff's steps) and of a revision name
CONFLICT_ATTEMPTS = 4
STATUS_ATTEMPTS = 5
COLLISION_ATTEMPTS = 100


class Objects(Protocol):
    """What a sync reads (caches) and writes (the API)."""

    def get_claim(self, namespace: str, name: str) -> Obj | None: ...

    def get_pod(self, namespace: str, name: str) -> Obj | None: ...

    def get_set(self, namespace: str, name: str) -> Obj | None: ...

    async def create_pod(self, pod: Obj) -> Obj: ...

    async def update_pod(self, pod: Obj) -> Obj: ...

    async def delete_pod(self, pod: Obj) -> None: ...

    async def create_claim(self, claim: Obj) -> Obj: ...

    async def update_claim(self, claim: Obj) -> Obj: ...

    async def create_revision(self, revision: Obj) -> Obj: ...

    async def get_revision(self, namespace: str, name: str) -> Obj: ...

    async def update_revision(self, revision: Obj) -> Obj: ...

    async def delete_revision(self, revision: Obj) -> None: ...

    async def update_status(self, sts: Obj) -> Obj: ...


#: record(set, type, reason, message)
Recorder = Callable[[Obj, str, str, str], None]


class AggregateError(Exception):
    """utilerrors.NewAggregate: one error's text, or `[a, b]` for several."""

    def __init__(self, errors: Sequence[BaseException]) -> None:
        self.errors = list(errors)
        text = str(self.errors[0]) if len(self.errors) == 1 else "[" + ", ".join(str(e) for e in self.errors) + "]"
        super().__init__(text)


def aggregate(errors: Sequence[BaseException]) -> BaseException | None:
    if not errors:
        return None
    return errors[0] if len(errors) == 1 else AggregateError(errors)


def _meta(obj: Obj) -> dict[str, Any]:
    return obj.get("metadata") or {}


def _name(obj: Obj) -> str:
    return str(_meta(obj).get("name", ""))


def _namespace(obj: Obj) -> str:
    return str(_meta(obj).get("namespace", ""))


# -- status ----------------------------------------------------------------------------------------------


def replica_counts(pods: Sequence[Obj], mrs: int, current: str, update: str, now: datetime) -> dict[str, int]:
    counts = {"replicas": 0, "readyReplicas": 0, "availableReplicas": 0, "currentReplicas": 0, "updatedReplicas": 0}
    for pod in pods:
        if is_created(pod):
            counts["replicas"] += 1
        if is_running_and_ready(pod):
            counts["readyReplicas"] += 1
            if is_running_and_available(pod, mrs, now):
                counts["availableReplicas"] += 1
        if is_created(pod) and not is_terminating(pod):
            revision = pod_revision(pod)
            if revision == current:
                counts["currentReplicas"] += 1
            if revision == update:
                counts["updatedReplicas"] += 1
    return counts


def complete_rolling_update(sts: Obj, status: dict[str, Any]) -> None:
    """A rolling update whose every member is updated and ready is done: the update revision is current."""
    replicas = replicas_of(sts)
    if (
        update_strategy(sts) == "RollingUpdate"
        and status["updatedReplicas"] == replicas
        and status["readyReplicas"] == replicas
        and status["replicas"] == replicas
    ):
        status["currentReplicas"] = status["updatedReplicas"]
        status["currentRevision"] = status["updateRevision"]


def inconsistent_status(sts: Obj, status: dict[str, Any]) -> bool:
    old = sts.get("status") or {}
    if int(status.get("observedGeneration") or 0) > int(old.get("observedGeneration") or 0):
        return True
    for field in ("replicas", "currentReplicas", "readyReplicas", "updatedReplicas", "availableReplicas"):
        if int(status.get(field) or 0) != int(old.get(field) or 0):
            return True
    return any(str(status.get(f) or "") != str(old.get(f) or "") for f in ("currentRevision", "updateRevision"))


def status_object(status: dict[str, Any]) -> Obj:
    """The status as the API writes it: the omitempty fields only when set, replicas and
    availableReplicas always, the collision count always (the controller always has one)."""
    out: Obj = {}
    if status.get("observedGeneration"):
        out["observedGeneration"] = status["observedGeneration"]
    out["replicas"] = status["replicas"]
    for field in ("readyReplicas", "currentReplicas", "updatedReplicas"):
        if status.get(field):
            out[field] = status[field]
    for field in ("currentRevision", "updateRevision"):
        if status.get(field):
            out[field] = status[field]
    out["collisionCount"] = status.get("collisionCount", 0)
    out["availableReplicas"] = status["availableReplicas"]
    return out


def max_unavailable(sts: Obj, replica_count: int) -> int:
    """getStatefulSetMaxUnavailable: 1 unless set, a percentage rounded down, never below 1."""
    rolling = ((sts.get("spec") or {}).get("updateStrategy") or {}).get("rollingUpdate") or {}
    raw = rolling.get("maxUnavailable")
    value = scaled_value(1 if raw is None else raw, replica_count, False)
    return max(value, 1)


def _partition(sts: Obj) -> int | None:
    rolling = ((sts.get("spec") or {}).get("updateStrategy") or {}).get("rollingUpdate")
    if not isinstance(rolling, dict):
        return None
    value = rolling.get("partition")
    return int(value) if isinstance(value, int) else 0


# -- the sync --------------------------------------------------------------------------------------------


class StatefulSetControl:
    def __init__(self, objects: Objects, record: Recorder, now: Callable[[], datetime]) -> None:
        self.objects = objects
        self.record = record
        self.now = now

    async def update_stateful_set(self, sts: Obj, pods: Sequence[Obj], revisions: Sequence[Obj]) -> Obj | None:
        """UpdateStatefulSet: returns the status written (or that needed no write); raises what failed,
        after the history is truncated all the same."""
        sts = deep_copy(sts)
        ordered = history.sort_revisions(revisions)
        current: Obj | None = None
        update: Obj | None = None
        status: Obj | None = None
        failure: BaseException | None = None
        try:
            current, update, status = await self._perform_update(sts, pods, ordered)
        except Exception as exc:  # kube aggregates it with the truncation's error
            failure = exc
        try:
            await self._truncate_history(sts, pods, ordered, current, update)
        except Exception as exc:
            failure = aggregate([e for e in (failure, exc) if e is not None])
        if failure is not None:
            raise failure
        return status

    async def _perform_update(self, sts: Obj, pods: Sequence[Obj], revisions: list[Obj]) -> tuple[Obj, Obj, Obj | None]:
        current, update, collision_count = await self._revisions(sts, revisions)
        status, error = await self._update(sts, current, update, collision_count, pods)
        if error is not None and status is None:
            raise error
        assert status is not None
        try:
            written = await self._write_status(sts, status)
        except Exception as status_error:
            if error is not None:
                log.warning("could not update the status of StatefulSet %s: %s", _name(sts), status_error)
                raise error from None
            raise
        if error is not None:
            raise error
        return current, update, written

    # -- revisions ---------------------------------------------------------------------------------------

    async def _revisions(self, sts: Obj, revisions: list[Obj]) -> tuple[Obj, Obj, int]:
        """getStatefulSetRevisions: (current, update, collision count)."""
        collision_count = int((sts.get("status") or {}).get("collisionCount") or 0)
        candidate = history.new_revision(sts, history.next_revision(revisions), collision_count)
        equal = history.find_equal_revisions(revisions, candidate)
        if equal and history.equal_revision(revisions[-1], equal[-1]):
            update = revisions[-1]  # the template has not changed
        elif equal:
            update = await self._renumber(equal[-1], int(candidate["revision"]))  # a rollback
        else:
            update, collision_count = await self._create_revision(sts, candidate, collision_count)
        wanted = (sts.get("status") or {}).get("currentRevision")
        current = next((r for r in revisions if _name(r) == wanted), None)
        return current or update, update, collision_count

    async def _create_revision(self, sts: Obj, revision: Obj, collision_count: int) -> tuple[Obj, int]:
        """CreateControllerRevision: on a name taken by other data, count a collision and try the next name."""
        data = history.revision_data(revision)
        for _ in range(COLLISION_ATTEMPTS):
            clone = history.renamed(revision, sts, collision_count)
            try:
                return await self.objects.create_revision(clone), collision_count
            except AlreadyExists:
                exists = await self.objects.get_revision(_namespace(sts), _name(clone))
                if history.revision_data(exists) == data:
                    return exists, collision_count
                collision_count += 1
        raise RuntimeError(f"no free ControllerRevision name for StatefulSet {_name(sts)}")

    async def _renumber(self, revision: Obj, number: int) -> Obj:
        """UpdateControllerRevision, retrying on conflict with a fresh read."""
        clone = deep_copy(revision)
        for attempt in range(CONFLICT_ATTEMPTS):
            if clone.get("revision") == number:
                return clone
            clone["revision"] = number
            try:
                return await self.objects.update_revision(clone)
            except Conflict:
                if attempt == CONFLICT_ATTEMPTS - 1:
                    raise
                clone = deep_copy(await self.objects.get_revision(_namespace(clone), _name(clone)))
        return clone

    async def _truncate_history(
        self, sts: Obj, pods: Sequence[Obj], revisions: list[Obj], current: Obj | None, update: Obj | None
    ) -> None:
        doomed = history.history_to_truncate(sts, [pod_revision(p) for p in pods], revisions, current, update)
        for revision in doomed:
            await self.objects.delete_revision(revision)

    # -- the members -------------------------------------------------------------------------------------

    async def _update(
        self, sts: Obj, current: Obj, update: Obj, collision_count: int, pods: Sequence[Obj]
    ) -> tuple[Obj | None, BaseException | None]:
        """updateStatefulSet: (the status to write, the error that stopped the sync)."""
        current_set = history.apply_revision(sts, current)
        update_set = history.apply_revision(sts, update)
        mrs = min_ready_seconds(sts)
        now = self.now()
        status: dict[str, Any] = {
            "observedGeneration": _meta(sts).get("generation") or 0,
            "currentRevision": _name(current),
            "updateRevision": _name(update),
            "collisionCount": collision_count,
        }

        def recount(*lists: Sequence[Obj]) -> None:
            for key in ("replicas", "readyReplicas", "availableReplicas", "currentReplicas", "updatedReplicas"):
                status[key] = 0
            for pods_ in lists:
                for key, value in replica_counts(pods_, mrs, _name(current), _name(update), now).items():
                    status[key] += value

        recount(pods)
        start = start_ordinal(sts)
        count = replicas_of(sts)
        slots: list[Obj | None] = [None] * max(count, 0)
        condemned: list[Obj] = []
        for pod in pods:
            if in_ordinal_range(pod, sts):
                slots[ordinal_of(pod) - start] = pod
            elif ordinal_of(pod) >= 0:
                condemned.append(pod)
        replicas: list[Obj] = [
            pod
            if pod is not None
            else new_versioned_pod(current_set, update_set, _name(current), _name(update), i + start)
            for i, pod in enumerate(slots)
        ]
        condemned = by_descending_ordinal(condemned)
        first_unavailable: Obj | None = None
        for pod in [*replicas, *reversed(condemned)]:
            if is_unavailable(pod, mrs, now):
                first_unavailable = pod
                break

        if _meta(sts).get("deletionTimestamp"):
            return status, None
        monotonic = not allows_burst(sts)

        async def process_replica(i: int) -> bool:
            return await self._process_replica(sts, update_set, monotonic, replicas, i, now)

        async def fix_claims(i: int) -> bool:
            if not self._claims_match_retention(update_set, condemned[i]):
                await self._update_claims_for_retention(update_set, condemned[i])
            return False

        async def process_condemned(i: int) -> bool:
            return await self._process_condemned(sts, first_unavailable, monotonic, condemned, i, now)

        for members, step in ((replicas, process_replica), (condemned, fix_claims), (condemned, process_condemned)):
            stop, error = await run_for_all(len(members), step, monotonic)
            if stop or error is not None:
                recount(replicas, condemned)
                return status, error
        recount(replicas, condemned)

        if update_strategy(sts) == "OnDelete":
            return status, None  # members are updated as they are deleted by hand
        return status, await self._rolling_update(sts, replicas, update, status, now)

    async def _rolling_update(
        self, sts: Obj, replicas: list[Obj], update: Obj, status: dict[str, Any], now: datetime
    ) -> BaseException | None:
        """updateStatefulSetAfterInvariantEstablished: delete outdated members from the highest ordinal down
        to the partition, so that at most maxUnavailable are unavailable."""
        mrs = min_ready_seconds(sts)
        update_min = _partition(sts) or 0
        try:
            allowed = max_unavailable(sts, replicas_of(sts)) if _partition(sts) is not None else 1
        except ValueError as exc:
            return exc
        unavailable = sum(1 for pod in replicas if is_unavailable(pod, mrs, now))
        if unavailable > allowed:
            return None
        to_delete = allowed - unavailable
        deleted = 0
        target = len(replicas) - 1
        while target >= update_min and deleted < to_delete:
            pod = replicas[target]
            if pod_revision(pod) != _name(update) and not is_terminating(pod):
                try:
                    await self._delete_pod(sts, pod)
                except NotFound:
                    pass
                except Exception as exc:  # the sync's error, after the status is written
                    return exc
                deleted += 1
                status["currentReplicas"] -= 1
            target -= 1
        return None

    async def _process_replica(
        self, sts: Obj, update_set: Obj, monotonic: bool, replicas: list[Obj], i: int, now: datetime
    ) -> bool:
        pod = replicas[i]
        if is_failed(pod) or is_succeeded(pod):
            # a finished member is recreated (evicted or stopped pods end Succeeded as often as Failed)
            if not is_terminating(pod):
                await self._delete_pod(sts, pod)
            return True
        if not is_created(pod):
            if self._claim_is_stale(sts, pod):
                return True  # a deleted predecessor's claim: wait for the garbage collector
            await self._create_pod(sts, pod)
            if monotonic:
                return True
        if is_pending(pod):
            await self._create_missing_claims(sts, pod)
        if is_terminating(pod) and monotonic:
            return True
        if not is_running_and_ready(pod) and monotonic:
            return True
        if not is_running_and_available(pod, min_ready_seconds(sts), now) and monotonic:
            return True
        retention_match = self._claims_match_retention(update_set, pod)
        if identity_matches(sts, pod) and storage_matches(sts, pod) and retention_match:
            return False
        await self._update_pod(update_set, deep_copy(pod))
        return False

    async def _process_condemned(
        self,
        sts: Obj,
        first_unavailable: Obj | None,
        monotonic: bool,
        condemned: list[Obj],
        i: int,
        now: datetime,
    ) -> bool:
        pod = condemned[i]
        if is_terminating(pod):
            return monotonic  # OrderedReady waits for it to go
        if monotonic and pod is not first_unavailable:
            if not is_running_and_ready(pod) or not is_running_and_available(pod, min_ready_seconds(sts), now):
                return True
        await self._delete_pod(sts, pod)
        return True

    # -- pods and claims (StatefulPodControl) ------------------------------------------------------------

    def _pod_event(self, verb: str, sts: Obj, pod: Obj, error: BaseException | None) -> None:
        if error is None:
            self.record(
                sts,
                "Normal",
                f"Successful{verb.title()}",
                f"{verb} Pod {_name(pod)} in StatefulSet {_name(sts)} successful",
            )
        else:
            self.record(
                sts,
                "Warning",
                f"Failed{verb.title()}",
                f"{verb} Pod {_name(pod)} in StatefulSet {_name(sts)} failed error: {error}",
            )

    def _claim_event(self, verb: str, sts: Obj, pod: Obj, claim: Obj, error: BaseException | None) -> None:
        if error is None:
            message = f"{verb} Claim {_name(claim)} Pod {_name(pod)} in StatefulSet {_name(sts)} success"
            self.record(sts, "Normal", f"Successful{verb.title()}", message)
        else:
            message = (
                f"{verb} Claim {_name(claim)} for Pod {_name(pod)} in StatefulSet {_name(sts)} failed error: {error}"
            )
            self.record(sts, "Warning", f"Failed{verb.title()}", message)

    async def _create_pod(self, sts: Obj, pod: Obj) -> None:
        """CreateStatefulPod: the claims first, then the pod, then the claims' owners."""
        try:
            await self._create_claims(sts, pod)
        except Exception as exc:
            self._pod_event("create", sts, pod, exc)
            raise
        try:
            await self.objects.create_pod(pod)
        except AlreadyExists:
            raise
        except Exception as exc:
            self._pod_event("create", sts, pod, exc)
            raise
        try:
            await self._update_claims_for_retention(sts, pod)
        except Exception as exc:
            self._pod_event("update", sts, pod, exc)
            raise
        self._pod_event("create", sts, pod, None)

    async def _update_pod(self, sts: Obj, pod: Obj) -> None:
        """UpdateStatefulPod: restore the member's identity, storage and claim owners, retrying conflicts."""
        attempted = False
        error: BaseException | None = None
        for attempt in range(CONFLICT_ATTEMPTS):
            consistent = True
            if not identity_matches(sts, pod):
                update_identity(sts, pod)
                consistent = False
            if not storage_matches(sts, pod):
                update_storage(sts, pod)
                consistent = False
                try:
                    await self._create_claims(sts, pod)
                except Exception as exc:
                    self._pod_event("update", sts, pod, exc)
                    raise
            if not self._claims_match_retention(sts, pod):
                try:
                    await self._update_claims_for_retention(sts, pod)
                except Exception as exc:
                    self._pod_event("update", sts, pod, exc)
                    raise
                consistent = False
            if consistent:
                error = None
                break
            attempted = True
            try:
                await self.objects.update_pod(pod)
                error = None
                break
            except Conflict as exc:
                error = exc
                fresh = self.objects.get_pod(_namespace(sts), _name(pod))
                if fresh is not None:
                    pod = deep_copy(fresh)
                if attempt == CONFLICT_ATTEMPTS - 1:
                    break
            except Exception as exc:  # only conflicts are retried
                error = exc
                break
        if attempted:
            self._pod_event("update", sts, pod, error)
        if error is not None:
            raise error

    async def _delete_pod(self, sts: Obj, pod: Obj) -> None:
        try:
            await self.objects.delete_pod(pod)
        except Exception as exc:
            self._pod_event("delete", sts, pod, exc)
            raise
        self._pod_event("delete", sts, pod, None)

    async def _create_claims(self, sts: Obj, pod: Obj) -> None:
        """createPersistentVolumeClaims: every missing claim of the member; one being deleted is an error."""
        errors: list[BaseException] = []
        for _, claim in member_claims(sts, pod):
            existing = self.objects.get_claim(_namespace(claim), _name(claim))
            if existing is None:
                try:
                    await self.objects.create_claim(claim)
                except AlreadyExists as exc:
                    errors.append(RuntimeError(f"failed to create PVC {_name(claim)}: {exc}"))
                except Exception as exc:  # aggregated, as kube does
                    errors.append(RuntimeError(f"failed to create PVC {_name(claim)}: {exc}"))
                    self._claim_event("create", sts, pod, claim, exc)
                else:
                    self._claim_event("create", sts, pod, claim, None)
            elif _meta(existing).get("deletionTimestamp"):
                errors.append(RuntimeError(f"pvc {_name(claim)} is being deleted"))
        failure = aggregate(errors)
        if failure is not None:
            raise failure

    async def _create_missing_claims(self, sts: Obj, pod: Obj) -> None:
        await self._create_claims(sts, pod)
        try:
            await self._update_claims_for_retention(sts, pod)
        except Exception as exc:
            self._pod_event("update", sts, pod, exc)
            raise

    def _member_claims_found(self, sts: Obj, pod: Obj) -> list[Obj]:
        ordinal = ordinal_of(pod)
        found = []
        for template in claim_templates(sts):
            claim = self.objects.get_claim(_namespace(sts), claim_name(sts, template, ordinal))
            if claim is not None:
                found.append(claim)
        return found

    def _claims_match_retention(self, sts: Obj, pod: Obj) -> bool:
        """ClaimsMatchRetentionPolicy: claims not made yet are picked up by a later sync."""
        return all(claim_policy.claim_owner_up_to_date(c, sts, pod) for c in self._member_claims_found(sts, pod))

    async def _update_claims_for_retention(self, sts: Obj, pod: Obj) -> None:
        """UpdatePodClaimForRetentionPolicy."""
        for claim in self._member_claims_found(sts, pod):
            if claim_policy.claim_owner_up_to_date(claim, sts, pod):
                continue
            try:
                await self.objects.update_claim(claim_policy.updated_claim_owners(claim, sts, pod))
            except Exception as exc:
                raise RuntimeError(f"Could not update claim {_name(claim)} for delete policy ownerRefs: {exc}") from exc

    def _claim_is_stale(self, sts: Obj, pod: Obj) -> bool:
        for _, claim in member_claims(sts, pod):
            existing = self.objects.get_claim(_namespace(claim), _name(claim))
            if existing is not None and claim_policy.claim_is_stale(existing, sts, pod):
                return True
        return False

    # -- status ------------------------------------------------------------------------------------------

    async def _write_status(self, sts: Obj, status: dict[str, Any]) -> Obj:
        """updateStatefulSetStatus: complete a finished rolling update, write only what changed, retry
        conflicts on the cached set."""
        complete_rolling_update(sts, status)
        body = status_object(status)
        if not inconsistent_status(sts, status):
            return body
        target = deep_copy(sts)
        for attempt in range(STATUS_ATTEMPTS):
            target["status"] = body
            try:
                await self.objects.update_status(target)
                return body
            except Conflict:
                if attempt == STATUS_ATTEMPTS - 1:
                    raise
                fresh = self.objects.get_set(_namespace(sts), _name(sts))
                if fresh is not None:
                    target = deep_copy(fresh)
        return body


async def run_for_all(
    count: int, step: Callable[[int], Awaitable[bool]], monotonic: bool
) -> tuple[bool, BaseException | None]:
    """runForAll: in order, stopping at the first step that asks to (OrderedReady); or every step in
    slow-start batches (Parallel), stopping after a batch that failed."""
    if monotonic:
        for i in range(count):
            try:
                if await step(i):
                    return True, None
            except Exception as exc:  # handed back as the sync's error
                return True, exc
        return False, None
    done = 0
    for size in slow_start_batches(count):
        for chunk_start in range(done, done + size, MAX_BATCH):
            chunk = range(chunk_start, min(chunk_start + MAX_BATCH, done + size))
            results = await asyncio.gather(*(step(i) for i in chunk), return_exceptions=True)
            errors = [r for r in results if isinstance(r, BaseException)]
            if errors:
                return True, aggregate(errors)
        done += size
    return False, None
