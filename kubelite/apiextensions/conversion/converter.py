"""The converter of one CRD: the checks every strategy shares, and the factory choosing the strategy.

kube wraps each strategy (pkg/apiserver/conversion/converter.go) in a converter that first refuses versions
the CRD does not define, in either direction; only then does the strategy see the objects. The converter of
a CRD is built from its `spec.conversion` and rebuilt when that changes; `close()` releases what the old one
holds (the webhook's connections).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any, Protocol

from kubelite.apiextensions import names
from kubelite.apiextensions.conversion import none, webhook
from kubelite.apiextensions.conversion.versions import conversion_failed, group_version_string
from kubelite.apimachinery import gofmt
from kubelite.apimachinery.errors import internal_error
from kubelite.apimachinery.meta import Obj

log = logging.getLogger(__name__)

#: (namespace, name, port) of a Service -> the (host, port) to dial for it
ServiceResolver = Callable[[str, str, int], Awaitable[tuple[str, int]]]


class Converter(Protocol):
    async def convert(self, objects: list[Obj], to_api_version: str) -> list[Obj]:
        """`objects` of this CRD, in any of its versions, as `to_api_version` objects, in the same order.

        An object already in `to_api_version` comes back as it is, and no webhook is called when none needs
        converting. A failure raises the StatusError kube answers with: its message names the object's
        GroupVersionKind for a single object, the list's (`Kind=<Kind>List`) for several, and a webhook's
        answer for several objects is checked with kube's list wording (`... at index N: ...`).
        """
        ...

    async def close(self) -> None:
        """Release the connections held; the converter is not used afterwards."""
        ...


class Strategy(Protocol):
    async def convert(self, objects: list[Obj], to_api_version: str) -> list[Obj]: ...

    async def close(self) -> None: ...


class CRConverter:
    """A strategy behind the version checks kube's crConverter makes before delegating."""

    def __init__(self, group: str, defined_versions: set[str], strategy: Strategy) -> None:
        #: every version in spec.versions, served or not: kube converts from and to any of them
        self._valid = {f"{group}/{v}" for v in defined_versions}
        self.strategy = strategy

    async def convert(self, objects: list[Obj], to_api_version: str) -> list[Obj]:
        if to_api_version not in self._valid:
            raise conversion_failed(f"request to convert CR to an invalid group/version: {to_api_version}")
        converting = False
        for index, obj in enumerate(objects):
            if obj.get("apiVersion") == to_api_version:
                continue
            converting = True
            from_gv = group_version_string(obj.get("apiVersion"))
            if from_gv not in self._valid:
                if len(objects) == 1:
                    raise conversion_failed(f"request to convert CR from an invalid group/version: {from_gv}")
                raise conversion_failed(
                    f"request to convert CR list failed, list index {index} has invalid group/version: {from_gv}"
                )
        if not converting:
            return list(objects)
        return await self.strategy.convert(objects, to_api_version)

    @property
    def setup_error(self) -> str | None:
        """Why the CRD's conversion cannot be set up, None when it can. kube then serves no request for the
        resource at all (500 `error resolving resource`); conversions raise that error here."""
        return self.strategy.cause if isinstance(self.strategy, _Unusable) else None

    async def close(self) -> None:
        await self.strategy.close()


class _Unusable:
    """The strategy of a CRD whose conversion cannot be set up: kube fails to build its serving info and
    answers every request for the resource with this InternalError (the cause goes to the log only)."""

    def __init__(self, crd_name: str, cause: str) -> None:
        log.error("conversion for CRD %s cannot be set up: %s", crd_name, cause)
        self.cause = cause

    async def convert(self, objects: list[Obj], to_api_version: str) -> list[Obj]:
        raise internal_error("error resolving resource")

    async def close(self) -> None:
        return None


def _dict(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def conversion_settings(crd: Obj) -> tuple[str, tuple[str, ...], str]:
    """What a CRD's converter is built from; when it differs between two revisions of the CRD, the converter is
    rebuilt (and the old one closed)."""
    spec = _dict(crd.get("spec"))
    defined = tuple(sorted(str(v.get("name")) for v in names.versions(crd) if v.get("name")))
    return str(spec.get("group") or ""), defined, json.dumps(spec.get("conversion"), sort_keys=True)


def converter_for(
    crd: Obj,
    resolve_service: ServiceResolver,
    *,
    client_cert: tuple[str | Path, str | Path] | None = None,
    timeout: float = webhook.DEFAULT_TIMEOUT,
    max_response_bytes: int = webhook.DEFAULT_MAX_RESPONSE_BYTES,
) -> CRConverter:
    """The converter `crd.spec.conversion` asks for (strategy None when the CRD names none).

    `client_cert` (certificate file, key file) is presented to conversion webhooks that ask for one; `timeout`
    bounds a whole webhook call (kube: 30 s, also sent as the `timeout` query parameter).
    """
    spec = _dict(crd.get("spec"))
    group = str(spec.get("group") or "")
    defined = {str(v.get("name")) for v in names.versions(crd) if v.get("name")}
    crd_name = str(_dict(crd.get("metadata")).get("name") or "")
    conversion = _dict(spec.get("conversion"))
    strategy_name = conversion.get("strategy") or "None"
    strategy: Strategy
    if strategy_name == "None":
        strategy = none.NoneConverter()
    elif strategy_name == "Webhook":
        try:
            strategy = webhook.WebhookConverter(
                _dict(conversion.get("webhook")),
                resolve_service,
                client_cert=client_cert,
                timeout=timeout,
                max_response_bytes=max_response_bytes,
            )
        except webhook.ConfigError as exc:
            strategy = _Unusable(crd_name, str(exc))
    else:
        strategy = _Unusable(
            crd_name, f"unknown conversion strategy {gofmt.quote(str(strategy_name))} for CRD {crd_name}"
        )
    return CRConverter(group, defined, strategy)
