"""The object types Kubernetes' CEL libraries add (kubernetes.Quantity, kubernetes.URL, net.IP, net.CIDR,
kubernetes.NamedFormat, kubernetes.Semver).

cel-expr-python passes only protobuf messages as values of named types, so each kube type is a one-field
message (`value`: its canonical text) in a descriptor pool of our own; the environment is built on that pool.
The functions of each library read and write that text.
"""

from __future__ import annotations

from typing import Any

from cel_expr_python import cel
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

POOL = descriptor_pool.DescriptorPool()


def _declare(package: str, name: str) -> Any:
    fdp = descriptor_pb2.FileDescriptorProto(name=f"kubelite_cel_{package}_{name}.proto", package=package,
                                             syntax="proto3")
    msg = fdp.message_type.add(name=name)
    msg.field.add(name="value", number=1, type=descriptor_pb2.FieldDescriptorProto.TYPE_STRING,
                  label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL)
    POOL.Add(fdp)
    return message_factory.GetMessageClass(POOL.FindMessageTypeByName(f"{package}.{name}"))


QuantityMessage = _declare("kubernetes", "Quantity")
URLMessage = _declare("kubernetes", "URL")
IPMessage = _declare("net", "IP")
FormatMessage = _declare("kubernetes", "NamedFormat")
SemverMessage = _declare("kubernetes", "Semver")
CIDRMessage = _declare("net", "CIDR")

QUANTITY = cel.Type("kubernetes.Quantity")
URL = cel.Type("kubernetes.URL")
IP = cel.Type("net.IP")
CIDR = cel.Type("net.CIDR")
FORMAT = cel.Type("kubernetes.NamedFormat")
SEMVER = cel.Type("kubernetes.Semver")

T = cel.Type


def overload(name: str, result: cel.Type, params: list[cel.Type], impl: Any, member: bool = False) -> cel.Overload:
    return cel.Overload(name, result, params, is_member=member, impl=impl)
