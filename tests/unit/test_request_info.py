"""parse_request_info against kube's RequestInfoFactory: the cases of its requestinfo_test.go, as a table."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

import pytest

from kubelite.endpoints.request_info import RequestInfo, parse_request_info


def parse(method: str, url: str) -> RequestInfo:
    split = urlsplit(url)
    return parse_request_info(method, split.path, dict(parse_qsl(split.query, keep_blank_values=True)))


#: kube's table: method, URL; verb, prefix, group, version; namespace, resource, subresource, name; parts
RESOURCE_CASES = [
    pytest.param("GET", "/api/v1/namespaces", ("list", "api", "", "v1"),
                 ("", "namespaces", "", ""), ["namespaces"], id="list-namespaces"),
    pytest.param("GET", "/api/v1/namespaces/other", ("get", "api", "", "v1"),
                 ("other", "namespaces", "", "other"), ["namespaces", "other"], id="get-namespace"),
    pytest.param("GET", "/api/v1/namespaces/other/pods", ("list", "api", "", "v1"),
                 ("other", "pods", "", ""), ["pods"], id="list-pods-in-namespace"),
    pytest.param("GET", "/api/v1/namespaces/other/pods/foo", ("get", "api", "", "v1"),
                 ("other", "pods", "", "foo"), ["pods", "foo"], id="get-pod"),
    pytest.param("HEAD", "/api/v1/namespaces/other/pods/foo", ("get", "api", "", "v1"),
                 ("other", "pods", "", "foo"), ["pods", "foo"], id="head-pod"),
    pytest.param("GET", "/api/v1/pods", ("list", "api", "", "v1"),
                 ("", "pods", "", ""), ["pods"], id="list-all-pods"),
    pytest.param("HEAD", "/api/v1/pods", ("list", "api", "", "v1"),
                 ("", "pods", "", ""), ["pods"], id="head-all-pods"),
    pytest.param("PATCH", "/api/v1/namespaces/new-namespace", ("patch", "api", "", "v1"),
                 ("new-namespace", "namespaces", "", "new-namespace"), ["namespaces", "new-namespace"],
                 id="patch-namespace"),
    # legacy watch paths and the watch parameter
    pytest.param("GET", "/api/v1/watch/pods", ("watch", "api", "", "v1"),
                 ("", "pods", "", ""), ["pods"], id="legacy-watch-all"),
    pytest.param("GET", "/api/v1/pods?watch=true", ("watch", "api", "", "v1"),
                 ("", "pods", "", ""), ["pods"], id="watch-true"),
    pytest.param("GET", "/api/v1/pods?watch=false", ("list", "api", "", "v1"),
                 ("", "pods", "", ""), ["pods"], id="watch-false"),
    pytest.param("GET", "/api/v1/watch/namespaces/other/pods", ("watch", "api", "", "v1"),
                 ("other", "pods", "", ""), ["pods"], id="legacy-watch-namespace"),
    pytest.param("GET", "/api/v1/namespaces/other/pods?watch=1", ("watch", "api", "", "v1"),
                 ("other", "pods", "", ""), ["pods"], id="watch-1"),
    pytest.param("GET", "/api/v1/namespaces/other/pods?watch=0", ("list", "api", "", "v1"),
                 ("other", "pods", "", ""), ["pods"], id="watch-0"),
    pytest.param("GET", "/api/v1/watch/namespaces/other/pods/foo", ("watch", "api", "", "v1"),
                 ("other", "pods", "", "foo"), ["pods", "foo"], id="legacy-watch-one"),
    # subresources, and the namespace subresources that are not namespaced resources
    pytest.param("GET", "/api/v1/namespaces/other/pods/foo/status", ("get", "api", "", "v1"),
                 ("other", "pods", "status", "foo"), ["pods", "foo", "status"], id="pod-status"),
    pytest.param("GET", "/api/v1/namespaces/other/pods/foo/proxy/subpath", ("get", "api", "", "v1"),
                 ("other", "pods", "proxy", "foo"), ["pods", "foo", "proxy", "subpath"],
                 id="pod-proxy-subpath"),
    pytest.param("PUT", "/api/v1/namespaces/other/finalize", ("update", "api", "", "v1"),
                 ("other", "namespaces", "finalize", "other"), ["namespaces", "other", "finalize"],
                 id="namespace-finalize"),
    pytest.param("PUT", "/api/v1/namespaces/other/status", ("update", "api", "", "v1"),
                 ("other", "namespaces", "status", "other"), ["namespaces", "other", "status"],
                 id="namespace-status"),
    # verbs from methods
    pytest.param("PATCH", "/api/v1/namespaces/other/pods/foo", ("patch", "api", "", "v1"),
                 ("other", "pods", "", "foo"), ["pods", "foo"], id="patch-pod"),
    pytest.param("DELETE", "/api/v1/namespaces/other/pods/foo", ("delete", "api", "", "v1"),
                 ("other", "pods", "", "foo"), ["pods", "foo"], id="delete-pod"),
    pytest.param("POST", "/api/v1/namespaces/other/pods", ("create", "api", "", "v1"),
                 ("other", "pods", "", ""), ["pods"], id="create-pod"),
    pytest.param("DELETE", "/api/v1/nodes", ("deletecollection", "api", "", "v1"),
                 ("", "nodes", "", ""), ["nodes"], id="deletecollection-cluster"),
    pytest.param("DELETE", "/api/v1/namespaces", ("deletecollection", "api", "", "v1"),
                 ("", "namespaces", "", ""), ["namespaces"], id="deletecollection-namespaces"),
    pytest.param("DELETE", "/api/v1/namespaces/other/pods", ("deletecollection", "api", "", "v1"),
                 ("other", "pods", "", ""), ["pods"], id="deletecollection-namespaced"),
    pytest.param("DELETE", "/apis/extensions/v1/namespaces/other/pods",
                 ("deletecollection", "apis", "extensions", "v1"),
                 ("other", "pods", "", ""), ["pods"], id="deletecollection-group"),
    # groups and versions
    pytest.param("POST", "/apis/extensions/v1/namespaces/other/pods", ("create", "apis", "extensions", "v1"),
                 ("other", "pods", "", ""), ["pods"], id="group"),
    pytest.param("POST", "/apis/extensions/v1beta3/namespaces/other/pods",
                 ("create", "apis", "extensions", "v1beta3"),
                 ("other", "pods", "", ""), ["pods"], id="version"),
    pytest.param("GET", "/apis/apps/v1/namespaces/default/deployments/x/scale", ("get", "apis", "apps", "v1"),
                 ("default", "deployments", "scale", "x"), ["deployments", "x", "scale"],
                 id="deployment-scale"),
    pytest.param("GET", "/apis/batch/v1/job/foo/scale", ("get", "apis", "batch", "v1"),
                 ("", "job", "scale", "foo"), ["job", "foo", "scale"], id="group-no-namespace"),
    # a method kube has no verb for
    pytest.param("OPTIONS", "/api/v1/pods", ("", "api", "", "v1"),
                 ("", "pods", "", ""), ["pods"], id="options-has-no-verb"),
]


@pytest.mark.parametrize(("method", "url", "api", "target", "parts"), RESOURCE_CASES)
def test_resource_requests(
    method: str, url: str, api: tuple[str, str, str, str], target: tuple[str, str, str, str], parts: list[str]
) -> None:
    verb, prefix, group, version = api
    namespace, resource, subresource, name = target
    assert parse(method, url) == RequestInfo(
        path=urlsplit(url).path,
        is_resource_request=True,
        verb=verb,
        api_prefix=prefix,
        api_group=group,
        api_version=version,
        namespace=namespace,
        resource=resource,
        subresource=subresource,
        name=name,
        parts=parts,
    )


@pytest.mark.parametrize(
    ("url", "resource_request"),
    [
        ("/api/version/resource", True),
        ("/apis/group/version/resource/name/subresource", True),
        ("/api/version/resource/name/subresource", True),
        ("/apis/batch/v1/job", True),
        ("/apis/batch/v1/job/foo", True),
        ("/apis/batch/v1/job/foo/scale", True),
        ("/not-api/version/resource", False),
        ("/apis/extensions/v1beta1", False),
        ("/apis/extensions/v1beta1/", False),
        ("/apis/version/resource", False),
        ("/api/version", False),
        ("/api/version/", False),
        ("/api", False),
        ("/apis", False),
        ("/", False),
        ("", False),
        ("/healthz", False),
        ("/openapi/v3/apis/apps/v1", False),
    ],
    ids=[
        "simple-groupless", "simple-group", "more-steps", "group-list", "group-get", "group-subresource",
        "bad-root", "group-without-enough-steps", "group-without-enough-steps-slash", "missing-group",
        "not-enough-steps", "not-enough-steps-slash", "one-step", "apis-root", "root", "empty", "healthz",
        "openapi",
    ],
)
def test_resource_or_not(url: str, resource_request: bool) -> None:
    assert parse("GET", url).is_resource_request is resource_request


@pytest.mark.parametrize(
    ("method", "url", "verb", "prefix", "group", "version"),
    [
        ("GET", "/healthz", "get", "", "", ""),
        ("POST", "/api", "post", "", "", ""),
        ("GET", "/api/v1", "get", "", "", ""),
        ("GET", "/apis/apps", "get", "", "", ""),
        # kube records the prefix before it finds the group-version too short to name a resource
        ("PUT", "/apis/apps/v1", "put", "apis", "", ""),
        ("HEAD", "/version", "head", "", "", ""),
    ],
    ids=["healthz", "api-post", "api-v1", "apis-group", "apis-group-version-put", "version-head"],
)
def test_non_resource_requests_keep_the_lowercased_method(
    method: str, url: str, verb: str, prefix: str, group: str, version: str
) -> None:
    info = parse(method, url)
    got = (info.is_resource_request, info.verb, info.api_prefix, info.api_group, info.api_version, info.parts)
    assert got == (False, verb, prefix, group, version, [])


@pytest.mark.parametrize(
    ("url", "verb", "name"),
    [
        ("/apis/group/version/resource", "list", ""),
        ("/apis/group/version/resource?fieldSelector=metadata.name=name1", "list", "name1"),
        ("/apis/group/version/resource?fieldSelector=metadata.name==name1", "list", "name1"),
        ("/apis/group/version/resource?watch=true&fieldSelector=metadata.name=name1", "watch", "name1"),
        ("/apis/group/version/resource?fieldSelector=foo=bar", "list", ""),
        ("/apis/group/version/resource?fieldSelector=metadata.name!=name1", "list", ""),
        ("/apis/group/version/resource?fieldSelector=metadata.name=name1,foo", "list", ""),
        ("/apis/group/version/resource?fieldSelector=metadata.name=name1,foo&watch=true", "watch", ""),
        ("/apis/group/version/resource?fieldSelector=metadata.name=name1,foo&watch=false", "list", ""),
        ("/apis/group/version/resource?fieldSelector=metadata.name=..", "list", ""),
        ("/apis/group/version/resource?fieldSelector=metadata.name=a%25b", "list", ""),
        ("/api/v1/namespaces/default/pods?fieldSelector=metadata.name%3Dx&limit=500", "list", "x"),
    ],
    ids=[
        "no-selector", "name-selector", "name-selector-double-equals", "name-selector-watch", "other-field",
        "not-equals", "invalid-selector", "invalid-selector-watch", "invalid-selector-watch-false",
        "dot-dot-is-not-a-name", "percent-is-not-a-name", "kubectl-wait-list",
    ],
)
def test_field_selector_names_the_object(url: str, verb: str, name: str) -> None:
    info = parse("GET", url)
    assert (info.verb, info.name) == (verb, name)


@pytest.mark.parametrize(
    ("value", "verb"),
    [("true", "watch"), ("1", "watch"), ("TRUE", "watch"), ("yes", "watch"), ("", "watch"),
     ("false", "list"), ("False", "list"), ("0", "list")],
    ids=["true", "one", "upper-true", "yes", "empty", "false", "capital-false", "zero"],
)
def test_watch_parameter_is_true_unless_false_or_zero(value: str, verb: str) -> None:
    assert parse("GET", f"/api/v1/pods?watch={value}").verb == verb


@pytest.mark.parametrize(
    ("method", "url", "verb"),
    [
        ("GET", "/api/v1/namespaces/ns/pods/foo?watch=true", "get"),
        ("DELETE", "/api/v1/namespaces/ns/pods?fieldSelector=metadata.name%3Dfoo", "deletecollection"),
        ("GET", "/api/v1/namespaces/ns/pods/foo?fieldSelector=metadata.name%3Dbar", "get"),
    ],
    ids=["get-ignores-watch", "deletecollection-keeps-its-verb", "path-name-wins"],
)
def test_named_requests_keep_their_verb(method: str, url: str, verb: str) -> None:
    info = parse(method, url)
    assert (info.verb, info.name) == (verb, "foo" if "pods/foo" in url else "")


def test_path_is_taken_as_decoded() -> None:
    # the server hands over the decoded path (Go's URL.Path); decoding it again would change names
    info = parse_request_info("GET", "/api/v1/namespaces/default/configmaps/a%41", {})
    assert (info.name, info.path) == ("a%41", "/api/v1/namespaces/default/configmaps/a%41")


@pytest.mark.xfail(strict=True, reason="kube's deprecated /proxy/ verb is not parsed: nothing serves it")
def test_legacy_proxy_verb() -> None:
    info = parse("GET", "/api/v1/proxy/namespaces/other/pods/foo/subpath/not/a/subresource")
    assert (info.verb, info.namespace, info.resource, info.name, info.subresource) == (
        "proxy", "other", "pods", "foo", ""
    )
