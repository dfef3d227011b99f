"""Which volume a claim binds to (kube's FindMatchingVolume and the binder's access-mode index).

A volume pre-bound to the claim (its claimRef names the claim) is taken whenever it is big enough; any other
candidate must be Available and unclaimed, not being deleted, of the claim's class and volume mode, carry
every access mode the claim asks for, match its selector, and hold at least the requested storage. Of those,
the volumes with the fewest access modes are tried first and the smallest of them wins, so a claim never
takes a bigger (or more capable) volume than it needs.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kubelite.apimachinery.meta import Obj
from kubelite.apimachinery.quantity import Quantity, QuantityError, quantity_from_json
from kubelite.apimachinery.selectors import label_selector_from_spec
from kubelite.controllers.volume.names import claim_class, spec, volume_class


def storage_of(resources: Any) -> Quantity | None:
    """The `storage` entry of a capacity or requests map, None when absent or unreadable."""
    if not isinstance(resources, dict) or "storage" not in resources:
        return None
    try:
        return quantity_from_json(resources["storage"])
    except QuantityError:
        return None


def requested_storage(claim: Obj) -> Quantity | None:
    return storage_of((spec(claim).get("resources") or {}).get("requests"))


def volume_capacity(volume: Obj) -> Quantity | None:
    return storage_of(spec(volume).get("capacity"))


def is_bound_to(volume: Obj, claim: Obj) -> bool:
    """IsVolumeBoundToClaim: the claimRef names the claim, with its uid or (pre-bound) none."""
    ref = spec(volume).get("claimRef")
    if not isinstance(ref, dict):
        return False
    meta = claim.get("metadata") or {}
    if ref.get("name") != meta.get("name") or (ref.get("namespace") or "") != meta.get("namespace"):
        return False
    return not ref.get("uid") or ref.get("uid") == meta.get("uid")


def _volume_mode(obj: Obj) -> str:
    return spec(obj).get("volumeMode") or "Filesystem"


def _has_modes(volume: Obj, wanted: Iterable[str]) -> bool:
    offered = set(spec(volume).get("accessModes") or [])
    return all(mode in offered for mode in wanted)


def find_best_match(claim: Obj, volumes: Iterable[Obj], *, delay_binding: bool = False) -> Obj | None:
    """The volume `claim` should bind to, or None. With `delay_binding` (a WaitForFirstConsumer class whose
    claim has no node yet) only a volume pre-bound to the claim is taken: the others wait for the node."""
    requested = requested_storage(claim)
    if requested is None:
        return None
    wanted_modes = list(spec(claim).get("accessModes") or [])
    wanted_class = claim_class(claim)
    raw_selector = spec(claim).get("selector")
    try:
        selector = label_selector_from_spec(raw_selector) if raw_selector is not None else None
    except ValueError:
        return None
    best: tuple[int, Quantity, str] | None = None
    chosen: Obj | None = None
    for volume in volumes:
        capacity = volume_capacity(volume)
        if capacity is None or _volume_mode(volume) != _volume_mode(claim):
            continue
        meta = volume.get("metadata") or {}
        if is_bound_to(volume, claim):
            if capacity < requested or meta.get("deletionTimestamp"):
                continue
            return volume
        if delay_binding:
            continue
        if spec(volume).get("claimRef") is not None or meta.get("deletionTimestamp"):
            continue
        # volumes not yet Available are about to be: binding them now would race the phase update
        if (volume.get("status") or {}).get("phase") != "Available":
            continue
        if selector is not None and not selector.matches(meta.get("labels") or {}):
            continue
        if volume_class(volume) != wanted_class or not _has_modes(volume, wanted_modes) or capacity < requested:
            continue
        rank = (len(spec(volume).get("accessModes") or []), capacity, str(meta.get("name", "")))
        if best is None or _before(rank, best):
            best, chosen = rank, volume
    return chosen


def _before(rank: tuple[int, Quantity, str], other: tuple[int, Quantity, str]) -> bool:
    """Fewer access modes first, then less capacity, then the name (so the choice does not hang on order)."""
    if rank[0] != other[0]:
        return rank[0] < other[0]
    order = rank[1].cmp(other[1])
    return order < 0 if order else rank[2] < other[2]
