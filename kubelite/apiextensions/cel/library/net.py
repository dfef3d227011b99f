"""Kubernetes' IP and CIDR libraries (k8s.io/apiserver/pkg/cel/library/ip.go, cidr.go): ip(), isIP,
ip.isCanonical, the net.IP predicates, cidr(), isCIDR, containsIP/containsCIDR, masked, prefixLength.

kube parses with netip and refuses IPv4-mapped IPv6 addresses and zones; Python's ipaddress is stricter than
Go about leading zeros, which kube refuses too."""

from __future__ import annotations

import ipaddress
from typing import Any

from cel_expr_python import cel

from kubelite.apiextensions.cel.library.types import CIDR, IP, CIDRMessage, IPMessage, T, overload
from kubelite.apimachinery.validation import go_quote

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def _parse_ip(text: str) -> Address:
    if "%" in text:
        raise ValueError(f"IP address {go_quote(text)} with zone value is not allowed")
    try:
        addr = ipaddress.ip_address(text)
    except ValueError as err:
        raise ValueError(f"IP Address {go_quote(text)} parse error during conversion from string: "
                         f"ParseAddr({go_quote(text)}): unable to parse IP") from err
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        raise ValueError(f"IPv4-mapped IPv6 address {go_quote(text)} is not allowed")
    return addr


def _parse_cidr(text: str) -> Network:
    addr_text, slash, _ = text.partition("/")
    if not slash:
        raise ValueError("network address parse error during conversion from string: "
                         f"netip.ParsePrefix({go_quote(text)}): no '/'")
    _parse_ip(addr_text)
    try:
        return ipaddress.ip_network(text, strict=False)
    except ValueError as err:
        raise ValueError("network address parse error during conversion from string: "
                         f"netip.ParsePrefix({go_quote(text)}): bad bits after slash: "
                         f"{go_quote(text.partition('/')[2])}") from err


def _ip(text: str) -> Any:
    return IPMessage(value=str(_parse_ip(text)))


def _ok(parse: Any, text: str) -> bool:
    try:
        parse(text)
    except ValueError:
        return False
    return True


def _addr(message: Any) -> Address:
    return ipaddress.ip_address(message.value)


def _net(message: Any) -> Network:
    return ipaddress.ip_network(message.value, strict=False)


def _is_global_unicast(addr: Address) -> bool:
    if addr.is_unspecified or addr.is_loopback or addr.is_multicast or addr.is_link_local:
        return False
    return not (isinstance(addr, ipaddress.IPv4Address) and addr == ipaddress.IPv4Address("255.255.255.255"))


def _is_link_local_multicast(addr: Address) -> bool:
    if isinstance(addr, ipaddress.IPv4Address):
        return addr in ipaddress.IPv4Network("224.0.0.0/24")
    return addr.is_multicast and (addr.packed[1] & 0x0F) == 2


def _cidr(text: str) -> Any:
    net = _parse_cidr(text)
    addr = text.partition("/")[0]
    return CIDRMessage(value=f"{ipaddress.ip_address(addr)}/{net.prefixlen}")


def _contains_ip(cidr: Any, ip: Any) -> bool:
    addr = _parse_ip(ip) if isinstance(ip, str) else _addr(ip)
    net = _net(cidr)
    return addr.version == net.version and addr in net


def _contains_cidr(cidr: Any, other: Any) -> bool:
    inner = _parse_cidr(other) if isinstance(other, str) else _net(other)
    net = _net(cidr)
    return inner.version == net.version and inner.subnet_of(net)  # type: ignore[arg-type]


def _cidr_ip(cidr: Any) -> Any:
    return IPMessage(value=cidr.value.partition("/")[0])


CIDR_STRING_HIDDEN = "__kubernetes_cidr_string"

# cel-cpp's runtime registry keys overloads by argument kind, and every message is one kind, so string() of a
# net.CIDR cannot run beside string() of a net.IP: it is declared for the checker alone, and compile rewrites
# each call of it to a hidden function (see checked.rewrite_calls)
CHECK_ONLY = cel.CelExtension(
    "kubernetes.net.check",
    [cel.FunctionDecl("string", [cel.Overload("cidr_to_string", T.STRING, [CIDR])])],
)

EXTENSION = cel.CelExtension(
    "kubernetes.net",
    [
        cel.FunctionDecl("ip", [
            overload("string_to_ip", IP, [T.STRING], _ip),
            overload("cidr_ip", IP, [CIDR], _cidr_ip, True),
        ]),
        cel.FunctionDecl("isIP", [overload("is_ip", T.BOOL, [T.STRING], lambda s: _ok(_parse_ip, s))]),
        cel.FunctionDecl("ip.isCanonical", [overload("ip_is_canonical", T.BOOL, [T.STRING],
                                                     lambda s: str(_parse_ip(s)) == s)]),
        cel.FunctionDecl("family", [overload("ip_family", T.INT, [IP], lambda m: _addr(m).version, True)]),
        cel.FunctionDecl("isUnspecified", [overload("ip_is_unspecified", T.BOOL, [IP],
                                                    lambda m: _addr(m).is_unspecified, True)]),
        cel.FunctionDecl("isLoopback", [overload("ip_is_loopback", T.BOOL, [IP],
                                                 lambda m: _addr(m).is_loopback, True)]),
        cel.FunctionDecl("isLinkLocalMulticast", [overload("ip_is_link_local_multicast", T.BOOL, [IP],
                                                           lambda m: _is_link_local_multicast(_addr(m)), True)]),
        cel.FunctionDecl("isLinkLocalUnicast", [overload("ip_is_link_local_unicast", T.BOOL, [IP],
                                                         lambda m: _addr(m).is_link_local, True)]),
        cel.FunctionDecl("isGlobalUnicast", [overload("ip_is_global_unicast", T.BOOL, [IP],
                                                      lambda m: _is_global_unicast(_addr(m)), True)]),
        cel.FunctionDecl("cidr", [overload("string_to_cidr", CIDR, [T.STRING], _cidr)]),
        cel.FunctionDecl(CIDR_STRING_HIDDEN, [overload("cidr_string_hidden", T.STRING, [CIDR], lambda m: m.value)]),
        cel.FunctionDecl("isCIDR", [overload("is_cidr", T.BOOL, [T.STRING], lambda s: _ok(_parse_cidr, s))]),
        cel.FunctionDecl("containsIP", [
            overload("cidr_contains_ip_string", T.BOOL, [CIDR, T.STRING], _contains_ip, True),
            overload("cidr_contains_ip_ip", T.BOOL, [CIDR, IP], _contains_ip, True),
        ]),
        cel.FunctionDecl("containsCIDR", [
            overload("cidr_contains_cidr_string", T.BOOL, [CIDR, T.STRING], _contains_cidr, True),
            overload("cidr_contains_cidr", T.BOOL, [CIDR, CIDR], _contains_cidr, True),
        ]),
        cel.FunctionDecl("masked", [overload("cidr_masked", CIDR, [CIDR],
                                             lambda m: CIDRMessage(value=str(_net(m))), True)]),
        cel.FunctionDecl("prefixLength", [overload("cidr_prefix_length", T.INT, [CIDR],
                                                   lambda m: _net(m).prefixlen, True)]),
        cel.FunctionDecl("string", [
            overload("ip_to_string", T.STRING, [IP], lambda m: m.value),
        ]),
    ],
)
