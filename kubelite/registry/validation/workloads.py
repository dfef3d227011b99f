"""Workload controllers (kube's apps and batch validation, and the core ReplicationController): selectors
that must match their pod template's labels, replica counts and history limits, rollout strategies, the
restart policies each kind allows for its pods, and what may not change on update (apps/v1 selectors, a
Job's selector and template, most of a StatefulSet's spec).
"""

from __future__ import annotations

import re
from typing import Any, Final
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from kubelite.apimachinery.validation import FieldError, is_dns1123_label, validate_annotations, validate_labels
from kubelite.registry.validation import badvalues
from kubelite.registry.validation.common import (
    immutable,
    int_or_percent_value,
    integer,
    label_selector,
    mapping,
    maybe_mapping,
    nonnegative,
    not_more_than_100_percent,
    positive_int_or_percent,
    present,
    selector_is_empty,
    selector_matches,
    semantic_equal,
    string_map,
    text,
)
from kubelite.registry.validation.cron import schedule_error
from kubelite.registry.validation.pods import pod_specific_annotations, validate_pod_template_spec

SELECTOR_MISMATCH: Final = "`selector` does not match template `labels`"
JOB_RESTART_POLICIES: Final = ("OnFailure", "Never")
CONCURRENCY_POLICIES: Final = ("Allow", "Forbid", "Replace")
CRONJOB_NAME_MAX: Final = 52


def _template(spec: dict[str, Any]) -> dict[str, Any]:
    return mapping(spec, "template")


def template_labels(spec: dict[str, Any]) -> dict[str, str]:
    return string_map(mapping(_template(spec), "metadata"), "labels")


def _mismatch(spec: dict[str, Any], path: str) -> FieldError:
    raw = mapping(_template(spec), "metadata").get("labels")
    return FieldError.invalid(f"{path}.metadata.labels", badvalues.string_map(raw), SELECTOR_MISMATCH)


def _restart_always(spec: dict[str, Any], path: str) -> list[FieldError]:
    policy = text(mapping(_template(spec), "spec"), "restartPolicy")
    if policy != "Always":
        return [FieldError.not_supported(f"{path}.spec.restartPolicy", policy, ["Always"])]
    return []


def _no_deadline(spec: dict[str, Any], path: str, kind: str) -> list[FieldError]:
    if present(mapping(_template(spec), "spec"), "activeDeadlineSeconds"):
        return [
            FieldError.forbidden(
                f"{path}.spec.activeDeadlineSeconds", f"activeDeadlineSeconds in {kind} is not Supported"
            )
        ]
    return []


def _selector(spec: dict[str, Any], kind: str, required: bool = True) -> list[FieldError]:
    """The selector checks apps kinds share: present, valid, and not empty."""
    selector = spec.get("selector")
    if not isinstance(selector, dict):
        return [FieldError.required("spec.selector", "")] if required else []
    errs = label_selector(selector, "spec.selector")
    if selector_is_empty(selector):
        errs.append(
            FieldError.invalid(
                "spec.selector", badvalues.label_selector(selector), f"empty selector is invalid for {kind}"
            )
        )
    return errs


def _replica_set_template(spec: dict[str, Any], kind: str) -> list[FieldError]:
    """ValidatePodTemplateSpecForReplicaSet (and the matching steps for Deployments)."""
    path = "spec.template"
    if not isinstance(spec.get("template"), dict):
        return [FieldError.required(path, "")]
    errs: list[FieldError] = []
    selector = spec.get("selector")
    if not selector_is_empty(selector) and selector_matches(selector, template_labels(spec)) is False:
        errs.append(_mismatch(spec, path))
    errs.extend(validate_pod_template_spec(_template(spec), path))
    errs.extend(_restart_always(spec, path))
    errs.extend(_no_deadline(spec, path, kind))
    return errs


def _selector_template(spec: dict[str, Any], kind: str) -> list[FieldError]:
    if selector_matches(spec.get("selector"), {}) is None:
        return [
            FieldError.invalid(
                "spec.selector", badvalues.label_selector(spec.get("selector")), "invalid label selector"
            )
        ]
    return _replica_set_template(spec, kind)


