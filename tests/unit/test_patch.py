"""JSON patch (RFC 6902, with its appendix A examples) and JSON merge patch (RFC 7386, with its appendix)."""

from __future__ import annotations

from typing import Any

import pytest

from kubelite.apimachinery.meta import deep_copy
from kubelite.apimachinery.patch.json_patch import JSONPatchError, apply_json_patch
from kubelite.apimachinery.patch.merge import apply_merge_patch

# -- RFC 6902 ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("doc", "patch", "expected"),
    [
        pytest.param(
            {"foo": "bar"},
            [{"op": "add", "path": "/baz", "value": "qux"}],
            {"baz": "qux", "foo": "bar"},
            id="A1-add-object-member",
        ),
        pytest.param(
            {"foo": ["bar", "baz"]},
            [{"op": "add", "path": "/foo/1", "value": "qux"}],
            {"foo": ["bar", "qux", "baz"]},
            id="A2-add-array-element",
        ),
        pytest.param(
            {"baz": "qux", "foo": "bar"},
            [{"op": "remove", "path": "/baz"}],
            {"foo": "bar"},
            id="A3-remove-object-member",
        ),
        pytest.param(
            {"foo": ["bar", "qux", "baz"]},
            [{"op": "remove", "path": "/foo/1"}],
            {"foo": ["bar", "baz"]},
            id="A4-remove-array-element",
        ),
        pytest.param(
            {"baz": "qux", "foo": "bar"},
            [{"op": "replace", "path": "/baz", "value": "boo"}],
            {"baz": "boo", "foo": "bar"},
            id="A5-replace",
        ),
        pytest.param(
            {"foo": {"bar": "baz", "waldo": "fred"}, "qux": {"corge": "grault"}},
            [{"op": "move", "from": "/foo/waldo", "path": "/qux/thud"}],
            {"foo": {"bar": "baz"}, "qux": {"corge": "grault", "thud": "fred"}},
            id="A6-move-value",
        ),
        pytest.param(
            {"foo": ["all", "grass", "cows", "eat"]},
            [{"op": "move", "from": "/foo/1", "path": "/foo/3"}],
            {"foo": ["all", "cows", "eat", "grass"]},
            id="A7-move-array-element",
        ),
        pytest.param(
            {"baz": "qux", "foo": ["a", 2, "c"]},
            [{"op": "test", "path": "/baz", "value": "qux"}, {"op": "test", "path": "/foo/1", "value": 2}],
            {"baz": "qux", "foo": ["a", 2, "c"]},
            id="A8-test-success",
        ),
        pytest.param(
            {"foo": "bar"},
            [{"op": "add", "path": "/child", "value": {"grandchild": {}}}],
            {"foo": "bar", "child": {"grandchild": {}}},
            id="A10-add-nested-object",
        ),
        pytest.param(
            {"foo": "bar"},
            [{"op": "add", "path": "/baz", "value": "qux", "xyz": 123}],
            {"foo": "bar", "baz": "qux"},
            id="A11-unrecognized-members-ignored",
        ),
        pytest.param(
            {"/": 9, "~1": 10},
            [{"op": "test", "path": "/~01", "value": 10}],
            {"/": 9, "~1": 10},
            id="A14-escape-ordering",
        ),
        pytest.param(
            {"foo": ["bar"]},
            [{"op": "add", "path": "/foo/-", "value": ["abc", "def"]}],
            {"foo": ["bar", ["abc", "def"]]},
            id="A16-add-array-value-at-end",
        ),
    ],
)
def test_rfc6902_appendix(doc: Any, patch: list[dict[str, Any]], expected: Any) -> None:
    assert apply_json_patch(doc, patch) == expected


