"""No reader of a cached object meets an `orjson.Fragment`: every Table printer, every encoder and every kind's
field selectors, given an object in the watch cache's most compact form, answer exactly what they answer for
the plain object.

The objects are the e2e manifests' (one of every kind kubelite serves), with a status that has nested parts,
compacted as the pods' cache compacts (managedFields and every list or object in spec and status held as
JSON), whatever their kind's cache does: a printer that reads a nested field without going through
`apimachinery.cached` reads a Fragment where it expects a dict or a list, and prints something else.
"""

from __future__ import annotations

import asyncio
import copy
from pathlib import Path
from typing import Any

import orjson
import pytest
import yaml

from kubelite.apimachinery import protobuf
from kubelite.apimachinery.cached import expanded, has_fragments, plain
from kubelite.apimachinery.compact import compact_spec_and_status
from kubelite.apimachinery.serializers import dumps_json, dumps_yaml
from kubelite.endpoints.handlers.list_encoding import EncodingBudget, ResourceEncodings, encode_list_json
from kubelite.endpoints.handlers.table import to_table
from kubelite.registry.builtin import build_registry
from kubelite.registry.catalog import BUILTIN_RESOURCES
from kubelite.registry.spec import ResourceSpec
from kubelite.registry.tables import TABLES, default_table
from kubelite.storage.sqlite import SQLiteStorage

MANIFESTS = Path(__file__).resolve().parents[1] / "e2e" / "manifests"

#: nested status parts for the kinds whose printers read them, so that compacting has something to hide
STATUSES: dict[str, dict[str, Any]] = {
    "Pod": {
        "phase": "Running",
        "podIP": "10.0.0.7",
        "podIPs": [{"ip": "10.0.0.7"}],
        "conditions": [{"type": "Ready", "status": "True"}],
        "containerStatuses": [
            {
                "name": "c",
                "ready": True,
                "restartCount": 2,
                "state": {"running": {"startedAt": "2026-01-01T00:00:00Z"}},
                "lastState": {"terminated": {"exitCode": 1, "finishedAt": "2026-01-01T00:00:00Z"}},
            }
        ],
    },
    "Node": {
        "conditions": [{"type": "Ready", "status": "True"}],
        "addresses": [{"type": "InternalIP", "address": "10.0.0.1"}],
        "nodeInfo": {"kubeletVersion": "v1.36.0", "osImage": "Linux", "containerRuntimeVersion": "x://1"},
    },
    "Service": {"loadBalancer": {"ingress": [{"ip": "192.0.2.1"}]}},
    "Job": {"succeeded": 1, "conditions": [{"type": "Complete", "status": "True"}]},
    "PersistentVolumeClaim": {"phase": "Bound", "capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"]},
}


def _spec_of(obj: dict[str, Any]) -> ResourceSpec:
    found = [s for s in BUILTIN_RESOURCES if s.api_version == obj["apiVersion"] and s.kind == obj["kind"]]
    assert found, f"no resource serves {obj['apiVersion']} {obj['kind']}"
    return found[0]


#: kinds with a table that the manifests leave out (kubectl creates namespaces on its own)
EXTRA = [
    {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": "ns1"},
        "spec": {"finalizers": ["kubernetes"]},
        "status": {"phase": "Active", "conditions": [{"type": "X", "status": "False"}]},
    },
    {
        "apiVersion": "certificates.k8s.io/v1",
        "kind": "CertificateSigningRequest",
        "metadata": {"name": "csr1"},
        "spec": {"request": "LS0t", "signerName": "kubernetes.io/kube-apiserver-client", "usages": ["client auth"],
                 "username": "alice", "expirationSeconds": 3600},
        "status": {"conditions": [{"type": "Approved", "status": "True", "reason": "R"}], "certificate": "LS0t"},
    },
]


