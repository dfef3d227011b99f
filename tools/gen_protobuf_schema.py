"""Regenerate kubelite's protobuf schema from the struct tags compiled into a kubectl binary.

Kubernetes' wire numbers live in the `protobuf:"bytes,3,opt,name=status"` struct tags of the Go types in
k8s.io/api and k8s.io/apimachinery; `generated.proto` is produced from exactly those tags. A Go binary keeps
every struct type it can reflect on, tags included, in its runtime type data, and kubectl links every API
group's types (its scheme registers them all). So a kubectl of the Kubernetes version we mimic carries the
authoritative field numbers, JSON names, Go field order, pointer-ness and `omitempty` flags for every kind,
which is everything the codec needs. This script walks that type data and writes
kubelite/apimachinery/protobuf/schema.json.

Usage: python tools/gen_protobuf_schema.py [path/to/kubectl] [output.json]

The ELF and Go ABI layouts read here are those of Go 1.26 on amd64 (the toolchain kubectl 1.36 is built
with): `abi.Type` is 48 bytes, struct fields are 24, and `runtime.types` starts the .rodata section.
"""

from __future__ import annotations

import json
import re
import struct
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kubelite.registry.catalog import BUILTIN_RESOURCES  # noqa: E402

DEFAULT_BINARY = ROOT / ".venv" / "bin" / "kubectl"
DEFAULT_OUTPUT = ROOT / "kubelite" / "apimachinery" / "protobuf" / "schema.json"

# Go reflect kinds (internal/abi)
K_BOOL, K_INT, K_INT32, K_INT64 = 1, 2, 5, 6
K_UINT32, K_UINT64, K_UINT8, K_FLOAT64 = 10, 11, 8, 14
K_ARRAY, K_INTERFACE, K_MAP, K_PTR, K_SLICE, K_STRING, K_STRUCT = 17, 20, 21, 22, 23, 24, 25

META = "k8s.io/apimachinery/pkg/apis/meta/v1"
RUNTIME = "k8s.io/apimachinery/pkg/runtime"

#: Go types whose JSON form is not their protobuf message's field-by-field form
SPECIAL = {
    ("k8s.io/apimachinery/pkg/api/resource", "Quantity"): "quantity",
    ("k8s.io/apimachinery/pkg/util/intstr", "IntOrString"): "intorstring",
    (META, "Time"): "time",
    (META, "MicroTime"): "microtime",
    (META, "Duration"): "duration",
    (META, "FieldsV1"): "fieldsv1",
    (RUNTIME, "RawExtension"): "rawextension",
}

#: the protobuf fields of the special types, which their Go structs do not spell out in tags
SPECIAL_FIELDS = {
    "quantity": [("string", 1, "string")],
    "time": [("seconds", 1, "int64"), ("nanos", 2, "int32")],
    "microtime": [("seconds", 1, "int64"), ("nanos", 2, "int32")],
}

#: kinds beyond the catalog that clients send or expect in protobuf
EXTRA_ROOTS = [
    ("autoscaling/v1", "k8s.io/api/autoscaling/v1", "Scale"),
    ("autoscaling/v1", "k8s.io/api/autoscaling/v1", "HorizontalPodAutoscaler"),
    ("autoscaling/v1", "k8s.io/api/autoscaling/v1", "HorizontalPodAutoscalerList"),
    ("authorization.k8s.io/v1", "k8s.io/api/authorization/v1", "SelfSubjectAccessReview"),
    ("authorization.k8s.io/v1", "k8s.io/api/authorization/v1", "SelfSubjectRulesReview"),
    ("authorization.k8s.io/v1", "k8s.io/api/authorization/v1", "SubjectAccessReview"),
    ("authorization.k8s.io/v1", "k8s.io/api/authorization/v1", "LocalSubjectAccessReview"),
    ("authentication.k8s.io/v1", "k8s.io/api/authentication/v1", "SelfSubjectReview"),
    ("authentication.k8s.io/v1", "k8s.io/api/authentication/v1", "TokenReview"),
    ("authentication.k8s.io/v1", "k8s.io/api/authentication/v1", "TokenRequest"),
    ("policy/v1", "k8s.io/api/policy/v1", "Eviction"),
    ("meta.k8s.io/v1", META, "PartialObjectMetadata"),
    ("meta.k8s.io/v1", META, "PartialObjectMetadataList"),
    ("meta.k8s.io/v1", META, "WatchEvent"),
    ("meta.k8s.io/v1", META, "DeleteOptions"),
    ("meta.k8s.io/v1", META, "Status"),
    ("v1", META, "Status"),
]