@pytest.mark.parametrize(
    ("doc", "patch", "expected"),
    [
        pytest.param(
            {"a/b": 1, "m~n": 2},
            [{"op": "replace", "path": "/a~1b", "value": 3}],
            {"a/b": 3, "m~n": 2},
            id="slash-escape",
        ),
        pytest.param(
            {"a/b": 1, "m~n": 2}, [{"op": "remove", "path": "/m~0n"}], {"a/b": 1}, id="tilde-escape"
        ),
        pytest.param(
            {"~1": 1},
            [{"op": "copy", "from": "/~01", "path": "/~0~1"}],
            {"~1": 1, "~/": 1},
            id="escapes-decoded-once",
        ),
        pytest.param(
            {"a": [1, 2]},
            [{"op": "add", "path": "/a/2", "value": 3}],
            {"a": [1, 2, 3]},
            id="add-at-length-appends",
        ),
        pytest.param(
            {"a": [1, 2]},
            [{"op": "add", "path": "/a/0", "value": 0}],
            {"a": [0, 1, 2]},
            id="add-at-zero-inserts",
        ),
        pytest.param(
            {"a": {}},
            [{"op": "add", "path": "/a/-", "value": 1}],
            {"a": {"-": 1}},
            id="dash-is-a-plain-key-in-objects",
        ),
        pytest.param({"a": 1}, [{"op": "add", "path": "/a", "value": 2}], {"a": 2}, id="add-replaces-member"),
        pytest.param(
            {"a": 1}, [{"op": "add", "path": "", "value": [1]}], [1], id="add-root-replaces-document"
        ),
        pytest.param(
            {"a": 1}, [{"op": "replace", "path": "", "value": {"b": 2}}], {"b": 2}, id="replace-root"
        ),
        pytest.param(
            {"a": [1, 2, 3]},
            [{"op": "replace", "path": "/a/1", "value": 9}],
            {"a": [1, 9, 3]},
            id="replace-array-element-in-place",
        ),
        pytest.param(
            {"a": {"b": [1]}},
            [{"op": "copy", "from": "/a", "path": "/c"}],
            {"a": {"b": [1]}, "c": {"b": [1]}},
            id="copy-object",
        ),
        pytest.param(
            {"a": [1, 2]},
            [{"op": "copy", "from": "/a/0", "path": "/a/-"}],
            {"a": [1, 2, 1]},
            id="copy-to-end",
        ),
        pytest.param({"a": 1}, [{"op": "move", "from": "/a", "path": "/a"}], {"a": 1}, id="move-onto-itself"),
        pytest.param(
            {"a": {"b": 1}},
            [{"op": "move", "from": "/a/b", "path": "/c"}],
            {"a": {}, "c": 1},
            id="move-out-of-object",
        ),
        pytest.param(
            {"a": 1.0}, [{"op": "test", "path": "/a", "value": 1}], {"a": 1.0}, id="test-numbers-by-value"
        ),
        pytest.param(
            {"a": [{"b": None}]},
            [{"op": "test", "path": "/a", "value": [{"b": None}]}],
            {"a": [{"b": None}]},
            id="test-deep-equal",
        ),
        pytest.param({"a": 1}, [{"op": "test", "path": "", "value": {"a": 1}}], {"a": 1}, id="test-root"),
        pytest.param({"a": 1}, [], {"a": 1}, id="empty-patch"),
        pytest.param(
            {"metadata": {"labels": {"app": "x"}}},
            [
                {"op": "test", "path": "/metadata/labels/app", "value": "x"},
                {"op": "add", "path": "/metadata/labels/tier", "value": "web"},
                {"op": "remove", "path": "/metadata/labels/app"},
            ],
            {"metadata": {"labels": {"tier": "web"}}},
            id="operations-apply-in-order",
        ),
    ],
)
def test_json_patch_operations(doc: Any, patch: list[dict[str, Any]], expected: Any) -> None:
    assert apply_json_patch(doc, patch) == expected


