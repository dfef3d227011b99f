"""Label and field selector parsing, printing and matching, with kube's exact error texts."""

from __future__ import annotations

import pytest

from kubelite.apimachinery.selectors import (
    FieldRequirement,
    FieldSelector,
    LabelSelector,
    Requirement,
    SelectorError,
    escape_field_value,
    label_selector_from_spec,
    parse_field_selector,
    parse_label_selector,
    unescape_field_value,
)

LABEL_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used "
    "for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)
NAME_PART_MSG = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
PREFIX_PART_MSG = (
    "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
    r"validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
LABEL_KEY_MSG = (
    "a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with "
    "an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' "
    "(e.g. 'example.com/MyName')"
)
OPERATORS = "in, notin, =, ==, !=, gt, lt"
NOT_INT = "for 'Gt', 'Lt' operators, the value must be an integer"


# -- label selector parsing --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        pytest.param("", "", id="empty"),
        pytest.param("  \t\n", "", id="whitespace-only"),
        pytest.param("a=b", "a=b", id="equals"),
        pytest.param("a==b", "a==b", id="double-equals"),
        pytest.param("a!=b", "a!=b", id="not-equals"),
        pytest.param("a", "a", id="exists"),
        pytest.param("!a", "!a", id="does-not-exist"),
        pytest.param("a in (y,x)", "a in (x,y)", id="in-sorted"),
        pytest.param("a in (x,x)", "a in (x)", id="in-deduplicated"),
        pytest.param("a notin (x)", "a notin (x)", id="notin"),
        pytest.param("a>1", "a>1", id="greater-than"),
        pytest.param("a<10", "a<10", id="less-than"),
        pytest.param("b=2,a=1", "a=1,b=2", id="sorted-by-key"),
        pytest.param("a=b,a!=c", "a=b,a!=c", id="same-key-keeps-order"),
        pytest.param("x in (foo,,baz),y,z notin ()", "x in (,baz,foo),y,z notin ()", id="empty-values"),
        pytest.param("a in (,)", "a in ()", id="only-commas"),
        pytest.param("x in (in)", "x in (in)", id="keyword-as-value"),
        pytest.param("in", "in", id="keyword-as-key"),
        pytest.param("notin", "notin", id="notin-as-key"),
        pytest.param("a=", "a=", id="empty-exact-value"),
        pytest.param("a=,b", "a=,b", id="empty-exact-value-then-more"),
        pytest.param("a\tin\t(x)", "a in (x)", id="tabs"),
        pytest.param("  a  =  b  ,  c  ", "a=b,c", id="spaces-everywhere"),
        pytest.param("example.com/app=web", "example.com/app=web", id="prefixed-key"),
        pytest.param("!a,!b", "!a,!b", id="two-absent"),
        pytest.param("a>1,a<3", "a>1,a<3", id="range"),
        pytest.param("x=" + "a" * 63, "x=" + "a" * 63, id="value-at-limit"),
    ],
)
def test_parse_label_selector(text: str, canonical: str) -> None:
    assert str(parse_label_selector(text)) == canonical


def test_nul_is_read_as_end_of_input() -> None:
    # kube's lexer returns 0 at the end of input, so a NUL byte after a separator ends the selector...
    assert str(parse_label_selector("a=b \x00c=d")) == "a=b"
    # ...while one inside a word only ends that word
    with pytest.raises(SelectorError) as info:
        parse_label_selector("a=b\x00c")
    assert info.value.message == "found 'c', expected: ',' or 'end of string'"