# -- deployments ---------------------------------------------------------------------------------------


def _deployment_strategy(strategy: dict[str, Any], path: str) -> list[FieldError]:
    kind = text(strategy, "type")
    rolling = maybe_mapping(strategy, "rollingUpdate")
    if kind == "Recreate":
        if rolling is not None:
            return [
                FieldError.forbidden(f"{path}.rollingUpdate", "may not be specified when strategy `type` is 'Recreate'")
            ]
        return []
    if kind == "RollingUpdate":
        if rolling is None:
            return [FieldError.required(f"{path}.rollingUpdate", "this should be defaulted and never be nil")]
        rolling_path = f"{path}.rollingUpdate"
        unavailable, surge = rolling.get("maxUnavailable"), rolling.get("maxSurge")
        errs = positive_int_or_percent(unavailable, f"{rolling_path}.maxUnavailable")
        errs.extend(positive_int_or_percent(surge, f"{rolling_path}.maxSurge"))
        if int_or_percent_value(unavailable) == 0 and int_or_percent_value(surge) == 0:
            errs.append(
                FieldError.invalid(
                    f"{rolling_path}.maxUnavailable",
                    badvalues.int_or_string(unavailable),
                    "may not be 0 when `maxSurge` is 0",
                )
            )
        errs.extend(not_more_than_100_percent(unavailable, f"{rolling_path}.maxUnavailable"))
        return errs
    shown = badvalues.struct([("Type", badvalues.json_text(kind)), ("RollingUpdate", "null")])
    return [FieldError.not_supported(path, shown, ["Recreate", "RollingUpdate"])]


def validate_deployment(obj: dict[str, Any]) -> list[FieldError]:
    """ValidateDeploymentSpec."""
    spec = mapping(obj, "spec")
    errs = nonnegative(integer(spec, "replicas"), "spec.replicas")
    errs.extend(_selector(spec, "deployment"))
    errs.extend(_selector_template(spec, "ReplicaSet"))
    errs.extend(_deployment_strategy(mapping(spec, "strategy"), "spec.strategy"))
    min_ready = integer(spec, "minReadySeconds") or 0
    errs.extend(nonnegative(min_ready, "spec.minReadySeconds"))
    errs.extend(nonnegative(integer(spec, "revisionHistoryLimit"), "spec.revisionHistoryLimit"))
    deadline = integer(spec, "progressDeadlineSeconds")
    if deadline is not None:
        errs.extend(nonnegative(deadline, "spec.progressDeadlineSeconds"))
        if deadline <= min_ready:
            errs.append(
                FieldError.invalid("spec.progressDeadlineSeconds", deadline, "must be greater than minReadySeconds")
            )
    return errs