@pytest.mark.parametrize(
    ("doc", "patch", "message"),
    [
        pytest.param(
            {"baz": "qux"},
            [{"op": "test", "path": "/baz", "value": "bar"}],
            "testing value /baz failed: test failed",
            id="A9-test-error",
        ),
        pytest.param(
            {"foo": "bar"},
            [{"op": "add", "path": "/baz/bat", "value": "qux"}],
            'doc is missing path: "/baz/bat": missing value',
            id="A12-add-to-nonexistent-target",
        ),
        pytest.param(
            {"/": 9, "~1": 10},
            [{"op": "test", "path": "/~01", "value": "10"}],
            "testing value /~01 failed: test failed",
            id="A15-string-is-not-number",
        ),
        pytest.param(
            {"a": 1},
            [{"op": "test", "path": "/a", "value": True}],
            "testing value /a failed: test failed",
            id="true-is-not-one",
        ),
        pytest.param(
            {"a": 0},
            [{"op": "test", "path": "/a", "value": False}],
            "testing value /a failed: test failed",
            id="false-is-not-zero",
        ),
        pytest.param(
            {"a": [1]},
            [{"op": "test", "path": "/a", "value": [True]}],
            "testing value /a failed: test failed",
            id="nested-true-is-not-one",
        ),
        pytest.param(
            {"a": {"b": 1}},
            [{"op": "test", "path": "/a", "value": {"b": 1, "c": 2}}],
            "testing value /a failed: test failed",
            id="extra-member-differs",
        ),
        pytest.param(
            {"a": 1},
            [{"op": "remove", "path": "/b"}],
            "unable to remove nonexistent key: b: missing value",
            id="remove-missing-key",
        ),
        pytest.param(
            {"a": [1]},
            [{"op": "remove", "path": "/a/1"}],
            "array index out of bounds: 1",
            id="remove-past-end",
        ),
        pytest.param(
            {"a": [1]},
            [{"op": "add", "path": "/a/2", "value": 0}],
            "array index out of bounds: 2",
            id="add-past-end",
        ),
        pytest.param(
            {"a": [1]},
            [{"op": "replace", "path": "/a/-", "value": 0}],
            "invalid array index: -",
            id="dash-only-for-add",
        ),
        pytest.param(
            {"a": [1, 2]},
            [{"op": "remove", "path": "/a/01"}],
            "invalid array index: 01",
            id="leading-zero-index",
        ),
        pytest.param(
            {"a": [1]},
            [{"op": "add", "path": "/a/-1", "value": 0}],
            "invalid array index: -1",
            id="negative-index",
        ),
        pytest.param(
            {"a": 1},
            [{"op": "replace", "path": "/b", "value": 2}],
            'doc is missing path: "/b": missing value',
            id="replace-missing",
        ),
        pytest.param(
            {"a": {"b": 1}},
            [{"op": "move", "from": "/a", "path": "/a/b/c"}],
            'doc is missing path: "/a/b/c": missing value',
            id="move-into-own-child",
        ),
        pytest.param(
            {"a": 1},
            [{"op": "copy", "from": "/x", "path": "/y"}],
            'doc is missing path: "/x": missing value',
            id="copy-from-missing",
        ),
        pytest.param(
            {"a": 1},
            [{"op": "add", "path": "a", "value": 2}],
            'invalid JSON pointer: "a"',
            id="pointer-without-slash",
        ),
        pytest.param(
            {"a": 1}, [{"op": "remove", "path": ""}], "cannot operate on the document root", id="remove-root"
        ),
        pytest.param(
            {"a": 1},
            [{"op": "add", "path": "/a/b", "value": 2}],
            'doc is missing path: "/a/b"',
            id="add-under-a-scalar",
        ),
        pytest.param({"a": 1}, [{"op": "bogus", "path": "/a"}], "Unexpected kind: bogus", id="unknown-op"),
        pytest.param({"a": 1}, [{"path": "/a"}], "invalid operation: missing op", id="missing-op"),
        pytest.param({"a": 1}, ["add"], "invalid operation: missing op", id="operation-not-an-object"),
        pytest.param(
            {"a": 1}, [{"op": "add", "value": 1}], "operation add is missing path", id="missing-path"
        ),
        pytest.param(
            {"a": 1}, [{"op": "add", "path": "/b"}], "missing value for operation add", id="missing-value"
        ),
        pytest.param(
            {"a": 1}, [{"op": "move", "path": "/b"}], "operation move is missing from", id="missing-from"
        ),
        pytest.param(
            {"a": 1},
            {"op": "add", "path": "/b", "value": 1},
            "json patch must be an array of operations",
            id="patch-not-a-list",
        ),
    ],
)
def test_json_patch_errors(doc: Any, patch: Any, message: str) -> None:
    with pytest.raises(JSONPatchError) as caught:
        apply_json_patch(doc, patch)
    assert str(caught.value) == message