@pytest.mark.parametrize(
    ("text", "requirements"),
    [
        pytest.param("a in (y,x)", [Requirement("a", "in", ("x", "y"))], id="in"),
        pytest.param("!a", [Requirement("a", "!")], id="absent"),
        pytest.param("a", [Requirement("a", "exists")], id="exists"),
        pytest.param(
            "b==1,a>2", [Requirement("a", "gt", ("2",)), Requirement("b", "==", ("1",))], id="sorted"
        ),
        pytest.param("a in ()", [Requirement("a", "in", ("",))], id="empty-set-is-empty-value"),
    ],
)
def test_parsed_requirements(text: str, requirements: list[Requirement]) -> None:
    assert list(parse_label_selector(text).requirements) == requirements


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param(",a", "found ',', expected: !, identifier, or 'end of string'", id="leading-comma"),
        pytest.param("(", "found '(', expected: !, identifier, or 'end of string'", id="leading-paren"),
        pytest.param("a,", "found '', expected: identifier after ','", id="trailing-comma"),
        pytest.param("a=b,,c", "found ',', expected: identifier after ','", id="double-comma"),
        pytest.param("a=b c", "found 'c', expected: ',' or 'end of string'", id="missing-comma"),
        pytest.param("a=b=c", "found '=', expected: ',' or 'end of string'", id="second-operator"),
        pytest.param("!a=b", "found '=', expected: ',' or 'end of string'", id="absent-with-value"),
        pytest.param("a in (x))", "found ')', expected: ',' or 'end of string'", id="extra-paren"),
        pytest.param(
            "a b", f"unable to parse requirement: found 'b', expected: {OPERATORS}", id="no-operator"
        ),
        pytest.param("a!b", f"unable to parse requirement: found '!', expected: {OPERATORS}", id="bang"),
        pytest.param(
            "a!", f"unable to parse requirement: found '!', expected: {OPERATORS}", id="trailing-bang"
        ),
        pytest.param("a in", "unable to parse requirement: found '' expected: '('", id="in-without-set"),
        pytest.param(
            "a in (,b", "unable to parse requirement: found '', expected: ',' or ')'", id="unclosed-list"
        ),
        pytest.param("a in x", "unable to parse requirement: found 'x' expected: '('", id="in-without-paren"),
        pytest.param("a in (x", "unable to parse requirement: found '', expected: ',' or ')'", id="unclosed"),
        pytest.param(
            "a in (x y)", "unable to parse requirement: found 'y', expected: ',' or ')'", id="no-comma"
        ),
        pytest.param(
            "a in (=)",
            "unable to parse requirement: found '=', expected: ',', ')' or identifier",
            id="bad-set",
        ),
        pytest.param(
            "a in (b,", "unable to parse requirement: found '', expected: ',', or identifier", id="open-list"
        ),
        pytest.param("a=(", "unable to parse requirement: found '(', expected: identifier", id="paren-value"),
        pytest.param("a=)", "unable to parse requirement: found ')', expected: identifier", id="close-value"),
        pytest.param("a<=1", "unable to parse requirement: found '=', expected: identifier", id="less-equal"),
        pytest.param("!", "unable to parse requirement: found '', expected: identifier", id="lone-bang"),
        pytest.param("!!a", "unable to parse requirement: found '!', expected: identifier", id="double-bang"),
        pytest.param(
            "a>b_",
            f'unable to parse requirement: [values[0]: Invalid value: "b_": {NOT_INT}, '
            f'values[0][a]: Invalid value: "b_": {LABEL_VALUE_MSG}]',
            id="gt-not-integer-and-bad-value",
        ),
        pytest.param(
            "a>", f'unable to parse requirement: values[0]: Invalid value: "": {NOT_INT}', id="gt-empty"
        ),
        pytest.param(
            "a>9223372036854775808",
            f'unable to parse requirement: values[0]: Invalid value: "9223372036854775808": {NOT_INT}',
            id="gt-overflow",
        ),
        pytest.param(
            "a>-5",
            f'unable to parse requirement: values[0][a]: Invalid value: "-5": {LABEL_VALUE_MSG}',
            id="negative-is-not-a-label-value",
        ),
        pytest.param(
            "a<+5",
            f'unable to parse requirement: values[0][a]: Invalid value: "+5": {LABEL_VALUE_MSG}',
            id="signed-is-not-a-label-value",
        ),
        pytest.param(
            "a=é",
            f'unable to parse requirement: values[0][a]: Invalid value: "é": {LABEL_VALUE_MSG}',
            id="utf8",
        ),
        pytest.param(
            "x=" + "a" * 64,
            f'unable to parse requirement: values[0][x]: Invalid value: "{"a" * 64}": '
            "must be no more than 63 bytes",
            id="value-too-long",
        ),
        pytest.param(
            "a" * 64 + "=x",
            f'unable to parse requirement: <nil>: Invalid value: "{"a" * 64}": '
            "name part must be no more than 63 bytes",
            id="key-too-long",
        ),
        pytest.param(
            "app:web",
            f'unable to parse requirement: <nil>: Invalid value: "app:web": {NAME_PART_MSG}',
            id="colon",
        ),
        pytest.param(
            "A_/b",
            f'unable to parse requirement: <nil>: Invalid value: "A_/b": {PREFIX_PART_MSG}',
            id="bad-prefix",
        ),
        pytest.param(
            "/b=e",
            'unable to parse requirement: <nil>: Invalid value: "/b": prefix part must be non-empty',
            id="no-prefix",
        ),
        pytest.param(
            "a/",
            'unable to parse requirement: <nil>: Invalid value: "a/": '
            f"name part must be non-empty; {NAME_PART_MSG}",
            id="empty-name-part",
        ),
        pytest.param(
            "a/b/c=e",
            f'unable to parse requirement: <nil>: Invalid value: "a/b/c": {LABEL_KEY_MSG}',
            id="two-slashes",
        ),
        pytest.param(
            "a\vb=c",
            f'unable to parse requirement: <nil>: Invalid value: "a\\vb": {NAME_PART_MSG}',
            id="vtab-in-key",
        ),
    ],
)
def test_parse_label_selector_errors(text: str, message: str) -> None:
    with pytest.raises(SelectorError) as info:
        parse_label_selector(text)
    assert info.value.message == message
    assert str(info.value) == message


