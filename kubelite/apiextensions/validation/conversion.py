"""spec.conversion: kube's validateCustomResourceConversion and validateConversionReviewVersions, on the internal
layout (`webhookClientConfig` and `conversionReviewVersions` directly under `spec.conversion`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from kubelite.apiextensions.validation.internal import as_dict, as_list, as_str
from kubelite.apiextensions.validation.options import Options
from kubelite.apiextensions.validation.paths import child, key
from kubelite.apiextensions.validation.webhook import (
    validate_ca_bundle,
    validate_webhook_service,
    validate_webhook_url,
)
from kubelite.apimachinery.validation import FieldError, is_dns1035_label

STRATEGIES: Final = ["None", "Webhook"]
#: the ConversionReview versions the previous minor release understands
ACCEPTED_REVIEW_VERSIONS: Final = ["v1", "v1beta1"]


def has_valid_review_version_or_empty(versions: Any) -> bool:
    listed = as_list(versions)
    return not listed or any(v in ACCEPTED_REVIEW_VERSIONS for v in listed)


def validate_review_versions(versions: Any, require_recognized: bool, path: str) -> list[FieldError]:
    listed = [as_str(v) for v in as_list(versions)]
    if not listed:
        return [FieldError.required(path)]
    errs: list[FieldError] = []
    seen: set[str] = set()
    for i, version in enumerate(listed):
        if version in seen:
            errs.append(FieldError.invalid(key(path, i), version, "duplicate version"))
            continue
        seen.add(version)
        for problem in is_dns1035_label(version):
            errs.append(FieldError.invalid(key(path, i), version, problem))
    if require_recognized and not any(v in ACCEPTED_REVIEW_VERSIONS for v in listed):
        errs.append(
            FieldError.invalid(path, listed, "must include at least one of " + ", ".join(ACCEPTED_REVIEW_VERSIONS))
        )
    return errs


def validate_conversion(conversion: Any, require_recognized: bool, path: str, opts: Options) -> list[FieldError]:
    if not isinstance(conversion, Mapping):
        return []
    errs: list[FieldError] = []
    strategy = as_str(conversion.get("strategy"))
    if not strategy:
        errs.append(FieldError.required(child(path, "strategy")))
    elif strategy not in STRATEGIES:
        errs.append(FieldError.not_supported(child(path, "strategy"), strategy, STRATEGIES))
    client_config = conversion.get("webhookClientConfig")
    config_path = child(path, "webhookClientConfig")
    if strategy == "Webhook":
        if not isinstance(client_config, Mapping):
            errs.append(FieldError.required(config_path, "required when strategy is set to Webhook"))
        else:
            url, service = client_config.get("url"), client_config.get("service")
            if (url is None) == (service is None):
                errs.append(FieldError.required(config_path, "exactly one of url or service is required"))
            elif url is not None:
                errs += validate_webhook_url(child(config_path, "url"), as_str(url))
            else:
                errs += validate_webhook_service(child(config_path, "service"), dict(as_dict(service)))
            ca_bundle = as_str(client_config.get("caBundle"))
            if ca_bundle and not opts.allow_invalid_ca_bundle:
                errs += validate_ca_bundle(child(config_path, "caBundle"), ca_bundle)
        errs += validate_review_versions(
            conversion.get("conversionReviewVersions"), require_recognized, child(path, "conversionReviewVersions")
        )
    else:
        if client_config is not None:
            errs.append(FieldError.forbidden(config_path, "should not be set when strategy is not set to Webhook"))
        if as_list(conversion.get("conversionReviewVersions")):
            errs.append(
                FieldError.forbidden(
                    child(path, "conversionReviewVersions"), "should not be set when strategy is not set to Webhook"
                )
            )
    return errs
