"""A bounded, property-based fuzz run against a real kubelite server, built from the OpenAPI v3 documents
it serves: every path and method, with path parameters, query parameters and bodies drawn by Hypothesis
from the operation's schema, and often bent out of it (wrong types, extreme integers, odd strings).

The property is the one every client relies on: any request gets a valid HTTP answer below 500. The run
prints responses by status code, every 5xx with the request that caused it, and every dropped connection
(no answer, a broken one, or none in time); it exits 1 if there was any of either, or if the server died.

    python -m bench.fuzz [--seconds 180] [--seed N]      (or: make fuzz ARGS="--seconds 60")

Only 127.0.0.1 is ever contacted; the server runs on a free loopback port in a temporary directory and is
stopped at the end. Watches are never asked for (they are streams that stay open by design).
"""

from __future__ import annotations

import argparse
import collections
import http.client
import json
import sys
import tempfile
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from bench.procs import Server, kubelite_cmd

METHODS = ("get", "put", "post", "delete", "patch")
#: query parameters that turn a request into a stream, or hand it to another server
_SKIPPED_PARAMS = frozenset({"watch", "follow"})
_MAX_DEPTH = 5
_PROTOBUF = "application/vnd.kubernetes.protobuf"
_NINE_LOLS = "[" + ",".join(['"lol"'] * 9) + "]"
_YAML_ODDITIES = st.sampled_from(
    [
        b"a: &a "
        + _NINE_LOLS.encode()
        + b"".join(
            f"\n{c}: &{c} [{','.join([f'*{p}'] * 9)}]".encode() for p, c in zip("abcdefgh", "bcdefghi", strict=True)
        ),
        b"a: &a [*a]\n",
        b"x: " + b"[" * 5000 + b"]" * 5000,
        b"{null: 1, 1: 2, true: 3, 1.5: 4}\n",
        b"t: 2020-01-01\nb: !!binary aGVsbG8=\ns: !!set {a, b}\n",
        b"!!python/object:os.system [ls]\n",
        b"--- a\n--- b\n",
        b"metadata: {name: &n x}\nspec: *n\n",
        b"? [a, b]\n: c\n",
        b"\t\x00\xff",
    ]
)

_INTEGERS = st.one_of(
    st.integers(-5, 100),
    st.sampled_from([0, -1, 2**31 - 1, 2**31, 2**53 + 1, 2**63 - 1, -(2**63), 2**63, 2**64]),
)
_ODD_TEXT = st.sampled_from(
    ["", " ", "-1", "0", "1", "9" * 25, "abc", "true", "null", "a/b", "..", "%", "\u0001", "\t", "é✓", "*", "x" * 300]
)
_TEXT = st.one_of(st.text(max_size=12), _ODD_TEXT)
_DNS_LABEL = st.from_regex(r"\A[a-z]([a-z0-9-]{0,10}[a-z0-9])?\Z")
_JSON_SCALARS = st.one_of(st.none(), st.booleans(), _INTEGERS, st.floats(allow_nan=False, allow_infinity=False), _TEXT)
_ANY_JSON = st.recursive(
    _JSON_SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(_TEXT, inner, max_size=3)),
    max_leaves=8,
)


@dataclass
class Operation:
    method: str
    path: str
    params: list[dict[str, Any]]
    body_types: list[str]
    body_schema: dict[str, Any] | None


@dataclass
class Outcome:
    by_status: collections.Counter[int] = field(default_factory=collections.Counter)
    server_errors: list[tuple[int, str, bytes]] = field(default_factory=list)
    dropped: list[tuple[str, str]] = field(default_factory=list)
    #: 5xx answers kube-apiserver gives by design, by their Status reason (not failures of the run)
    documented: collections.Counter[str] = field(default_factory=collections.Counter)
    requests: int = 0