# -- label selector matching -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "labels", "expected"),
    [
        pytest.param("", None, True, id="everything-no-labels"),
        pytest.param("", {"a": "b"}, True, id="everything"),
        pytest.param("a=b", {"a": "b"}, True, id="equals-hit"),
        pytest.param("a=b", {"a": "c"}, False, id="equals-miss"),
        pytest.param("a=b", {}, False, id="equals-absent"),
        pytest.param("a==b", {"a": "b"}, True, id="double-equals"),
        pytest.param("a=", {"a": ""}, True, id="equals-empty-value"),
        pytest.param("a=", {}, False, id="equals-empty-absent"),
        pytest.param("a!=b", {"a": "c"}, True, id="not-equals-other"),
        pytest.param("a!=b", {"a": "b"}, False, id="not-equals-same"),
        pytest.param("a!=b", {}, True, id="not-equals-absent"),
        pytest.param("a in (x,y)", {"a": "y"}, True, id="in-hit"),
        pytest.param("a in (x,y)", {"a": "z"}, False, id="in-miss"),
        pytest.param("a in (x,y)", None, False, id="in-absent"),
        pytest.param("a notin (x,y)", {"a": "z"}, True, id="notin-other"),
        pytest.param("a notin (x,y)", {"a": "x"}, False, id="notin-listed"),
        pytest.param("a notin (x,y)", {}, True, id="notin-absent"),
        pytest.param("a", {"a": ""}, True, id="exists"),
        pytest.param("a", {"b": "a"}, False, id="exists-absent"),
        pytest.param("!a", {"b": "1"}, True, id="absent"),
        pytest.param("!a", {"a": ""}, False, id="absent-present"),
        pytest.param("a>1", {"a": "2"}, True, id="gt-hit"),
        pytest.param("a>1", {"a": "1"}, False, id="gt-equal"),
        pytest.param("a>1", {"a": "x"}, False, id="gt-not-number"),
        pytest.param("a>1", {}, False, id="gt-absent"),
        pytest.param("a<10", {"a": "-3"}, True, id="lt-negative-label"),
        pytest.param("a<10", {"a": "010"}, False, id="lt-leading-zero"),
        pytest.param("a<10", {"a": "9"}, True, id="lt-hit"),
        pytest.param("a=b,c", {"a": "b", "c": "x"}, True, id="and-both"),
        pytest.param("a=b,c", {"a": "b"}, False, id="and-one"),
    ],
)
def test_label_selector_matches(text: str, labels: dict[str, str] | None, expected: bool) -> None:
    assert parse_label_selector(text).matches(labels) is expected


