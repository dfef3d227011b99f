"""kube's CSR signing controller (csrsigning-controller), in the API server's process with kubelite's cluster CA.

It runs beside the root CA publisher, which gets the same CA's certificate: the key never leaves the server's
certificate directory. Each CertificateSigningRequest that is added or changes is reconciled: one that
`signer.wants_signing` is checked against its signer's rules, then written back through /status with the
certificate, or with a Failed condition when its signer refuses it. A request that cannot be parsed is
retried with backoff and logged, as kube's controller does.
"""

from __future__ import annotations

import datetime as dt
import logging
from typing import Any

from kubelite.apimachinery.errors import StatusError
from kubelite.apimachinery.meta import Obj, rfc3339
from kubelite.client.cache.listers import Lister
from kubelite.client.clock import Clock, RealClock
from kubelite.client.controller import Controller
from kubelite.client.errors import NotFound
from kubelite.controllers.certificates import signer
from kubelite.controllers.informers import RegistryInformerFactory
from kubelite.registry.builtin import Registry
from kubelite.registry.certificates.csr_validation import decode_bytes, parse_csr
from kubelite.registry.options import WriteParams

log = logging.getLogger(__name__)

GROUP, RESOURCE = "certificates.k8s.io", "certificatesigningrequests"


def _name(obj: Any) -> list[str]:
    return [str((obj.get("metadata") or {}).get("name") or "")]


class CSRSigningController:
    def __init__(
        self,
        registry: Registry,
        informers: RegistryInformerFactory,
        authority: signer.CertificateAuthority,
        *,
        ttl: dt.timedelta = signer.DEFAULT_TTL,
        clock: Clock | None = None,
    ) -> None:
        self.authority = authority
        self.ttl = ttl
        self.clock = clock or RealClock()
        self.status = registry.subresources[(GROUP, RESOURCE)]["status"]
        csrs = informers.for_resource(GROUP, RESOURCE)
        self.csrs: Lister = csrs.lister
        self.controller = Controller("csrsigning", self.reconcile, clock=clock)
        self.controller.watch(csrs.informer, keys=_name)

    def _now(self) -> dt.datetime:
        return dt.datetime.fromtimestamp(self.clock.now(), dt.UTC)

    async def reconcile(self, name: str) -> None:
        try:
            csr = self.csrs.get(name)
        except NotFound:
            return
        if not signer.wants_signing(csr):
            return
        spec = csr.get("spec") or {}
        request = parse_csr(decode_bytes(spec.get("request")) or b"")
        usages = [str(u) for u in spec.get("usages") or []]
        expiration = spec.get("expirationSeconds")
        try:
            signer.validate_for_signer(request, usages, str(spec["signerName"]))
        except signer.SignerValidationError as exc:
            failed = signer.failed_condition(str(exc), rfc3339(self._now().replace(microsecond=0)))
            await self._write(csr, lambda status: {**status, "conditions": [*status.get("conditions", []), failed]})
            return
        length = signer.duration(expiration if isinstance(expiration, int) else None, self.ttl)
        pem = signer.sign(self.authority, request, usages, length, self._now())
        await self._write(csr, lambda status: {**status, "certificate": signer.encode(pem)})

    async def _write(self, csr: Obj, change: Any) -> None:
        uid = csr["metadata"].get("uid")

        async def update(current: Obj | None) -> Obj:
            if current is None or current["metadata"].get("uid") != uid or not signer.wants_signing(current):
                raise _Stale()
            current["status"] = change(dict(current.get("status") or {}))
            return current

        try:
            await self.status.update("", csr["metadata"]["name"], update, WriteParams(), allow_create=False)
        except _Stale:
            return
        except StatusError as exc:
            if exc.code != 404:
                raise

    async def run(self) -> None:
        await self.controller.run()


class _Stale(Exception):
    """The request changed under the write (deleted, recreated, denied or already signed)."""
