"""Operation ids and tags, spelled as kube-apiserver spells them.

Generated clients name their methods after these (`listCoreV1NamespacedPod` becomes
`list_namespaced_pod` in the Python client), so they follow k8s.io/apiserver's rule: the verb, then the
group without `.k8s.io` and the version in CamelCase, then the rest of the route's name. The tag is the
same group and version in lowerCamelCase, joined by `_` (`rbacAuthorization_v1`).
"""

from __future__ import annotations


def valid_identifier(text: str, capitalize_first: bool) -> str:
    """Drop every character that cannot be in an identifier, upper-casing the letter after each dropped one.

    `rbac.authorization` -> `RbacAuthorization` (or `rbacAuthorization` when the first letter stays).
    """
    out: list[str] = []
    capitalize = capitalize_first
    for i, char in enumerate(text):
        if char.isalpha() or char == "_" or (i > 0 and char.isdigit()):
            out.append(char.upper() if capitalize else char)
            capitalize = False
        else:
            capitalize = True
    return "".join(out)


def _group_word(group: str) -> str:
    return (group or "core").removesuffix(".k8s.io")


def tag(group: str, version: str | None = None) -> str:
    """The tag of a group (`apps`) or group-version (`core_v1`)."""
    word = valid_identifier(_group_word(group), False)
    return f"{word}_{valid_identifier(version, False)}" if version else word


def operation_id(verb: str, group: str, version: str | None, rest: str) -> str:
    """`verb` + group + version + `rest`: operation_id("list", "apps", "v1", "NamespacedDeployment")."""
    out = verb + valid_identifier(_group_word(group), True)
    if version:
        out += valid_identifier(version, True)
    return out + valid_identifier(rest, True)


def subresource_word(subresource: str) -> str:
    """`status` -> `Status`; kube title-cases the subresource in its operation ids."""
    return subresource[:1].upper() + subresource[1:]


def model_name(group: str, version: str, kind: str) -> str:
    """The definition name of a kind that has no Go type (a custom resource's), as kube's CRD OpenAPI builder
    writes it: the group's labels reversed, then version and kind (`com.example.stable.v1.CronTab`)."""
    return ".".join([*reversed(group.split(".")), version, kind])