@pytest.mark.parametrize(
    ("selector", "empty", "text", "matches_anything"),
    [
        pytest.param(LabelSelector.everything(), True, "", True, id="everything"),
        pytest.param(LabelSelector.nothing(), False, "", False, id="nothing"),
        pytest.param(parse_label_selector("a"), False, "a", True, id="parsed"),
        pytest.param(LabelSelector.from_set({"b": "2", "a": "1"}), False, "a=1,b=2", True, id="from-set"),
        pytest.param(LabelSelector.from_set({}), True, "", True, id="from-empty-set"),
    ],
)
def test_label_selector_shapes(
    selector: LabelSelector, empty: bool, text: str, matches_anything: bool
) -> None:
    assert selector.empty is empty
    assert str(selector) == text
    assert selector.matches({"a": "1", "b": "2"}) is matches_anything


@pytest.mark.parametrize(
    ("text", "key", "expected"),
    [
        pytest.param("a=b", "a", "b", id="equals"),
        pytest.param("a==b", "a", "b", id="double-equals"),
        pytest.param("a in (b)", "a", "b", id="in-single"),
        pytest.param("a in (b,c)", "a", None, id="in-several"),
        pytest.param("a!=b", "a", None, id="not-equals"),
        pytest.param("a=b", "c", None, id="other-key"),
        pytest.param("a,a=b", "a", None, id="first-requirement-decides"),
    ],
)
def test_label_requires_exact_match(text: str, key: str, expected: str | None) -> None:
    assert parse_label_selector(text).requires_exact_match(key) == expected


# -- metav1.LabelSelector ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "text", "empty"),
    [
        pytest.param({}, "", True, id="empty-selects-everything"),
        pytest.param({"matchLabels": {}, "matchExpressions": []}, "", True, id="empty-parts"),
        pytest.param({"matchLabels": {"b": "2", "a": "1"}}, "a=1,b=2", False, id="match-labels"),
        pytest.param(
            {
                "matchLabels": {"app": "web"},
                "matchExpressions": [
                    {"key": "tier", "operator": "In", "values": ["fe", "be"]},
                    {"key": "env", "operator": "NotIn", "values": ["prod"]},
                    {"key": "canary", "operator": "Exists"},
                    {"key": "legacy", "operator": "DoesNotExist"},
                ],
            },
            "app=web,canary,env notin (prod),!legacy,tier in (be,fe)",
            False,
            id="all-operators",
        ),
    ],
)
def test_label_selector_from_spec(spec: dict[str, object], text: str, empty: bool) -> None:
    selector = label_selector_from_spec(spec)
    assert str(selector) == text
    assert selector.empty is empty


def test_nil_spec_selects_nothing() -> None:
    selector = label_selector_from_spec(None)
    assert selector.matches({}) is False
    assert selector.empty is False
    assert str(selector) == ""


def test_spec_in_keeps_given_values() -> None:
    selector = label_selector_from_spec(
        {"matchExpressions": [{"key": "a", "operator": "In", "values": ["y", "x"]}]}
    )
    assert selector.requirements == (Requirement("a", "in", ("y", "x")),)
    assert selector.matches({"a": "x"}) is True


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        pytest.param(
            {"matchExpressions": [{"key": "a", "operator": "Gt", "values": ["1"]}]},
            '"Gt" is not a valid label selector operator',
            id="bad-operator",
        ),
        pytest.param(
            {"matchExpressions": [{"key": "a", "operator": "In"}]},
            "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty",
            id="in-without-values",
        ),
        pytest.param(
            {"matchExpressions": [{"key": "a", "operator": "Exists", "values": ["x"]}]},
            'values: Invalid value: ["x"]: values set must be empty for exists and does not exist',
            id="exists-with-values",
        ),
        pytest.param(
            {"matchLabels": {"a_": "x"}},
            f'key: Invalid value: "a_": {NAME_PART_MSG}',
            id="bad-key",
        ),
        pytest.param(
            {"matchLabels": {"app": "a b"}},
            f'values[0][app]: Invalid value: "a b": {LABEL_VALUE_MSG}',
            id="bad-value",
        ),
        pytest.param(
            {"matchLabels": {"a_": "-"}},
            f'[key: Invalid value: "a_": {NAME_PART_MSG}, '
            f'values[0][a_]: Invalid value: "-": {LABEL_VALUE_MSG}]',
            id="several-errors",
        ),
    ],
)
def test_label_selector_from_spec_errors(spec: dict[str, object], message: str) -> None:
    with pytest.raises(SelectorError) as info:
        label_selector_from_spec(spec)
    assert info.value.message == message