class Schemas:
    """Strategies for the components of one OpenAPI document, followed through `$ref` to a bounded depth."""

    def __init__(self, components: dict[str, Any]) -> None:
        self.components = components

    def resolve(self, schema: dict[str, Any]) -> dict[str, Any]:
        for _ in range(10):
            if "$ref" in schema:
                schema = self.components.get(schema["$ref"].rsplit("/", 1)[-1], {})
            elif schema.get("allOf"):
                schema = {**schema["allOf"][0], **{k: v for k, v in schema.items() if k != "allOf"}}
            else:
                break
        return schema

    def strategy(self, schema: dict[str, Any], depth: int = 0) -> st.SearchStrategy[Any]:
        schema = self.resolve(schema)
        kind = schema.get("type")
        if depth > _MAX_DEPTH:
            return st.one_of(st.none(), st.just({}), st.just([]))
        if schema.get("x-kubernetes-int-or-string") or schema.get("format") == "int-or-string":
            return st.one_of(_INTEGERS, _TEXT, _ANY_JSON)
        if kind == "object" or "properties" in schema:
            properties = schema.get("properties") or {}
            extra = schema.get("additionalProperties")
            optional = {name: self.strategy(sub, depth + 1) for name, sub in list(properties.items())[:25]}
            if "metadata" in optional:
                optional["metadata"] = st.one_of(self._metadata(), optional["metadata"])
            kinds = schema.get("x-kubernetes-group-version-kind") or []
            if kinds and depth == 0:  # mostly the kind the endpoint serves, so bodies get past the type check
                first = kinds[0]
                api_version = f"{first['group']}/{first['version']}" if first.get("group") else first["version"]
                optional["apiVersion"] = st.one_of(st.just(api_version), st.just(api_version), _TEXT)
                optional["kind"] = st.one_of(st.just(first["kind"]), st.just(first["kind"]), _TEXT)
            shaped = st.fixed_dictionaries({}, optional=optional)
            if isinstance(extra, dict):
                shaped = st.one_of(shaped, st.dictionaries(_TEXT, self.strategy(extra, depth + 1), max_size=3))
            return st.one_of(shaped, shaped, _ANY_JSON) if depth else shaped
        if kind == "array":
            return st.one_of(st.lists(self.strategy(schema.get("items") or {}, depth + 1), max_size=3), _ANY_JSON)
        if kind == "string":
            enum = schema.get("enum")
            if enum:
                return st.one_of(st.sampled_from(enum), _TEXT, _JSON_SCALARS)
            return st.one_of(_TEXT, _JSON_SCALARS)
        if kind == "integer":
            return st.one_of(_INTEGERS, _JSON_SCALARS)
        if kind == "number":
            return st.one_of(st.floats(allow_nan=False, allow_infinity=False), _JSON_SCALARS)
        if kind == "boolean":
            return st.one_of(st.booleans(), _JSON_SCALARS)
        return _ANY_JSON

    def _metadata(self) -> st.SearchStrategy[dict[str, Any]]:
        """Mostly well-formed metadata, so that creates get past the name and reach the rest of the body."""
        return st.fixed_dictionaries(
            {"name": _DNS_LABEL},
            optional={
                "namespace": st.sampled_from(["default", "fuzz", "other"]),
                "labels": st.dictionaries(_DNS_LABEL, st.one_of(_DNS_LABEL, _TEXT), max_size=2),
                "annotations": st.dictionaries(_TEXT, _TEXT, max_size=2),
                "resourceVersion": st.one_of(_TEXT, st.integers(0, 10**6).map(str)),
                "finalizers": st.lists(_TEXT, max_size=2),
                "generateName": _TEXT,
            },
        )


def _json_patch() -> st.SearchStrategy[Any]:
    pointer = st.one_of(
        st.sampled_from(["", "/", "/metadata", "/metadata/labels/a", "/spec", "/data/x", "/x/-", "/x/0", "/~2"]),
        _TEXT,
    )
    operation = st.fixed_dictionaries(
        {"op": st.one_of(st.sampled_from(["add", "remove", "replace", "move", "copy", "test"]), _TEXT)},
        optional={"path": pointer, "from": pointer, "value": _ANY_JSON},
    )
    return st.one_of(st.lists(operation, max_size=6), _ANY_JSON)


