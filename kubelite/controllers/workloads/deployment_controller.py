"""The Deployment controller, over the API (kube's pkg/controller/deployment).

Shared informers on Deployments, ReplicaSets and pods. A ReplicaSet's change syncs the Deployment that
controls it (or, for an orphan, every Deployment whose selector matches it, so one can adopt it); a pod's
deletion syncs a Recreate Deployment once its last old pod is gone. A reconcile reads the Deployment and its
namespace's ReplicaSets and pods from the listers, asks `deployment.sync_deployment` for the plan, and
carries it out in order through the API as the controller manager's user, recording each event once the
writes before it succeeded. A write that fails stops the plan and the key is retried with backoff, as kube's
sync returns its error; creating the new ReplicaSet is the one write with answers of its own (a hash
collision bumps collisionCount; any other failure sets Progressing=False ReplicaSetCreateError).
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

from kubelite.apimachinery.meta import Obj, deep_copy
from kubelite.apimachinery.selectors import LabelSelector, SelectorError, label_selector_from_spec
from kubelite.client.cache.handlers import ResourceEventHandlerFuncs, deleted_object
from kubelite.client.cache.keys import meta_namespace_key, split_meta_namespace_key
from kubelite.client.cache.shared_informer import ResourceEventHandlerRegistration
from kubelite.client.cache.wait import wait_for_cache_sync
from kubelite.client.component import ComponentClient
from kubelite.client.controller import Controller
from kubelite.client.dynamic import ResourceClient
from kubelite.client.errors import AlreadyExists, ApiError, NotFound
from kubelite.controllers.workloads.actions import Action, Plan
from kubelite.controllers.workloads.controller_utils import owner_controller
from kubelite.controllers.workloads.deployment import (
    collision_status,
    create_failed,
    is_own_replica_set,
    sync_deployment,
)
from kubelite.controllers.workloads.replicaset_controller import (
    NAMESPACE_TERMINATING,
    PODS,
    SyncError,
    as_encoded,
    error_text,
    run_action,
)

log = logging.getLogger(__name__)

DEPLOYMENTS = ("apps", "v1", "deployments")
REPLICA_SETS = ("apps", "v1", "replicasets")
#: --concurrent-deployment-syncs
WORKERS = 5
COMPONENT = "deployment-controller"


def _meta(obj: Obj) -> dict[str, Any]:
    return obj.get("metadata") or {}


def _selector(d: Obj) -> LabelSelector:
    """A Deployment's selector; a missing, empty or invalid one selects nothing."""
    try:
        selector = label_selector_from_spec((d.get("spec") or {}).get("selector"))
    except (SelectorError, TypeError, ValueError, AttributeError):
        return LabelSelector.nothing()
    return LabelSelector.nothing() if selector.empty else selector


def _is_adoption(action: Action) -> bool:
    if action.verb != "patch" or action.resource != "replicasets":
        return False
    refs = ((action.obj or {}).get("metadata") or {}).get("ownerReferences") or []
    return any("$patch" not in ref for ref in refs)