@pytest.mark.parametrize(
    ("key", "operator", "values", "message"),
    [
        pytest.param(
            "a",
            "=",
            [],
            "values: Invalid value: null: exact-match compatibility requires one single value",
            id="equals-no-value",
        ),
        pytest.param(
            "a",
            "gt",
            ["1", "2"],
            "values: Invalid value: [\"1\",\"2\"]: for 'Gt', 'Lt' operators, exactly one value is required",
            id="gt-two-values",
        ),
        pytest.param(
            "a",
            "~",
            [],
            'operator: Unsupported value: "~": supported values: "in", "notin", "=", "==", "!=", "gt", "lt", '
            '"exists", "!"',
            id="unknown-operator",
        ),
    ],
)
def test_new_requirement_errors(key: str, operator: str, values: list[str], message: str) -> None:
    with pytest.raises(SelectorError) as info:
        Requirement.new(key, operator, values)
    assert info.value.message == message


# -- field selectors ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "requirements", "canonical"),
    [
        pytest.param("", [], "", id="empty"),
        pytest.param(",", [], "", id="only-comma"),
        pytest.param("a=b", [FieldRequirement("a", "=", "b")], "a=b", id="equals"),
        pytest.param("a==b", [FieldRequirement("a", "=", "b")], "a=b", id="double-equals"),
        pytest.param("a!=b", [FieldRequirement("a", "!=", "b")], "a!=b", id="not-equals"),
        pytest.param("a=", [FieldRequirement("a", "=", "")], "a=", id="empty-value"),
        pytest.param("=a", [FieldRequirement("", "=", "a")], "=a", id="empty-field"),
        pytest.param(
            "spec.nodeName=n1,metadata.name=x",
            [FieldRequirement("metadata.name", "=", "x"), FieldRequirement("spec.nodeName", "=", "n1")],
            "metadata.name=x,spec.nodeName=n1",
            id="sorted-terms",
        ),
        pytest.param(r"a=x\,y", [FieldRequirement("a", "=", "x,y")], r"a=x\,y", id="escaped-comma"),
        pytest.param(r"a=x\=y", [FieldRequirement("a", "=", "x=y")], r"a=x\=y", id="escaped-equals"),
        pytest.param(r"a=x\\y", [FieldRequirement("a", "=", "x\\y")], r"a=x\\y", id="escaped-backslash"),
        pytest.param("a=!b", [FieldRequirement("a", "=", "!b")], "a=!b", id="bang-in-value"),
        pytest.param(
            r"a\,b=c", [FieldRequirement(r"a\,b", "=", "c")], r"a\,b=c", id="escaped-comma-in-field"
        ),
        pytest.param(
            "a=1,a!=2",
            [FieldRequirement("a", "!=", "2"), FieldRequirement("a", "=", "1")],
            "a!=2,a=1",
            id="raw-text-order",
        ),
    ],
)
def test_parse_field_selector(text: str, requirements: list[FieldRequirement], canonical: str) -> None:
    selector = parse_field_selector(text)
    assert selector.requirements == requirements
    assert str(selector) == canonical
    assert selector.empty is (not requirements)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param("a", "invalid selector: 'a'; can't understand 'a'", id="no-operator"),
        pytest.param("a=b,c", "invalid selector: 'a=b,c'; can't understand 'c'", id="second-term"),
        pytest.param("a=b=c", "invalid field selector: unescaped character in value: 61", id="bare-equals"),
        pytest.param("a===b", "invalid field selector: unescaped character in value: 61", id="triple-equals"),
        pytest.param(
            "a!=b=c", "invalid field selector: unescaped character in value: 61", id="not-equals-bare"
        ),
        pytest.param(r"a=b\x", r"invalid field selector: invalid escape sequence: \x", id="unknown-escape"),
        pytest.param("a=b\\", "invalid field selector: invalid escape sequence: \\", id="trailing-backslash"),
    ],
)
def test_parse_field_selector_errors(text: str, message: str) -> None:
    with pytest.raises(SelectorError) as info:
        parse_field_selector(text)
    assert info.value.message == message