def test_json_patch_is_atomic_and_leaves_inputs_alone() -> None:
    doc = {"a": {"b": [1, 2]}}
    value = {"c": [3]}
    patch = [{"op": "add", "path": "/x", "value": value}, {"op": "remove", "path": "/a/b/0"}]
    before_doc, before_patch = deep_copy(doc), deep_copy(patch)
    result = apply_json_patch(doc, patch)
    result["x"]["c"].append(4)
    assert (result, doc, patch) == ({"a": {"b": [2]}, "x": {"c": [3, 4]}}, before_doc, before_patch)
    with pytest.raises(JSONPatchError):
        apply_json_patch(doc, [{"op": "remove", "path": "/a"}, {"op": "test", "path": "/a", "value": 1}])
    assert doc == before_doc


# -- RFC 7386 ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("target", "patch", "expected"),
    [
        pytest.param({"a": "b"}, {"a": "c"}, {"a": "c"}, id="replace-member"),
        pytest.param({"a": "b"}, {"b": "c"}, {"a": "b", "b": "c"}, id="add-member"),
        pytest.param({"a": "b"}, {"a": None}, {}, id="null-deletes"),
        pytest.param({"a": "b", "b": "c"}, {"a": None}, {"b": "c"}, id="null-deletes-only-its-key"),
        pytest.param({"a": ["b"]}, {"a": "c"}, {"a": "c"}, id="scalar-replaces-array"),
        pytest.param({"a": "c"}, {"a": ["b"]}, {"a": ["b"]}, id="array-replaces-scalar"),
        pytest.param({"a": {"b": "c"}}, {"a": {"b": "d", "c": None}}, {"a": {"b": "d"}}, id="nested-merge"),
        pytest.param({"a": [{"b": "c"}]}, {"a": [1]}, {"a": [1]}, id="arrays-replace-whole"),
        pytest.param(["a", "b"], ["c", "d"], ["c", "d"], id="array-document"),
        pytest.param({"a": "b"}, ["c"], ["c"], id="array-patch-replaces-object"),
        pytest.param({"a": "foo"}, None, None, id="null-patch-replaces-document"),
        pytest.param({"a": "foo"}, "bar", "bar", id="string-patch-replaces-document"),
        pytest.param({"e": None}, {"a": 1}, {"e": None, "a": 1}, id="existing-null-kept"),
        pytest.param([1, 2], {"a": "b", "c": None}, {"a": "b"}, id="object-patch-on-array"),
        pytest.param(
            {}, {"a": {"bb": {"ccc": None}}}, {"a": {"bb": {}}}, id="nulls-under-new-objects-vanish"
        ),
    ],
)
def test_rfc7386_appendix(target: Any, patch: Any, expected: Any) -> None:
    assert apply_merge_patch(target, patch) == expected


@pytest.mark.parametrize(
    ("target", "patch", "expected"),
    [
        pytest.param(
            {"metadata": {"labels": {"a": "1", "b": "2"}}},
            {"metadata": {"labels": {"a": None, "c": "3"}}},
            {"metadata": {"labels": {"b": "2", "c": "3"}}},
            id="kubectl-label-style",
        ),
        pytest.param({"a": 1}, {}, {"a": 1}, id="empty-patch"),
        pytest.param({"a": 1}, {"b": None}, {"a": 1}, id="deleting-a-missing-key"),
        pytest.param(
            {"a": 1}, {"a": [None, {"b": None}]}, {"a": [None, {"b": None}]}, id="nulls-in-arrays-kept"
        ),
        pytest.param({"a": {"b": 1}}, {"a": 5}, {"a": 5}, id="scalar-replaces-object"),
        pytest.param({"a": 5}, {"a": {"b": None, "c": 1}}, {"a": {"c": 1}}, id="object-replaces-scalar"),
    ],
)
def test_merge_patch_cases(target: Any, patch: Any, expected: Any) -> None:
    assert apply_merge_patch(target, patch) == expected


def test_merge_patch_leaves_inputs_alone() -> None:
    target = {"a": {"b": 1, "c": [1]}, "d": 2}
    patch = {"a": {"b": None, "e": {"f": 1}}, "g": [1]}
    before_target, before_patch = deep_copy(target), deep_copy(patch)
    result = apply_merge_patch(target, patch)
    result["g"].append(2)
    result["a"]["e"]["f"] = 2
    assert (result, target, patch) == (
        {"a": {"c": [1], "e": {"f": 2}}, "d": 2, "g": [1, 2]},
        before_target,
        before_patch,
    )