class DeploymentController:
    def __init__(self, clients: ComponentClient, *, workers: int = WORKERS) -> None:
        self.clients = clients
        deployments = clients.informers.for_resource(DEPLOYMENTS)
        replica_sets = clients.informers.for_resource(REPLICA_SETS)
        pods = clients.informers.for_resource(PODS)
        self.deployments = deployments.lister
        self.replica_sets = replica_sets.lister
        self.pods = pods.lister
        self.clients_by_resource: dict[str, ResourceClient] = {
            "deployments": clients.resource(*DEPLOYMENTS),
            "replicasets": clients.resource(*REPLICA_SETS),
            "pods": clients.resource(*PODS),
        }
        self.recorder = clients.recorder(COMPONENT)
        self.controller = Controller("deployment", self.reconcile, workers=workers, clock=clients.clock)
        self._registrations: list[ResourceEventHandlerRegistration] = [
            deployments.informer.add_event_handler(
                ResourceEventHandlerFuncs(
                    add=self._enqueue, update=lambda old, new: self._enqueue(new), delete=self._delete_deployment
                )
            ),
            replica_sets.informer.add_event_handler(
                ResourceEventHandlerFuncs(add=self._add_rs, update=self._update_rs, delete=self._delete_rs)
            ),
            pods.informer.add_event_handler(ResourceEventHandlerFuncs(delete=self._delete_pod)),
        ]

    async def run(self) -> None:
        await wait_for_cache_sync(*(r.has_synced for r in self._registrations), clock=self.clients.clock)
        await self.controller.run()

    # -- mapping changes to Deployments ---------------------------------------------------------------------

    def _enqueue(self, d: Obj) -> None:
        self.controller.queue.add(meta_namespace_key(d))

    def _delete_deployment(self, obj: Any) -> None:
        d = deleted_object(obj)
        if d is not None:
            self._enqueue(d)

    def resolve(self, namespace: str, ref: Obj | None) -> Obj | None:
        if ref is None or ref.get("kind") != "Deployment":
            return None
        d = self.deployments.indexer.get_by_key(f"{namespace}/{ref.get('name', '')}")
        if d is None or _meta(d).get("uid") != ref.get("uid"):
            return None
        return d

    def deployments_selecting(self, rs: Obj) -> list[Obj]:
        labels = _meta(rs).get("labels") or {}
        namespace = _meta(rs).get("namespace", "")
        return [d for d in self.deployments.namespace(namespace).list() if _selector(d).matches(labels)]

    def _add_rs(self, rs: Obj) -> None:
        if _meta(rs).get("deletionTimestamp"):
            self._delete_rs(rs)
            return
        ref = owner_controller(rs)
        if ref is not None:
            d = self.resolve(_meta(rs).get("namespace", ""), ref)
            if d is not None:
                self._enqueue(d)
            return
        for d in self.deployments_selecting(rs):
            self._enqueue(d)

    def _update_rs(self, old: Obj, cur: Obj) -> None:
        if _meta(old).get("resourceVersion") == _meta(cur).get("resourceVersion"):
            return
        namespace = _meta(cur).get("namespace", "")
        cur_ref, old_ref = owner_controller(cur), owner_controller(old)
        ref_changed = cur_ref != old_ref
        if ref_changed and old_ref is not None:
            previous = self.resolve(namespace, old_ref)
            if previous is not None:
                self._enqueue(previous)
        if cur_ref is not None:
            d = self.resolve(namespace, cur_ref)
            if d is not None:
                self._enqueue(d)
            return
        labels_changed = (_meta(old).get("labels") or {}) != (_meta(cur).get("labels") or {})
        if labels_changed or ref_changed:
            for d in self.deployments_selecting(cur):
                self._enqueue(d)

    def _delete_rs(self, obj: Any) -> None:
        rs = deleted_object(obj)
        if rs is None:
            return
        d = self.resolve(_meta(rs).get("namespace", ""), owner_controller(rs))
        if d is not None:
            self._enqueue(d)

    def _delete_pod(self, obj: Any) -> None:
        """A Recreate Deployment waits for its old pods to be gone: sync it when its last one goes."""
        pod = deleted_object(obj)
        if pod is None:
            return
        namespace = _meta(pod).get("namespace", "")
        ref = owner_controller(pod)
        if ref is None or ref.get("kind") != "ReplicaSet":
            return
        rs = self.replica_sets.indexer.get_by_key(f"{namespace}/{ref.get('name', '')}")
        if rs is None or _meta(rs).get("uid") != ref.get("uid"):
            return
        d = self.resolve(namespace, owner_controller(rs))
        if d is None or ((d.get("spec") or {}).get("strategy") or {}).get("type") != "Recreate":
            return
        d_uid = _meta(d).get("uid")
        owned = {
            _meta(r).get("uid")
            for r in self.replica_sets.namespace(namespace).list()
            if (r_ref := owner_controller(r)) is not None and r_ref.get("uid") == d_uid
        }
        remaining = [
            p
            for p in self.pods.namespace(namespace).list()
            if (p_ref := owner_controller(p)) is not None and p_ref.get("uid") in owned
        ]
        if not remaining:
            self._enqueue(d)

    # -- the sync --------------------------------------------------------------------------------------------

    async def reconcile(self, key: str) -> float | None:
        d = self.deployments.indexer.get_by_key(key)
        if d is None:
            return None
        namespace, _ = split_meta_namespace_key(key)
        replica_sets = self.replica_sets.namespace(namespace).list()
        pods = self.pods.namespace(namespace).list()
        now = datetime.fromtimestamp(self.clients.clock.now(), tz=UTC)
        try:
            plan = sync_deployment(d, replica_sets, pods, now=now)
        except (SelectorError, TypeError, ValueError, KeyError) as exc:
            log.warning("deployment-controller: cannot sync %s: %s", key, exc)
            return None
        if any(_is_adoption(action) for action in plan.actions):
            await self._check_can_adopt(d)
        progress = [0]
        try:
            found_existing = await self._execute(d, plan, now, progress)
        finally:
            # what the writes that went through did is recorded, also when a later one failed
            for event in plan.events_after(progress[0]):
                self.recorder.event(d, event.type, event.reason, event.message)
        if found_existing:
            return 0.0  # the new ReplicaSet was found to exist already: sync again with it in view
        return plan.requeue_after

    async def _check_can_adopt(self, d: Obj) -> None:
        meta = _meta(d)
        fresh = await self.clients_by_resource["deployments"].namespace(meta.get("namespace")).get(meta["name"])
        fresh_meta = _meta(fresh)
        if fresh_meta.get("uid") != meta.get("uid"):
            raise SyncError(
                f"original Deployment {meta.get('namespace')}/{meta['name']} is gone: "
                f"got uid {fresh_meta.get('uid')}, wanted {meta.get('uid')}"
            )
        if fresh_meta.get("deletionTimestamp"):
            raise SyncError(
                f"{meta.get('namespace')}/{meta['name']} has just been deleted at {fresh_meta['deletionTimestamp']}"
            )

    async def _execute(self, d: Obj, plan: Plan, now: datetime, progress: list[int]) -> bool:
        """Run the plan's writes in order, counting those that succeeded in `progress[0]`. Stops early (True)
        when the new ReplicaSet is found to exist already; any other failure is raised after what kube does
        about it."""
        #: the resourceVersion our own writes left on an object, so a later write of the same plan builds on it
        versions: dict[tuple[str, str], str] = {}
        for index, action in enumerate(plan.actions):
            client = self.clients_by_resource[action.resource]
            if action.verb in ("update", "update_status") and (action.resource, action.name) in versions:
                body = deep_copy(action.obj)
                body["metadata"]["resourceVersion"] = versions[(action.resource, action.name)]
                action = Action(action.verb, action.resource, action.namespace, action.name, body)
            try:
                result = await run_action(client, action)
            except NotFound:
                if action.verb in ("delete", "patch"):
                    progress[0] = index + 1
                    continue  # already gone: nothing to clean up, adopt or release
                raise
            except AlreadyExists:
                if action.verb == "create" and action.resource == "replicasets":
                    await self._replica_set_exists(d, action)
                    return True
                raise
            except ApiError as exc:
                if action.verb == "create" and action.resource == "replicasets":
                    await self._replica_set_create_failed(d, action, exc, now)
                raise
            meta = result.get("metadata")
            if isinstance(meta, dict) and meta.get("resourceVersion") and action.verb != "delete":
                versions[(action.resource, action.name)] = meta["resourceVersion"]
            progress[0] = index + 1
        return False

    async def _replica_set_exists(self, d: Obj, action: Action) -> None:
        """AlreadyExists on the new ReplicaSet: ours after all (a stale cache), or a hash collision."""
        existing = self.replica_sets.indexer.get_by_key(f"{action.namespace}/{action.name}")
        if existing is None:
            raise SyncError(f'replicaset.apps "{action.name}" not found')
        if is_own_replica_set(d, existing):
            return
        try:
            await self.clients_by_resource["deployments"].update_status(as_encoded("deployments", collision_status(d)))
        except ApiError as exc:
            log.info("deployment-controller: bumping collisionCount of %s failed: %s", meta_namespace_key(d), exc)
        raise SyncError(f'replicasets.apps "{action.name}" already exists')

    async def _replica_set_create_failed(self, d: Obj, action: Action, exc: ApiError, now: datetime) -> None:
        if exc.has_cause(NAMESPACE_TERMINATING):
            return
        updated, event = create_failed(d, action.name, error_text(exc), now)
        if updated is not None:
            try:
                await self.clients_by_resource["deployments"].update_status(as_encoded("deployments", updated))
            except ApiError as status_exc:
                log.info("deployment-controller: status of %s: %s", meta_namespace_key(d), status_exc)
        self.recorder.event(d, event.type, event.reason, event.message)


def build_deployment_controller(clients: ComponentClient) -> DeploymentController:
    return DeploymentController(clients)


__all__ = ["COMPONENT", "DeploymentController", "build_deployment_controller"]