#: kinds every served group version registers (metav1.AddToGroupVersion)
PER_GROUP_VERSION = ("DeleteOptions", "WatchEvent", "Status")


class GoTypes:
    """Read-only view of the Go runtime type data in an ELF binary."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.sections = self._sections()
        self.rodata_addr, self.rodata_off, _ = self.sections[".rodata"]
        self.types_base = self.rodata_addr

    def _sections(self) -> dict[str, tuple[int, int, int]]:
        data = self.data
        if data[:4] != b"\x7fELF" or data[4] != 2:
            raise SystemExit("not a 64-bit ELF binary")
        shoff = struct.unpack_from("<Q", data, 0x28)[0]
        entsize, count, strndx = struct.unpack_from("<HHH", data, 0x3A)
        headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * entsize) for i in range(count)]
        names_at = headers[strndx][4]
        out = {}
        for h in headers:
            start = names_at + h[0]
            out[data[start : data.index(b"\0", start)].decode()] = (h[3], h[4], h[5])
        return out

    def _off(self, addr: int) -> int:
        return addr - self.rodata_addr + self.rodata_off

    def u8(self, addr: int) -> int:
        return self.data[self._off(addr)]

    def u64(self, addr: int) -> int:
        return struct.unpack_from("<Q", self.data, self._off(addr))[0]

    def i32(self, addr: int) -> int:
        return struct.unpack_from("<i", self.data, self._off(addr))[0]

    def _varint(self, addr: int) -> tuple[int, int]:
        value = shift = 0
        while True:
            b = self.u8(addr)
            addr += 1
            value |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                return value, addr

    def name(self, addr: int) -> tuple[str, str, bool]:
        """An `abi.Name`: (name, tag, embedded)."""
        flags = self.u8(addr)
        n, p = self._varint(addr + 1)
        text = self.data[self._off(p) : self._off(p) + n].decode()
        tag = ""
        if flags & 2:
            tn, p = self._varint(p + n)
            tag = self.data[self._off(p) : self._off(p) + tn].decode()
        return text, tag, bool(flags & 8)

    def kind(self, t: int) -> int:
        return self.u8(t + 23) & 0x1F

    def type_name(self, t: int) -> str:
        text, _, _ = self.name(self.types_base + self.i32(t + 40))
        return text[1:] if self.u8(t + 20) & 2 else text

    def named(self, t: int) -> bool:
        return bool(self.u8(t + 20) & 4)

    def pkg_path(self, t: int) -> str:
        """The package of a named type, from its `abi.UncommonType`."""
        if not self.u8(t + 20) & 1:
            return ""
        header = {K_STRUCT: 80, K_PTR: 56, K_SLICE: 56, K_MAP: 88}.get(self.kind(t), 48)
        return self.name(self.types_base + self.i32(t + header))[0]

    def elem(self, t: int) -> int:
        return self.u64(t + 48)

    def map_key_elem(self, t: int) -> tuple[int, int]:
        return self.u64(t + 48), self.u64(t + 56)

    def struct_fields(self, t: int) -> list[tuple[str, str, int, bool]]:
        ptr, count = self.u64(t + 56), self.u64(t + 64)
        out = []
        for i in range(count):
            f = ptr + 24 * i
            text, tag, embedded = self.name(self.u64(f))
            out.append((text, tag, self.u64(f + 8), embedded))
        return out

    def typelinks(self) -> list[int]:
        _, off, size = self.sections[".typelink"]
        return [self.types_base + x for x in struct.unpack_from(f"<{size // 4}i", self.data, off)]


@dataclass
class Msg:
    full: str
    fields: list[list[str | int]] = field(default_factory=list)
    special: str | None = None


def proto_package(pkg: str) -> str:
    return pkg.replace("/", ".")


def short_name(go_name: str) -> str:
    return go_name.rsplit(".", 1)[-1]


TAG_RE = re.compile(r'(\w+):"([^"]*)"')


class Builder:
    def __init__(self, go: GoTypes) -> None:
        self.go = go
        self.messages: dict[str, Msg] = {}
        self.index: dict[tuple[str, str], int] = {}
        seen: set[int] = set()
        for t in go.typelinks():
            self._index(t, seen)

    def _index(self, t: int, seen: set[int]) -> None:
        if t in seen:
            return
        seen.add(t)
        k = self.go.kind(t)
        if k in (K_PTR, K_SLICE, K_ARRAY):
            self._index(self.go.elem(t), seen)
        elif k == K_MAP:
            for x in self.go.map_key_elem(t):
                self._index(x, seen)
        elif k == K_STRUCT:
            if self.go.named(t):
                self.index.setdefault((self.go.pkg_path(t), short_name(self.go.type_name(t))), t)
            for _, _, ft, _ in self.go.struct_fields(t):
                self._index(ft, seen)

    def root(self, pkg: str, name: str) -> str:
        t = self.index.get((pkg, name))
        if t is None:
            raise SystemExit(f"type {pkg}.{name} is not in the binary")
        return self.message(t)

    def message(self, t: int) -> str:
        go = self.go
        pkg, name = go.pkg_path(t), short_name(go.type_name(t))
        full = f"{proto_package(pkg)}.{name}"
        if full in self.messages:
            return full
        msg = Msg(full, special=SPECIAL.get((pkg, name)))
        self.messages[full] = msg
        if msg.special in SPECIAL_FIELDS:
            msg.fields = [[n, num, typ, ""] for n, num, typ in SPECIAL_FIELDS[msg.special]]
            return full
        for go_field, tag, ft, embedded in go.struct_fields(t):
            tags = dict(TAG_RE.findall(tag))
            if "protobuf" not in tags:
                continue
            pb = tags["protobuf"].split(",")
            number = int(pb[1])
            # go-to-protobuf names an unnamed field after its Go field, first letter lowered
            proto_name = next(
                (p[5:] for p in pb if p.startswith("name=")), go_field[:1].lower() + go_field[1:]
            )
            json_opts = tags.get("json", "").split(",")
            json_name = json_opts[0]
            typ, mods = self.field_type(ft)
            if json_name == "" and embedded and typ not in ("string", "bytes", "bool", "int32", "int64"):
                mods = "i" + mods
            elif json_name in ("", "-"):
                json_name = proto_name
            if "omitempty" in json_opts[1:]:
                mods += "o"
            if "omitzero" in json_opts[1:]:
                mods += "z"
            row: list[str | int] = [json_name, number, typ, mods]
            if proto_name != json_name:
                row.append(proto_name)
            msg.fields.append(row)
            self._check_wire(full, go_field, pb[0], typ, mods)
        return full

    def _check_wire(self, msg: str, go_field: str, wire: str, typ: str, mods: str) -> None:
        expected = {
            "string": "bytes",
            "bytes": "bytes",
            "bool": "varint",
            "int32": "varint",
            "int64": "varint",
        }
        want = expected.get(typ, "fixed64" if typ == "double" else "bytes")
        if "r" in mods and typ in ("int32", "int64", "bool"):
            want = "varint"
        if wire != want:
            # the Go type decides: go-to-protobuf writes .proto types from it, not from the tag's wire word
            print(f"note: {msg}.{go_field}: tag says {wire}, Go type gives {typ}", file=sys.stderr)

    def field_type(self, t: int) -> tuple[str, str]:
        """(proto type, modifiers) of a Go field type: p pointer, r repeated, m map."""
        go = self.go
        k = go.kind(t)
        if k == K_PTR:
            typ, mods = self.field_type(go.elem(t))
            return typ, "p" + mods
        if k == K_SLICE:
            elem = go.elem(t)
            if go.kind(elem) == K_UINT8:
                return "bytes", ""
            if go.named(t):
                return self.list_wrapper(t), ""
            typ, mods = self.field_type(elem)
            if mods:
                raise SystemExit(f"nested collection {go.type_name(t)} is not supported")
            return typ, "r"
        if k == K_MAP:
            key, value = go.map_key_elem(t)
            if go.kind(key) != K_STRING:
                raise SystemExit(f"map key of {go.type_name(t)} is not a string")
            typ, mods = self.value_type(value)
            return typ, "m"
        return self.value_type(t)

    def value_type(self, t: int) -> tuple[str, str]:
        go = self.go
        k = go.kind(t)
        scalar = {
            K_STRING: "string",
            K_BOOL: "bool",
            K_INT32: "int32",
            K_INT64: "int64",
            K_INT: "int64",
            K_UINT32: "uint32",
            K_UINT64: "uint64",
            K_FLOAT64: "double",
        }
        if k in scalar:
            return scalar[k], ""
        if k == K_STRUCT:
            return self.message(t), ""
        if k == K_SLICE:
            if go.kind(go.elem(t)) == K_UINT8:
                return "bytes", ""
            if go.named(t):
                return self.list_wrapper(t), ""
        raise SystemExit(f"unsupported Go type {go.type_name(t)} (kind {k})")

    def list_wrapper(self, t: int) -> str:
        """A named slice type (`ExtraValue []string`) is a message with `repeated items = 1` on the wire."""
        go = self.go
        full = f"{proto_package(go.pkg_path(t))}.{short_name(go.type_name(t))}"
        if full not in self.messages:
            typ, mods = self.field_type(go.elem(t))
            if mods:
                raise SystemExit(f"nested collection {full} is not supported")
            self.messages[full] = Msg(full, [["items", 1, typ, "r"]], special="list")
        return full


def group_package(api_version: str) -> str:
    group, _, version = api_version.rpartition("/")
    if not group:
        return f"k8s.io/api/core/{version}"
    return f"k8s.io/api/{group.split('.')[0]}/{version}"


def kubectl_version(binary: Path) -> str:
    out = subprocess.run([str(binary), "version", "--client"], capture_output=True, text=True, check=True)
    match = re.search(r"Client Version: (\S+)", out.stdout)
    return match.group(1) if match else "unknown"


def build(binary: Path) -> tuple[str, dict[str, str], dict[str, Msg]]:
    go = GoTypes(binary.read_bytes())
    b = Builder(go)
    kinds: dict[str, str] = {}
    group_versions = set()
    for spec in BUILTIN_RESOURCES:
        pkg = group_package(spec.api_version)
        group_versions.add(spec.api_version)
        kinds[f"{spec.api_version}/{spec.kind}"] = b.root(pkg, spec.kind)
        if "list" in spec.verbs:
            kinds[f"{spec.api_version}/{spec.list_kind}"] = b.root(pkg, spec.list_kind)
    for api_version, pkg, kind in EXTRA_ROOTS:
        group_versions.add(api_version)
        kinds[f"{api_version}/{kind}"] = b.root(pkg, kind)
    for api_version in sorted(group_versions):
        for kind in PER_GROUP_VERSION:
            kinds.setdefault(f"{api_version}/{kind}", b.root(META, kind))
    b.root(RUNTIME, "Unknown")
    return kubectl_version(binary), dict(sorted(kinds.items())), b.messages


def render(version: str, kinds: dict[str, str], messages: dict[str, Msg]) -> str:
    """The schema as JSON text, one message per line so that a regeneration diffs per message."""
    head = {
        "about": (
            f"Kubernetes {version} protobuf schema of the kinds kubelite serves, generated by "
            "tools/gen_protobuf_schema.py from the struct tags of a kubectl of that version; do not edit. "
            "messages: full name -> fields in Go struct order, each [json name, number, type, modifiers] "
            "plus the protobuf field name when it differs; type: a scalar (string bytes bool int32 int64 "
            "uint32 uint64 double) or a message full name; modifiers: r repeated, m map with string keys "
            "(type is the value's), p Go pointer, o omitempty, z omitzero, i inlined in JSON. "
            "special: messages whose JSON form is not an object of their fields. "
            "kinds: apiVersion/kind -> message."
        ),
        "kubernetesVersion": version,
        "kinds": kinds,
        "special": {m.full: m.special for m in sorted(messages.values(), key=lambda m: m.full) if m.special},
    }
    lines = ["{"]
    for key, value in head.items():
        lines.append(f"  {json.dumps(key)}: {json.dumps(value)},")
    lines.append('  "messages": {')
    rows = [f"    {json.dumps(full)}: {json.dumps(messages[full].fields)}" for full in sorted(messages)]
    lines.append(",\n".join(rows))
    lines += ["  }", "}", ""]
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    binary = Path(argv[1]) if len(argv) > 1 else DEFAULT_BINARY
    output = Path(argv[2]) if len(argv) > 2 else DEFAULT_OUTPUT
    version, kinds, messages = build(binary)
    output.write_text(render(version, kinds, messages))
    print(f"{output}: {len(kinds)} kinds, {len(messages)} messages from kubectl {version}")


if __name__ == "__main__":
    main(sys.argv)