def immutable_selector(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """The apps/v1 strategies' rule: a controller's selector never changes."""
    selector, previous = mapping(new, "spec").get("selector"), mapping(old, "spec").get("selector")
    return immutable(selector, previous, "spec.selector", badvalues.label_selector(selector))


# -- replica sets and replication controllers ----------------------------------------------------------


def validate_replica_set(obj: dict[str, Any]) -> list[FieldError]:
    """ValidateReplicaSetSpec."""
    spec = mapping(obj, "spec")
    errs = nonnegative(integer(spec, "replicas"), "spec.replicas")
    errs.extend(nonnegative(integer(spec, "minReadySeconds"), "spec.minReadySeconds"))
    # kube's ReplicaSet check reuses the deployment wording
    errs.extend(_selector(spec, "deployment"))
    errs.extend(_selector_template(spec, "ReplicaSet"))
    return errs


def validate_replication_controller(obj: dict[str, Any]) -> list[FieldError]:
    """ValidateReplicationControllerSpec: a map selector, which must not be empty."""
    spec = mapping(obj, "spec")
    errs = nonnegative(integer(spec, "minReadySeconds"), "spec.minReadySeconds")
    selector = string_map(spec, "selector")
    if not selector:
        errs.append(FieldError.required("spec.selector", ""))
    errs.extend(nonnegative(integer(spec, "replicas"), "spec.replicas"))
    path = "spec.template"
    template = maybe_mapping(spec, "template")
    if template is None:
        errs.append(FieldError.required(path, ""))
        return errs
    labels = template_labels(spec)
    if selector and any(labels.get(k) != v for k, v in selector.items()):
        errs.append(_mismatch(spec, path))
    errs.extend(validate_pod_template_spec(template, path))
    errs.extend(_restart_always(spec, path))
    errs.extend(_no_deadline(spec, path, "ReplicationController"))
    return errs


# -- stateful sets -------------------------------------------------------------------------------------


def _stateful_update_strategy(strategy: dict[str, Any], path: str) -> list[FieldError]:
    kind = text(strategy, "type")
    rolling = maybe_mapping(strategy, "rollingUpdate")
    if not kind:
        return [FieldError.required(path, "")]
    if kind == "OnDelete":
        if rolling is not None:
            shown = badvalues.struct(
                [("Partition", str(integer(rolling, "partition") or 0)), ("MaxUnavailable", "null")]
            )
            return [
                FieldError.invalid(f"{path}.rollingUpdate", shown, "only allowed for updateStrategy 'RollingUpdate'")
            ]
        return []
    if kind == "RollingUpdate":
        if rolling is None:
            return []
        rolling_path = f"{path}.rollingUpdate"
        errs = nonnegative(integer(rolling, "partition"), f"{rolling_path}.partition")
        if rolling.get("maxUnavailable") is not None:
            unavailable = rolling.get("maxUnavailable")
            errs.extend(positive_int_or_percent(unavailable, f"{rolling_path}.maxUnavailable"))
            if int_or_percent_value(unavailable) == 0:
                errs.append(
                    FieldError.invalid(
                        f"{rolling_path}.maxUnavailable", badvalues.int_or_string(unavailable), "cannot be 0"
                    )
                )
            errs.extend(not_more_than_100_percent(unavailable, f"{rolling_path}.maxUnavailable"))
        return errs
    shown = badvalues.struct([("Type", badvalues.json_text(kind)), ("RollingUpdate", "null")])
    return [FieldError.invalid(path, shown, "must be 'RollingUpdate' or 'OnDelete'")]


def validate_stateful_set(obj: dict[str, Any]) -> list[FieldError]:
    """ValidateStatefulSetSpec (kube checks only the template's labels and annotations, not its pod spec)."""
    spec = mapping(obj, "spec")
    errs: list[FieldError] = []
    policy = text(spec, "podManagementPolicy")
    if not policy:
        errs.append(FieldError.required("spec.podManagementPolicy", ""))
    elif policy not in ("OrderedReady", "Parallel"):
        errs.append(FieldError.invalid("spec.podManagementPolicy", policy, "must be 'OrderedReady' or 'Parallel'"))
    errs.extend(_stateful_update_strategy(mapping(spec, "updateStrategy"), "spec.updateStrategy"))
    retention = maybe_mapping(spec, "persistentVolumeClaimRetentionPolicy")
    if retention is not None:
        for key in ("whenDeleted", "whenScaled"):
            value = text(retention, key)
            if value not in ("Retain", "Delete"):
                errs.append(
                    FieldError.not_supported(
                        f"spec.persistentVolumeClaimRetentionPolicy.{key}", value, ["Retain", "Delete"]
                    )
                )
    errs.extend(nonnegative(integer(spec, "replicas"), "spec.replicas"))
    errs.extend(nonnegative(integer(spec, "minReadySeconds"), "spec.minReadySeconds"))
    ordinals = maybe_mapping(spec, "ordinals")
    if ordinals is not None:
        errs.extend(nonnegative(integer(ordinals, "start"), "spec.ordinals.start"))
    errs.extend(_selector(spec, "statefulset"))
    if selector_matches(spec.get("selector"), {}) is None:
        errs.append(FieldError.invalid("spec.selector", badvalues.label_selector(spec.get("selector")), ""))
    else:
        path = "spec.template"
        selector = spec.get("selector")
        if not selector_is_empty(selector) and selector_matches(selector, template_labels(spec)) is False:
            errs.append(_mismatch(spec, path))
        meta = mapping(_template(spec), "metadata")
        errs.extend(validate_labels(meta.get("labels"), f"{path}.labels"))
        errs.extend(validate_annotations(meta.get("annotations"), f"{path}.annotations"))
        errs.extend(
            pod_specific_annotations(
                string_map(meta, "annotations"), mapping(_template(spec), "spec"), f"{path}.annotations"
            )
        )
    errs.extend(_restart_always(spec, "spec.template"))
    errs.extend(_no_deadline(spec, "spec.template", "StatefulSet"))
    return errs


_STATEFUL_MUTABLE: Final = (
    "replicas",
    "template",
    "updateStrategy",
    "minReadySeconds",
    "ordinals",
    "persistentVolumeClaimRetentionPolicy",
)


def validate_stateful_set_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    errs = validate_stateful_set(new)
    new_spec = {k: v for k, v in mapping(new, "spec").items() if k not in _STATEFUL_MUTABLE}
    old_spec = {k: v for k, v in mapping(old, "spec").items() if k not in _STATEFUL_MUTABLE}
    if not semantic_equal(new_spec, old_spec):
        errs.append(
            FieldError.forbidden(
                "spec",
                "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', "
                "'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
            )
        )
    return errs


# -- daemon sets ---------------------------------------------------------------------------------------


def _daemon_update_strategy(strategy: dict[str, Any], path: str) -> list[FieldError]:
    kind = text(strategy, "type")
    if kind == "OnDelete":
        return []
    if kind == "RollingUpdate":
        rolling = maybe_mapping(strategy, "rollingUpdate")
        if rolling is None:
            return [FieldError.required(f"{path}.rollingUpdate", "")]
        rolling_path = f"{path}.rollingUpdate"
        unavailable, surge = rolling.get("maxUnavailable"), rolling.get("maxSurge")
        errs = positive_int_or_percent(unavailable, f"{rolling_path}.maxUnavailable")
        errs.extend(positive_int_or_percent(surge, f"{rolling_path}.maxSurge"))
        errs.extend(not_more_than_100_percent(unavailable, f"{rolling_path}.maxUnavailable"))
        errs.extend(not_more_than_100_percent(surge, f"{rolling_path}.maxSurge"))
        has_unavailable, has_surge = int_or_percent_value(unavailable) != 0, int_or_percent_value(surge) != 0
        if has_unavailable and has_surge:
            errs.append(
                FieldError.invalid(
                    f"{rolling_path}.maxSurge",
                    badvalues.int_or_string(surge),
                    "may not be set when maxUnavailable is non-zero",
                )
            )
        elif not has_unavailable and not has_surge:
            errs.append(FieldError.required(f"{rolling_path}.maxUnavailable", "cannot be 0 when maxSurge is 0"))
        return errs
    shown = badvalues.struct([("Type", badvalues.json_text(kind)), ("RollingUpdate", "null")])
    return [FieldError.not_supported(path, shown, ["RollingUpdate", "OnDelete"])]


def validate_daemon_set(obj: dict[str, Any]) -> list[FieldError]:
    """ValidateDaemonSetSpec."""
    spec = mapping(obj, "spec")
    selector = spec.get("selector")
    errs = label_selector(selector, "spec.selector")
    if selector_matches(selector, template_labels(spec)) is False:
        errs.append(_mismatch(spec, "spec.template"))
    if isinstance(selector, dict) and selector_is_empty(selector):
        errs.append(
            FieldError.invalid(
                "spec.selector", badvalues.label_selector(selector), "empty selector is invalid for daemonset"
            )
        )
    errs.extend(validate_pod_template_spec(_template(spec), "spec.template"))
    errs.extend(_restart_always(spec, "spec.template"))
    errs.extend(_no_deadline(spec, "spec.template", "DaemonSet"))
    errs.extend(nonnegative(integer(spec, "minReadySeconds"), "spec.minReadySeconds"))
    errs.extend(nonnegative(integer(spec, "templateGeneration"), "spec.templateGeneration"))
    errs.extend(_daemon_update_strategy(mapping(spec, "updateStrategy"), "spec.updateStrategy"))
    errs.extend(nonnegative(integer(spec, "revisionHistoryLimit"), "spec.revisionHistoryLimit"))
    return errs


# -- jobs ----------------------------------------------------------------------------------------------

_LEGACY_LABELS: Final = (("controller-uid", "uid"), ("job-name", "name"))
_PREFIXED_LABELS: Final = (("batch.kubernetes.io/controller-uid", "uid"), ("batch.kubernetes.io/job-name", "name"))


def _has_label(template_meta: dict[str, Any], key: str, expected: str) -> list[FieldError]:
    """ValidateHasLabel."""
    labels = string_map(template_meta, "labels")
    path = f"spec.template.metadata.labels[{key}]"
    if key not in labels:
        return [FieldError.required(path, f"must be '{expected}'")]
    if labels[key] != expected:
        return [FieldError.invalid(path, badvalues.string_map(template_meta.get("labels")), f"must be '{expected}'")]
    return []


def _generated_selector(job: dict[str, Any]) -> list[FieldError]:
    spec, meta = mapping(job, "spec"), mapping(job, "metadata")
    if spec.get("manualSelector") is True or not isinstance(spec.get("selector"), dict):
        return []
    errs: list[FieldError] = []
    if not text(meta, "uid"):
        errs.append(FieldError.required("metadata.uid", ""))
    template_meta = mapping(_template(spec), "metadata")
    expected: dict[str, str] = {}
    for key, source in _LEGACY_LABELS + _PREFIXED_LABELS:
        errs.extend(_has_label(template_meta, key, text(meta, source)))
        expected[key] = text(meta, source)
    if selector_matches(spec.get("selector"), expected) is False:
        errs.append(
            FieldError.invalid(
                "spec.selector", badvalues.label_selector(spec.get("selector")), "`selector` not auto-generated"
            )
        )
    return errs


def _job_spec(spec: dict[str, Any], path: str) -> list[FieldError]:
    """validateJobSpec: counts, completion mode, the pod template and its restart policy."""
    errs: list[FieldError] = []
    for key in ("parallelism", "completions", "activeDeadlineSeconds", "backoffLimit", "ttlSecondsAfterFinished"):
        errs.extend(nonnegative(integer(spec, key), f"{path}.{key}"))
    per_index, max_failed = integer(spec, "backoffLimitPerIndex"), integer(spec, "maxFailedIndexes")
    errs.extend(nonnegative(per_index, f"{path}.backoffLimitPerIndex"))
    if max_failed is not None:
        errs.extend(nonnegative(max_failed, f"{path}.maxFailedIndexes"))
        if per_index is None:
            errs.append(FieldError.required(f"{path}.backoffLimitPerIndex", "when maxFailedIndexes is specified"))
    mode = spec.get("completionMode")
    if isinstance(mode, str):
        if mode not in ("NonIndexed", "Indexed"):
            errs.append(FieldError.not_supported(f"{path}.completionMode", mode, ["NonIndexed", "Indexed"]))
        if mode == "Indexed":
            completions, parallelism = integer(spec, "completions"), integer(spec, "parallelism")
            if completions is None:
                errs.append(FieldError.required(f"{path}.completions", "when completion mode is Indexed"))
            if parallelism is not None and parallelism > 100000:
                errs.append(
                    FieldError.invalid(
                        f"{path}.parallelism",
                        parallelism,
                        "must be less than or equal to 100000 when completion mode is Indexed",
                    )
                )
    if mode in (None, "NonIndexed"):
        if per_index is not None:
            errs.append(
                FieldError.invalid(f"{path}.backoffLimitPerIndex", per_index, "requires indexed completion mode")
            )
        if max_failed is not None:
            errs.append(FieldError.invalid(f"{path}.maxFailedIndexes", max_failed, "requires indexed completion mode"))
    replacement = spec.get("podReplacementPolicy")
    if isinstance(replacement, str):
        if replacement not in ("Failed", "TerminatingOrFailed"):
            errs.append(
                FieldError.not_supported(f"{path}.podReplacementPolicy", replacement, ["Failed", "TerminatingOrFailed"])
            )
        elif present(spec, "podFailurePolicy") and replacement != "Failed":
            errs.append(FieldError.not_supported(f"{path}.podReplacementPolicy", replacement, ["Failed"]))
    template_path = f"{path}.template"
    errs.extend(validate_pod_template_spec(_template(spec), template_path))
    policy = text(mapping(_template(spec), "spec"), "restartPolicy")
    policy_path = f"{template_path}.spec.restartPolicy"
    if policy in ("Always", ""):
        errs.append(FieldError.required(policy_path, 'valid values: "OnFailure", "Never"'))
    elif policy not in JOB_RESTART_POLICIES:
        errs.append(FieldError.not_supported(policy_path, policy, list(JOB_RESTART_POLICIES)))
    elif present(spec, "podFailurePolicy") and policy != "Never":
        errs.append(
            FieldError.invalid(policy_path, policy, 'only "Never" is supported when podFailurePolicy is specified')
        )
    return errs


def validate_job(job: dict[str, Any]) -> list[FieldError]:
    """ValidateJob after the metadata."""
    spec, meta = mapping(job, "spec"), mapping(job, "metadata")
    errs = _generated_selector(job)
    errs.extend(_job_spec(spec, "spec"))
    selector = spec.get("selector")
    if not isinstance(selector, dict):
        errs.append(FieldError.required("spec.selector", ""))
    else:
        errs.extend(label_selector(selector, "spec.selector"))
    if selector_matches(selector, template_labels(spec)) is False:
        errs.append(_mismatch(spec, "spec.template"))
    completions = integer(spec, "completions")
    if spec.get("completionMode") == "Indexed" and completions is not None and completions > 0:
        hostname = f"{text(meta, 'name')}-{completions - 1}"
        if is_dns1123_label(hostname):
            errs.append(
                FieldError.invalid(
                    "metadata.name",
                    text(meta, "name"),
                    f"will not able to create pod with invalid DNS label: {hostname}",
                )
            )
    return errs


def validate_job_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """ValidateJobSpecUpdate."""
    spec, old_spec = mapping(new, "spec"), mapping(old, "spec")
    errs = _job_spec(spec, "spec")
    selector = spec.get("selector")
    if not isinstance(selector, dict):
        errs.append(FieldError.required("spec.selector", ""))
    else:
        errs.extend(label_selector(selector, "spec.selector"))
    if selector_matches(selector, template_labels(spec)) is False:
        errs.append(_mismatch(spec, "spec.template"))
    if spec.get("completionMode") != "Indexed":
        errs.extend(immutable(spec.get("completions"), old_spec.get("completions"), "spec.completions"))
    elif (
        not semantic_equal(spec.get("completions"), old_spec.get("completions"))
        and integer(spec, "completions") is not None
    ):
        if integer(spec, "completions") != integer(spec, "parallelism"):
            errs.append(
                FieldError.invalid(
                    "spec.completions",
                    integer(spec, "completions"),
                    "can only be modified in tandem with spec.parallelism",
                )
            )
    errs.extend(immutable(selector, old_spec.get("selector"), "spec.selector", badvalues.label_selector(selector)))
    template, old_template = dict(_template(spec)), dict(_template(old_spec))
    if old_spec.get("suspend") is True:
        # a suspended job may change where its pods run and how they are labelled
        for key in ("labels", "annotations"):
            old_template["metadata"] = {
                **mapping(old_template, "metadata"),
                key: mapping(template, "metadata").get(key),
            }
        template_spec = mapping(template, "spec")
        old_template_spec = dict(mapping(old_template, "spec"))
        for key in ("nodeSelector", "tolerations", "schedulingGates", "affinity"):
            old_template_spec[key] = template_spec.get(key)
        old_template["spec"] = old_template_spec
    errs.extend(immutable(template, old_template, "spec.template"))
    for key in ("completionMode", "podFailurePolicy", "backoffLimitPerIndex", "managedBy", "successPolicy"):
        errs.extend(immutable(spec.get(key), old_spec.get(key), f"spec.{key}"))
    return errs


# -- cron jobs -----------------------------------------------------------------------------------------


def _cron_spec(spec: dict[str, Any], old_spec: dict[str, Any] | None) -> list[FieldError]:
    errs: list[FieldError] = []
    schedule = text(spec, "schedule")
    if not schedule:
        errs.append(FieldError.required("spec.schedule", ""))
    else:
        problem = schedule_error(schedule)
        if problem is not None:
            errs.append(FieldError.invalid("spec.schedule", schedule, problem))
        allow_tz = old_spec is not None and "TZ" in text(old_spec, "schedule")
        if allow_tz and "TZ" in schedule and spec.get("timeZone") is not None:
            errs.append(
                FieldError.invalid(
                    "spec.schedule", schedule, "cannot use both timeZone field and TZ or CRON_TZ in schedule"
                )
            )
        elif not allow_tz and "TZ" in schedule:
            errs.append(
                FieldError.invalid(
                    "spec.schedule", schedule, "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"
                )
            )
    errs.extend(nonnegative(integer(spec, "startingDeadlineSeconds"), "spec.startingDeadlineSeconds"))
    zone = spec.get("timeZone")
    if isinstance(zone, str) and (old_spec is None or old_spec.get("timeZone") != zone):
        errs.extend(_time_zone(zone))
    policy = text(spec, "concurrencyPolicy")
    if not policy:
        errs.append(FieldError.required("spec.concurrencyPolicy", ""))
    elif policy not in CONCURRENCY_POLICIES:
        errs.append(FieldError.not_supported("spec.concurrencyPolicy", policy, list(CONCURRENCY_POLICIES)))
    job_template = mapping(spec, "jobTemplate")
    job_spec = mapping(job_template, "spec")
    errs.extend(_job_spec(job_spec, "spec.jobTemplate.spec"))
    if job_spec.get("selector") is not None:
        errs.append(
            FieldError.invalid(
                "spec.jobTemplate.spec.selector",
                badvalues.label_selector(job_spec.get("selector")),
                "`selector` will be auto-generated",
            )
        )
    if job_spec.get("manualSelector") is True:
        errs.append(FieldError.not_supported("spec.jobTemplate.spec.manualSelector", True, ["nil", "false"]))
    for key in ("successfulJobsHistoryLimit", "failedJobsHistoryLimit"):
        errs.extend(nonnegative(integer(spec, key), f"spec.{key}"))
    return errs


def _time_zone(zone: str) -> list[FieldError]:
    if not zone:
        return [FieldError.invalid("spec.timeZone", zone, "timeZone must be nil or non-empty string")]
    for part in zone.split("/"):
        if part in (".", "..") or part.startswith("-") or not re.fullmatch(r"[A-Za-z.\-_0-9+]{1,14}", part):
            return [FieldError.invalid("spec.timeZone", zone, f"unknown time zone {zone}")]
    if zone.lower() == "local":
        return [
            FieldError.invalid(
                "spec.timeZone",
                zone,
                "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones",
            )
        ]
    try:
        ZoneInfo(zone)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return [FieldError.invalid("spec.timeZone", zone, f"unknown time zone {zone}")]
    return []


def validate_cron_job(obj: dict[str, Any]) -> list[FieldError]:
    """ValidateCronJobCreate after the metadata."""
    errs = _cron_spec(mapping(obj, "spec"), None)
    name = text(mapping(obj, "metadata"), "name")
    if len(name.encode()) > CRONJOB_NAME_MAX:
        errs.append(FieldError.invalid("metadata.name", name, f"must be no more than {CRONJOB_NAME_MAX} bytes"))
    return errs


def validate_cron_job_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    return _cron_spec(mapping(new, "spec"), mapping(old, "spec"))