def operations(document: dict[str, Any]) -> list[Operation]:
    found = []
    for path, item in document.get("paths", {}).items():
        if "/watch/" in path or path.endswith("/proxy") or "/proxy/" in path:
            continue
        shared = item.get("parameters") or []
        for method in METHODS:
            spec = item.get(method)
            if not spec:
                continue
            body = spec.get("requestBody") or {}
            content = body.get("content") or {}
            schema = next(iter(content.values()), {}).get("schema") if content else None
            params = [p for p in [*shared, *(spec.get("parameters") or [])] if p.get("name") not in _SKIPPED_PARAMS]
            found.append(Operation(method.upper(), path, params, list(content), schema))
    return found


def _query_value(schema: dict[str, Any]) -> st.SearchStrategy[str]:
    kind = schema.get("type")
    if kind == "integer":
        return st.one_of(_INTEGERS.map(str), _TEXT)
    if kind == "boolean":
        return st.one_of(st.sampled_from(["true", "false", "1", "0", ""]), _TEXT)
    return _TEXT


def _path_value(name: str) -> st.SearchStrategy[str]:
    if name == "namespace":
        return st.one_of(st.sampled_from(["default", "kube-system", "fuzz"]), _DNS_LABEL, _TEXT)
    if name == "name":
        return st.one_of(st.sampled_from(["default", "kubernetes", "fuzz", "admin"]), _DNS_LABEL, _TEXT)
    return _TEXT


