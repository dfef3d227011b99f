"""Options the handlers parse from a request and the registry acts on (kube's metav1 ListOptions,
CreateOptions, UpdateOptions, PatchOptions and DeleteOptions, reduced to what kubelite uses)."""

from __future__ import annotations

from dataclasses import dataclass

from kubelite.apimachinery.selectors import FieldSelector, LabelSelector


@dataclass(frozen=True, slots=True)
class ListParams:
    label_selector: LabelSelector | None = None
    field_selector: FieldSelector | None = None
    #: None = unset (a consistent read); "0" = any; otherwise a revision
    resource_version: str | None = None
    resource_version_match: str | None = None
    limit: int = 0
    continue_token: str | None = None
    # watch only
    allow_watch_bookmarks: bool = False
    send_initial_events: bool | None = None
    timeout_seconds: int | None = None


@dataclass(frozen=True, slots=True)
class WriteParams:
    dry_run: bool = False
    field_manager: str = ""


@dataclass(frozen=True, slots=True)
class DeleteParams:
    dry_run: bool = False
    grace_period_seconds: int | None = None
    precondition_uid: str | None = None
    precondition_resource_version: str | None = None
    propagation_policy: str | None = None
    orphan_dependents: bool | None = None