def _objects() -> list[tuple[ResourceSpec, dict[str, Any]]]:
    found = []
    docs = [doc for path in sorted(MANIFESTS.glob("*-kinds.yaml")) for doc in yaml.safe_load_all(path.read_text())]
    for doc in [*docs, *copy.deepcopy(EXTRA)]:
        if doc:
            spec = _spec_of(doc)
            doc["metadata"].update(
                uid=f"uid-{doc['kind']}-{doc['metadata']['name']}",
                resourceVersion="7",
                creationTimestamp="2026-01-01T00:00:00Z",
                managedFields=[{"manager": "kubectl", "operation": "Update", "fieldsV1": {"f:metadata": {}}}],
            )
            if spec.namespaced:
                doc["metadata"]["namespace"] = "ns"
            if doc["kind"] in STATUSES:
                doc["status"] = copy.deepcopy(STATUSES[doc["kind"]])
            found.append((spec, doc))
    return found


OBJECTS = _objects()
IDS = [f"{spec.group or 'core'}.{spec.resource}.{obj['metadata']['name']}" for spec, obj in OBJECTS]


def _compact(obj: dict[str, Any]) -> dict[str, Any]:
    compact = copy.deepcopy(obj)
    compact_spec_and_status(compact)
    return compact


def test_the_objects_cover_every_table_and_hide_parts() -> None:
    assert {(spec.group, spec.resource) for spec, _ in OBJECTS} >= set(TABLES)
    assert all(has_fragments(_compact(obj)) for _, obj in OBJECTS)


@pytest.mark.parametrize(("spec", "obj"), OBJECTS, ids=IDS)
def test_every_table_printer_reads_through_the_compact_form(spec: ResourceSpec, obj: dict[str, Any]) -> None:
    compact = _compact(obj)
    table = TABLES.get((spec.group, spec.resource)) or default_table()
    for printer in (None, ResourceEncodings.for_resource(spec, EncodingBudget(), table).table_row):
        tables = [
            to_table(table, [o], list_meta={}, include_object="None", printer=printer) for o in (compact, obj)
        ]
        assert not has_fragments(tables[0]["rows"])
        assert tables[0] == tables[1]


@pytest.mark.parametrize(("spec", "obj"), OBJECTS, ids=IDS)
def test_every_encoder_writes_the_compact_form_as_the_plain_one(spec: ResourceSpec, obj: dict[str, Any]) -> None:
    compact = _compact(obj)
    assert orjson.loads(dumps_json(compact)) == obj
    assert dumps_yaml(compact) == dumps_yaml(obj)
    if protobuf.supports(spec.api_version, spec.kind):
        assert protobuf.encode(compact) == protobuf.encode(obj)
    listed = {"kind": f"{spec.kind}List", "apiVersion": spec.api_version, "metadata": {}, "items": [compact]}
    items = ResourceEncodings.for_resource(spec, EncodingBudget()).json_items
    plain_list = {**listed, "items": [{k: v for k, v in obj.items() if k not in ("kind", "apiVersion")}]}
    assert orjson.loads(encode_list_json(listed, items)) == plain_list


@pytest.mark.parametrize(("spec", "obj"), OBJECTS, ids=IDS)
def test_the_doors_decode_everything_they_promise(spec: ResourceSpec, obj: dict[str, Any]) -> None:
    compact = _compact(obj)
    assert not has_fragments(plain(compact))
    assert plain(compact) == obj
    readable = expanded(compact)
    assert not has_fragments({k: v for k, v in readable.items() if k != "metadata"})
    assert readable == {**obj, "metadata": readable["metadata"]}


def test_field_selectors_read_the_compact_form_as_the_plain_one(tmp_path: Path) -> None:
    """Every kind's selectable fields (kube's GetAttrs) are the same on the cached form: they are metadata or
    scalars directly in spec and status, which compacting keeps."""

    async def main() -> list[str]:
        storage = await SQLiteStorage.open(tmp_path)
        registry = await build_registry(storage)
        try:
            differing = []
            for spec, obj in OBJECTS:
                store = registry.stores.get((spec.group, spec.resource))
                if store is None:
                    continue
                if store.strategy.fields(_compact(obj)) != store.strategy.fields(obj):
                    differing.append(spec.resource)
            return differing
        finally:
            for cacher in registry.cachers:
                await cacher.close()
            await storage.close()

    assert asyncio.run(main()) == []