class Fuzzer:
    def __init__(self, port: int, outcome: Outcome) -> None:
        self.port = port
        self.outcome = outcome

    def send(self, method: str, target: str, content_type: str | None, body: bytes | None) -> None:
        self.outcome.requests += 1
        headers = {"Content-Type": content_type} if content_type else {}
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=15)
        described = f"{method} {target}" + (f" [{content_type}] {body[:600]!r}" if body is not None else "")
        try:
            conn.request(method, target, body=body, headers=headers)
            response = conn.getresponse()
            payload = response.read()
        except (OSError, http.client.HTTPException) as exc:
            self.outcome.dropped.append((described, f"{type(exc).__name__}: {exc}"))
            return
        finally:
            conn.close()
        self.outcome.by_status[response.status] += 1
        if response.status >= 500:
            documented = _documented_server_error(response.status, payload)
            if documented:
                self.outcome.documented[documented] += 1
            else:
                self.outcome.server_errors.append((response.status, described, payload[:600]))

    def exercise(self, operation: Operation, schemas: Schemas, examples: int, seed: int | None) -> None:
        body_strategy: st.SearchStrategy[Any] = st.none()
        if operation.body_types:
            body_strategy = (
                _json_patch()
                if operation.body_types == ["application/json-patch+json"]
                else schemas.strategy(operation.body_schema or {})
            )

        @settings(
            max_examples=examples,
            deadline=None,
            database=None,
            phases=[Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        @given(data=st.data())
        def one_request(data: st.DataObject) -> None:
            path = operation.path
            query: list[tuple[str, str]] = []
            for param in operation.params:
                where, name = param.get("in"), param.get("name", "")
                if where == "path":
                    value = data.draw(_path_value(name))
                    path = path.replace("{" + name + "}", urllib.parse.quote(value, safe="") or "%20")
                elif where == "query" and data.draw(st.booleans()):
                    query.append((name, data.draw(_query_value(param.get("schema") or {}))))
            target = path + ("?" + urllib.parse.urlencode(query) if query else "")
            body: bytes | None = None
            content_type: str | None = None
            # a DELETE's body (DeleteOptions) is optional, so it is sent half the time
            if operation.body_types and (operation.method != "DELETE" or data.draw(st.booleans())):
                value = data.draw(body_strategy)
                served = [t for t in operation.body_types if t != "*/*"] or ["application/json"]
                content_type = data.draw(st.sampled_from([*served, "application/yaml", _PROTOBUF]))
                body = json.dumps(value).encode()
                if content_type == _PROTOBUF:  # kube's envelope magic, then whatever comes
                    body = b"k8s\x00" + data.draw(st.binary(max_size=80))
                elif content_type.endswith("yaml") and data.draw(st.booleans()):
                    body = data.draw(st.one_of(st.just(yaml.safe_dump(value).encode()), _YAML_ODDITIES))
                elif data.draw(st.integers(0, 20)) == 0:  # now and then, bytes that are no document at all
                    body = data.draw(st.binary(max_size=40))
            self.send(operation.method, target, content_type, body)

        if seed is not None:
            from hypothesis import seed as with_seed

            one_request = with_seed(seed)(one_request)
        one_request()


def _documents(port: int) -> list[tuple[str, dict[str, Any]]]:
    def get(path: str) -> Any:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        try:
            conn.request("GET", path)
            return json.loads(conn.getresponse().read())
        finally:
            conn.close()

    index = get("/openapi/v3")
    return [(name, get(entry["serverRelativeURL"])) for name, entry in sorted(index["paths"].items())]


def _documented_server_error(status: int, payload: bytes) -> str | None:
    """The name of a 5xx kube-apiserver answers on purpose: a list or get at a resourceVersion the store has
    not reached waits, then times out with 504 ResourceVersionTooLarge (kube's cacher does the same)."""
    try:
        body = json.loads(payload)
    except ValueError:
        return None
    causes = (body.get("details") or {}).get("causes") or [] if isinstance(body, dict) else []
    if status == 504 and any(cause.get("reason") == "ResourceVersionTooLarge" for cause in causes):
        return "504 ResourceVersionTooLarge (a resourceVersion from the future)"
    return None


def _report(outcome: Outcome, alive: bool, elapsed: float) -> int:
    print(f"\nfuzz: {outcome.requests} requests in {elapsed:.0f}s")
    print("responses by status code:")
    for status, count in sorted(outcome.by_status.items()):
        print(f"  {status}: {count}")
    for documented, count in sorted(outcome.documented.items()):
        print(f"kube's own answer, not a failure: {documented}: {count}")
    print(f"responses of 500 or above: {len(outcome.server_errors)}")
    for status, request, payload in outcome.server_errors:
        print(f"  {status} for {request}\n      -> {payload!r}")
    print(f"dropped connections: {len(outcome.dropped)}")
    for request, why in outcome.dropped:
        print(f"  {request}\n      -> {why}")
    if not alive:
        print("the server is no longer running")
    return 1 if outcome.server_errors or outcome.dropped or not alive else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=180.0, help="how long to fuzz (default 180)")
    parser.add_argument("--examples", type=int, default=4, help="requests per operation and round (default 4)")
    parser.add_argument("--seed", type=int, default=None, help="a seed, for a repeatable run")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="kubelite-fuzz-") as tmp:
        data_dir = Path(tmp) / "data"
        server = Server("kubelite", kubelite_cmd(data_dir), Path(tmp) / "server.log").start()
        outcome = Outcome()
        started = time.monotonic()
        try:
            fuzzer = Fuzzer(server.port, outcome)
            fuzzer.send("POST", "/api/v1/namespaces", "application/json", b'{"metadata":{"name":"fuzz"}}')
            plan = [
                (operation, Schemas((document.get("components") or {}).get("schemas") or {}))
                for _, document in _documents(server.port)
                for operation in operations(document)
            ]
            print(f"fuzz: {len(plan)} operations from the served OpenAPI v3 documents, for {args.seconds:.0f}s")
            round_number = 0
            while time.monotonic() - started < args.seconds:
                for operation, schemas in plan:
                    if time.monotonic() - started >= args.seconds:
                        break
                    seed = None if args.seed is None else args.seed + round_number
                    fuzzer.exercise(operation, schemas, args.examples, seed)
                round_number += 1
            alive = server.proc is not None and server.proc.poll() is None
        finally:
            server.stop()
            if outcome.server_errors or outcome.dropped:
                log = (Path(tmp) / "server.log").read_text(errors="replace").splitlines()
                print("server log (last 40 lines):\n  " + "\n  ".join(log[-40:]))
    return _report(outcome, alive, time.monotonic() - started)


if __name__ == "__main__":
    sys.exit(main())