@pytest.mark.parametrize(
    ("text", "fields", "expected"),
    [
        pytest.param("", {}, True, id="everything"),
        pytest.param("metadata.name=x", {"metadata.name": "x"}, True, id="equals-hit"),
        pytest.param("metadata.name=x", {"metadata.name": "y"}, False, id="equals-miss"),
        pytest.param("metadata.name!=x", {"metadata.name": "x"}, False, id="not-equals-same"),
        pytest.param("metadata.name!=x", {"metadata.name": "y"}, True, id="not-equals-other"),
        pytest.param("spec.nodeName=", {}, True, id="missing-reads-empty"),
        pytest.param("spec.nodeName!=", {}, False, id="missing-is-not-unequal-to-empty"),
        pytest.param("spec.nodeName!=n1", {}, True, id="missing-differs"),
        pytest.param("a=1,b=2", {"a": "1", "b": "2"}, True, id="and-both"),
        pytest.param("a=1,b=2", {"a": "1", "b": "3"}, False, id="and-one"),
        pytest.param(r"a=x\,y", {"a": "x,y"}, True, id="unescaped-value"),
    ],
)
def test_field_selector_matches(text: str, fields: dict[str, str], expected: bool) -> None:
    assert parse_field_selector(text).matches(fields) is expected


@pytest.mark.parametrize(
    ("text", "field", "expected"),
    [
        pytest.param("metadata.name=x", "metadata.name", "x", id="single"),
        pytest.param("metadata.name==x,metadata.namespace=ns", "metadata.namespace", "ns", id="second-term"),
        pytest.param("metadata.name!=x", "metadata.name", None, id="not-equals"),
        pytest.param("a!=1,a=2", "a", "2", id="skips-not-equals"),
        pytest.param("metadata.name=x", "spec.nodeName", None, id="other-field"),
        pytest.param("", "metadata.name", None, id="empty"),
    ],
)
def test_field_exact_match(text: str, field: str, expected: str | None) -> None:
    assert parse_field_selector(text).exact_match(field) == expected


def test_field_selector_constructors_and_transform() -> None:
    selector = FieldSelector.one_term_equal("spec.host", "n1")
    assert str(selector) == "spec.host=n1"
    assert FieldSelector.everything().empty is True
    renamed = selector.transform(lambda f, v: ("spec.nodeName" if f == "spec.host" else f, v))
    assert str(renamed) == "spec.nodeName=n1"


@pytest.mark.parametrize(
    ("raw", "escaped"),
    [
        pytest.param("plain", "plain", id="plain"),
        pytest.param("a,b", r"a\,b", id="comma"),
        pytest.param("a=b", r"a\=b", id="equals"),
        pytest.param("a\\b", r"a\\b", id="backslash"),
        pytest.param("\\,=", r"\\\,\=", id="all"),
        pytest.param("a!b", "a!b", id="bang-untouched"),
    ],
)
def test_escape_round_trip(raw: str, escaped: str) -> None:
    assert escape_field_value(raw) == escaped
    assert unescape_field_value(escaped) == raw


@pytest.mark.parametrize(
    ("selector", "pinned"),
    [
        ("app=web", ("app", "web")),
        ("app==web,tier!=db", ("app", "web")),
        ("tier!=db,app in (web)", ("app", "web")),
        ("app in (web,api)", None),
        ("app,!tier", None),
        ("a>1", None),
        ("", None),
    ],
    ids=["equals", "double-equals", "in-one", "in-two", "exists", "greater", "empty"],
)
def test_first_exact_match(selector: str, pinned: tuple[str, str] | None) -> None:
    assert parse_label_selector(selector).first_exact_match() == pinned
