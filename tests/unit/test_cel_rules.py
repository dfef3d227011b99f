"""CEL validation rules of CRDs: compile-time errors, every kube library, transition rules, messages, costs."""

from __future__ import annotations

from typing import Any

import pytest

from kubelite.apiextensions.cel import SchemaRules

ROOT = "spec.versions[0].schema.openAPIV3Schema"


def _schema(rules: list[dict[str, Any]], **props: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {"spec": {"type": "object", "properties": props,
                                                      "x-kubernetes-validations": rules}}}


def _messages(rules: list[dict[str, Any]], spec: dict[str, Any], old: dict[str, Any] | None = None,
              **props: Any) -> list[str]:
    compiled, errors = SchemaRules.compile(_schema(rules, **props), ROOT)
    assert errors == []
    return [str(e) for e in compiled.validate({"spec": spec}, None if old is None else {"spec": old})]


STR = {"type": "string", "maxLength": 64}
STRS = {"type": "array", "maxItems": 10, "items": STR}
INTS = {"type": "array", "maxItems": 10, "items": {"type": "integer"}}

# (rule, passing spec, failing spec, properties)
LIBRARY_CASES = [
    ("strings", "self.s.lowerAscii().upperAscii() == 'AB' && self.s.charAt(0) == 'a' && self.s.indexOf('b') == 1",
     {"s": "ab"}, {"s": "ba"}, {"s": STR}),
    ("strings-split-join", "self.s.split(',').join('-') == 'a-b' && self.s.replace(',', '') == 'ab'",
     {"s": "a,b"}, {"s": "a;b"}, {"s": STR}),
    ("strings-substring-trim", "self.s.substring(1, 3) == 'bc' && ' x '.trim() == 'x'", {"s": "abcd"}, {"s": "axyd"},
     {"s": STR}),
    ("strings-format-quote", "'%s=%d'.format([self.s, 1]) == 'a=1' && strings.quote(self.s) == '\"a\"'",
     {"s": "a"}, {"s": "b"}, {"s": STR}),
    ("lists", "self.l.isSorted() && self.l.sum() == 6 && self.l.min() == 1 && self.l.max() == 3", {"l": [1, 2, 3]},
     {"l": [3, 2, 1, 1]}, {"l": INTS}),
    ("lists-index", "self.l.indexOf(2) == 1 && self.l.lastIndexOf(2) == 2", {"l": [1, 2, 2]}, {"l": [2, 1, 1]},
     {"l": INTS}),
    ("lists-ext", "lists.range(3) == [0, 1, 2] && self.l.slice(1, 3) == [2, 3] && [[1], [2, [3]]].flatten() == "
     "[1, 2, [3]] && self.l.distinct().size() == 3 && self.l.reverse()[0] == 3 && self.l.sort()[0] == 1 "
     "&& self.l.last().value() == 3", {"l": [1, 2, 3]}, {"l": [1, 2, 2, 4]}, {"l": INTS}),
    ("sets", "sets.contains(self.l, [1]) && sets.intersects(self.l, [3, 4]) && sets.equivalent(self.l, [3, 1, 1])",
     {"l": [1, 3]}, {"l": [1, 4]}, {"l": INTS}),
    ("regex", "self.s.find('[0-9]+') == '12' && self.s.findAll('[a-z]').size() == 2", {"s": "a12b"}, {"s": "a1b"},
     {"s": STR}),
    ("urls", "isURL(self.s) && url(self.s).getScheme() == 'https' && url(self.s).getHostname() == 'x.io' "
     "&& url(self.s).getPort() == '8443' && url(self.s).getEscapedPath() == '/p' "
     "&& url(self.s).getQuery()['a'] == ['b']", {"s": "https://x.io:8443/p?a=b"}, {"s": "http://x.io/p"},
     {"s": STR}),
    ("quantity", "isQuantity(self.s) && quantity(self.s).isGreaterThan(quantity('1Gi')) "
     "&& quantity(self.s).add(quantity('1Gi')).compareTo(quantity('3Gi')) == 0 "
     "&& quantity(self.s).sub(1).isLessThan(quantity(self.s)) && quantity('2k').asInteger() == 2000",
     {"s": "2Gi"}, {"s": "1Gi"}, {"s": STR}),
    ("ip", "isIP(self.s) && ip(self.s).family() == 4 && ip(self.s).isLoopback() && string(ip(self.s)) == self.s "
     "&& ip.isCanonical(self.s)", {"s": "127.0.0.1"}, {"s": "10.0.0.1"}, {"s": STR}),
    ("cidr", "isCIDR(self.s) && cidr(self.s).containsIP('10.1.2.3') && cidr(self.s).prefixLength() == 8 "
     "&& cidr(self.s).containsCIDR('10.2.0.0/16') && string(cidr(self.s).ip()) == '10.0.0.0' "
     "&& string(cidr(self.s).masked()) == self.s",
     {"s": "10.0.0.0/8"}, {"s": "192.168.0.0/16"}, {"s": STR}),
    ("format", "!format.dns1123Label().validate(self.s).hasValue() && format.named('uuid').hasValue() "
     "&& !format.named('nope').hasValue() && !format.qualifiedName().validate(self.s).hasValue()",
     {"s": "my-name"}, {"s": "My_Name"}, {"s": STR}),
    ("semver", "isSemver(self.s) && semver(self.s).isGreaterThan(semver('1.2.3-rc.1')) "
     "&& semver(self.s).compareTo(semver('1.10.0')) < 0 && semver(self.s).major() == 1 "
     "&& semver('v1.2', true).minor() == 2 && !isSemver('01.2.3') && semver('1.0.0-alpha').isLessThan(semver('1.0.0'))"
     " && quantity('1').isLessThan(quantity('2'))",
     {"s": "1.2.3"}, {"s": "1.2.3-beta"}, {"s": STR}),
    ("optionals", "self.?missing.orValue('d') == 'd' && optional.of(self.s).hasValue() && self.?s.value() == 'x'",
     {"s": "x"}, {"s": "y"}, {"s": STR, "missing": STR}),
    ("macros", "self.l.exists(x, x > 2) && self.l.exists_one(x, x == 1) && self.l.map(x, x * 2).all(x, x % 2 == 0) "
     "&& self.l.filter(x, x > 1).size() == 2", {"l": [1, 2, 3]}, {"l": [1, 1, 3]}, {"l": INTS}),
    ("timestamps", "self.t + duration('1h') > timestamp('2024-01-01T00:30:00Z') && self.d < duration('2m')",
     {"t": "2024-01-01T00:00:00Z", "d": "90s"}, {"t": "2023-12-31T00:00:00Z", "d": "90s"},
     {"t": {"type": "string", "format": "date-time"}, "d": {"type": "string", "format": "duration"}}),
    ("escaped-names", "self.x__dash__y == 1 && self.__namespace__ == 'n'", {"x-y": 1, "namespace": "n"},
     {"x-y": 2, "namespace": "n"}, {"x-y": {"type": "integer"}, "namespace": STR}),
]


@pytest.mark.parametrize(("rule", "good", "bad", "props"), [c[1:] for c in LIBRARY_CASES],
                         ids=[c[0] for c in LIBRARY_CASES])
def test_library_functions_pass_and_fail(rule: str, good: dict[str, Any], bad: dict[str, Any],
                                         props: dict[str, Any]) -> None:
    assert _messages([{"rule": rule}], good, **props) == []
    assert _messages([{"rule": rule}], bad, **props) == [f"spec: Invalid value: failed rule: {rule}"]


@pytest.mark.parametrize("rule", ["cel.bind(n, self.s.size(), n > 1)", "math.greatest(1, 2) == 2",
                                  "base64.encode(b'a') == 'YQ=='", "self.s.reverse() == 'a'"])
def test_extensions_kube_does_not_load_are_refused(rule: str) -> None:
    _, errors = SchemaRules.compile(_schema([{"rule": rule}], s=STR), ROOT)
    assert len(errors) == 1
    assert "compilation failed: ERROR: <input>:1:" in errors[0].detail
    assert "undeclared reference to " in errors[0].detail or "found no matching overload" in errors[0].detail


def test_scalar_failure_prints_value_and_message() -> None:
    schema = {"type": "object", "properties": {"spec": {"type": "object", "properties": {"name": {
        "type": "string", "x-kubernetes-validations": [{"rule": "self.size() < 3", "message": " too long "}]}}}}}
    compiled, errors = SchemaRules.compile(schema, ROOT)
    assert errors == []
    assert [str(e) for e in compiled.validate({"spec": {"name": "abcd"}}, None)] == [
        'spec.name: Invalid value: "abcd": too long']


def test_root_rule_path_is_nil_and_sees_metadata_name() -> None:
    schema = {"type": "object", "x-kubernetes-validations": [{"rule": "self.metadata.name.startsWith('a')"}]}
    compiled, errors = SchemaRules.compile(schema, ROOT)
    assert errors == []
    assert compiled.validate({"metadata": {"name": "abc"}}, None) == []
    assert [str(e) for e in compiled.validate({"metadata": {"name": "x"}}, None)] == [
        "<nil>: Invalid value: failed rule: self.metadata.name.startsWith('a')"]


def test_format_validate_reports_kube_name_errors() -> None:
    rules = [{"rule": "!format.dns1123Label().validate(self.s).hasValue()", "message": "not a label"},
             {"rule": "format.dns1123Label().validate(self.s).orValue(['x'])[0].startsWith('a lowercase RFC 1123')",
              "message": "no such error"}]
    assert _messages(rules, {"s": "ok"}, s=STR) == ["spec: Invalid value: no such error"]
    assert _messages(rules, {"s": "Bad"}, s=STR) == ["spec: Invalid value: not a label"]


def test_evaluation_error_is_reported_with_type_name() -> None:
    assert _messages([{"rule": "self.missing == 1"}], {}, missing={"type": "integer"}) == [
        'spec: Invalid value: "object": no such key: missing evaluating rule: self.missing == 1']


def test_transition_rule_runs_only_with_old_value() -> None:
    rules = [{"rule": "self.replicas >= oldSelf.replicas", "message": "may not scale down"}]
    props = {"replicas": {"type": "integer"}}
    assert _messages(rules, {"replicas": 1}, **props) == []
    assert _messages(rules, {"replicas": 3}, {"replicas": 2}, **props) == []
    assert _messages(rules, {"replicas": 1}, {"replicas": 2}, **props) == ["spec: Invalid value: may not scale down"]


def test_transition_rule_on_map_list_items_correlates_by_key() -> None:
    item = {"type": "object", "properties": {"name": STR, "v": {"type": "integer"}},
            "x-kubernetes-validations": [{"rule": "self.v >= oldSelf.v", "message": "v decreased"}]}
    items = {"type": "array", "maxItems": 10, "x-kubernetes-list-type": "map",
             "x-kubernetes-list-map-keys": ["name"], "items": item}
    old = {"items": [{"name": "a", "v": 5}, {"name": "b", "v": 1}]}
    new = {"items": [{"name": "b", "v": 2}, {"name": "a", "v": 4}, {"name": "c", "v": 0}]}
    assert _messages([], new, old, items=items) == ["spec.items[1]: Invalid value: v decreased"]


def test_optional_old_self_runs_on_create_too() -> None:
    rules = [{"rule": "!oldSelf.hasValue() || self.name == oldSelf.value().name", "optionalOldSelf": True,
              "message": "name is immutable"},
             {"rule": "oldSelf.hasValue() || self.name != 'reserved'", "optionalOldSelf": True,
              "message": "reserved on create"}]
    props = {"name": STR}
    assert _messages(rules, {"name": "reserved"}, **props) == ["spec: Invalid value: reserved on create"]
    assert _messages(rules, {"name": "b"}, {"name": "a"}, **props) == ["spec: Invalid value: name is immutable"]
    assert _messages(rules, {"name": "a"}, {"name": "a"}, **props) == []


def test_optional_old_self_without_old_self_is_refused() -> None:
    _, errors = SchemaRules.compile(_schema([{"rule": "self.a == 1", "optionalOldSelf": True}],
                                            a={"type": "integer"}), ROOT)
    assert [str(e) for e in errors] == [
        f"{ROOT}.properties[spec].x-kubernetes-validations[0].optionalOldSelf: Invalid value: true: "
        "may not be set if oldSelf is not used in rule"]


def test_message_expression_and_its_fallbacks() -> None:
    props = {"name": STR, "unset": STR}
    rules = [{"rule": "self.name.size() < 3", "messageExpression": "'name ' + self.name + ' is too long'"}]
    assert _messages(rules, {"name": "abcd"}, **props) == ["spec: Invalid value: name abcd is too long"]
    # a messageExpression that fails or yields an empty string falls back to the message, then the rule
    failing = [{"rule": "self.name.size() < 3", "message": "fallback", "messageExpression": "self.unset + '!'"},
               {"rule": "self.name.size() < 2", "messageExpression": "'  '"}]
    assert _messages(failing, {"name": "abcd"}, **props) == [
        "spec: Invalid value: fallback", "spec: Invalid value: failed rule: self.name.size() < 2"]


@pytest.mark.parametrize(
    ("reason", "text"),
    [
        ("FieldValueForbidden", "spec.replicas: Forbidden: bad replicas"),
        ("FieldValueRequired", "spec.replicas: Required value: bad replicas"),
        ("FieldValueDuplicate", "spec.replicas: Duplicate value"),
        ("FieldValueInvalid", "spec.replicas: Invalid value: bad replicas"),
    ],
)
def test_reason_and_field_path(reason: str, text: str) -> None:
    rules = [{"rule": "self.replicas < 3", "message": "bad replicas", "reason": reason, "fieldPath": ".replicas"}]
    compiled, errors = SchemaRules.compile(_schema(rules, replicas={"type": "integer"}), ROOT)
    assert errors == []
    found = compiled.validate({"spec": {"replicas": 5}}, None)
    assert [str(e) for e in found] == [text]
    assert found[0].reason == reason


def test_compile_errors_have_kube_paths_and_texts() -> None:
    rules = [{"rule": "self.a +"}, {"rule": "self.a == 'x' && 1"}, {"rule": "'x'"},
             {"rule": "self.size() > 0", "messageExpression": "1"}]
    _, errors = SchemaRules.compile(_schema(rules), ROOT)
    base = f"{ROOT}.properties[spec].x-kubernetes-validations"
    texts = [str(e) for e in errors]
    assert texts[0] == (
        f'{base}[0].rule: Invalid value: {{"Rule":"self.a +","Message":"","MessageExpression":"","Reason":null,'
        '"FieldPath":"","OptionalOldSelf":null}: compilation failed: ERROR: <input>:1:9: Syntax error: '
        "mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, "
        "NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | self.a +\n | ........^")
    assert texts[1].startswith(f"{base}[1].rule: Invalid value: ") and texts[1].endswith(
        "compilation failed: ERROR: <input>:1:15: found no matching overload for '_&&_' applied to '(bool, int)'\n"
        " | self.a == 'x' && 1\n | ..............^")
    assert texts[2].endswith(": cel expression must evaluate to a bool")
    assert texts[3].startswith(f"{base}[3].messageExpression: Invalid value: ")
    assert texts[3].endswith(": messageExpression must evaluate to a string")
    assert len(texts) == 4


def test_optional_old_self_compile_error_positions_are_the_rules_own() -> None:
    _, errors = SchemaRules.compile(_schema([{"rule": "oldSelf.hasValue() && nope", "optionalOldSelf": True}]),
                                    ROOT)
    assert len(errors) == 1
    assert str(errors[0]).endswith(
        "compilation failed: ERROR: <input>:1:23: undeclared reference to 'nope' (in container '')\n"
        " | oldSelf.hasValue() && nope\n | ......................^")


def test_estimated_cost_over_budget_is_refused() -> None:
    tags = {"type": "array", "items": {"type": "string"},
            "x-kubernetes-validations": [{"rule": "self.all(x, x.matches('^[a-z]+$'))"}]}
    _, errors = SchemaRules.compile(_schema([], tags=tags), ROOT)
    rule_path = f"{ROOT}.properties[spec].properties[tags].x-kubernetes-validations[0].rule"
    assert [str(e) for e in errors] == [
        f"{rule_path}: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying "
        "the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)",
        f"{rule_path}: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire "
        "OpenAPIv3 schema",
        f"{ROOT}: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema "
        "exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, "
        "maxProperties, and maxLength where arrays, maps, and strings are declared)",
    ]
    bounded = dict(tags, maxItems=10, items={"type": "string", "maxLength": 10})
    assert SchemaRules.compile(_schema([], tags=bounded), ROOT)[1] == []


def test_rule_over_the_per_call_limit_is_cut_off_at_run_time() -> None:
    rule = "self.all(x, self.all(y, x + y != ''))"
    tags = {"type": "array", "maxItems": 1000, "items": {"type": "string", "maxLength": 4},
            "x-kubernetes-validations": [{"rule": rule}]}
    schema = _schema([{"rule": "self.tags.size() >= 0"}], tags=tags)
    compiled, errors = SchemaRules.compile(schema, ROOT)
    assert errors == []
    assert compiled.validate({"spec": {"tags": ["a"] * 5}}, None) == []
    found = [str(e) for e in compiled.validate({"spec": {"tags": ["a"] * 500}}, None)]
    assert found == [
        "spec.tags: Invalid value: \"array\": 'operation cancelled: actual cost limit exceeded': no further "
        f"validation rules will be run due to call cost exceeds limit for rule: {rule}"]


def test_runtime_budget_is_shared_by_the_object() -> None:
    # each rule is within its limits, but the three together over 100 items spend more than the object's budget
    item = {"type": "object", "properties": {"tags": {"type": "array", "maxItems": 60, "items": {
        "type": "string", "maxLength": 8}}},
        "x-kubernetes-validations": [{"rule": "self.tags.all(a, self.tags.all(b, a != b || a == b))"},
                                     {"rule": "self.tags.all(a, self.tags.all(b, a == b || a != b))"},
                                     {"rule": "self.tags.all(a, self.tags.all(b, !(a == b) || a == b))"}]}
    items = {"type": "array", "maxItems": 100, "items": item}
    compiled, errors = SchemaRules.compile(_schema([], items=items), ROOT)
    assert [e.field for e in errors] == []
    spec = {"items": [{"tags": [str(i) for i in range(60)]} for _ in range(100)]}
    found = [str(e) for e in compiled.validate({"spec": spec}, None)]
    assert len(found) == 1
    assert found[0].endswith(": Invalid value: \"object\": validation failed due to running out of cost budget, "
                             "no further validation rules will be run")


def test_empty_when_no_rules() -> None:
    compiled, errors = SchemaRules.compile({"type": "object", "properties": {"a": {"type": "string"}}}, ROOT)
    assert errors == [] and compiled.empty
    assert not SchemaRules.compile(_schema([{"rule": "true"}]), ROOT)[0].empty


def test_undefined_fields_are_compile_errors() -> None:
    schema = {"type": "object",
              "x-kubernetes-validations": [{"rule": "self.metadata.labels.size() > 0"},
                                           {"rule": "self.spec.items.all(i, i.vv > 0)"},
                                           {"rule": "self.metadata.name != '' && self.spec.items.all(i, i.v > 0)"}],
              "properties": {"spec": {"type": "object", "properties": {"items": {
                  "type": "array", "items": {"type": "object", "properties": {"v": {"type": "integer"}}}}}}}}
    _, errors = SchemaRules.compile(schema, ROOT)
    assert [(e.field, e.detail) for e in errors] == [
        (f"{ROOT}.x-kubernetes-validations[0].rule",
         "compilation failed: ERROR: <input>:1:14: undefined field 'labels'\n"
         " | self.metadata.labels.size() > 0\n | .............^"),
        (f"{ROOT}.x-kubernetes-validations[1].rule",
         "compilation failed: ERROR: <input>:1:25: undefined field 'vv'\n"
         " | self.spec.items.all(i, i.vv > 0)\n | ........................^"),
    ]


def test_unchanged_values_are_ratcheted() -> None:
    rules = [{"rule": "self.n < 3", "message": "n too big"}]
    props = {"n": {"type": "integer"}, "other": STR}
    assert _messages(rules, {"n": 5, "other": "a"}, {"n": 5, "other": "a"}, **props) == []
    assert _messages(rules, {"n": 5, "other": "b"}, {"n": 5, "other": "a"}, **props) == [
        "spec: Invalid value: n too big"]
    assert _messages(rules, {"n": 5}, None, **props) == ["spec: Invalid value: n too big"]


def test_rules_under_all_of_run_on_the_node() -> None:
    schema = {"type": "object", "properties": {"spec": {
        "type": "object", "properties": {"n": {"type": "integer"}},
        "allOf": [{"x-kubernetes-validations": [{"rule": "self.n > 1", "message": "n too small"}]}]}}}
    compiled, errors = SchemaRules.compile(schema, ROOT)
    assert errors == []
    assert [str(e) for e in compiled.validate({"spec": {"n": 0}}, None)] == ["spec: Invalid value: n too small"]
    _, errors = SchemaRules.compile({"type": "object", "allOf": [{"x-kubernetes-validations": [{"rule": "1"}]}]},
                                    ROOT)
    assert [e.field for e in errors] == [f"{ROOT}.allOf[0].x-kubernetes-validations[0].rule"]


def test_integer_beyond_int64_is_an_evaluation_error_not_a_crash() -> None:
    found = _messages([{"rule": "self.n > 0"}], {"n": 2**70}, n={"type": "integer"})
    assert len(found) == 1
    assert found[0].startswith('spec: Invalid value: "object": ')
    assert found[0].endswith(" evaluating rule: self.n > 0")


def test_field_path_is_checked_and_appended_as_kube_does() -> None:
    labels = {"type": "object", "additionalProperties": STR}
    rules = [{"rule": "self.labels.size() < 1", "message": "no labels", "fieldPath": ".labels['k.z']"},
             {"rule": "true", "fieldPath": ".nope"}]
    compiled, errors = SchemaRules.compile(_schema(rules, labels=labels), ROOT)
    assert [str(e) for e in errors] == [
        f'{ROOT}.properties[spec].x-kubernetes-validations[1].fieldPath: Invalid value: ".nope": '
        "must be a valid path"]
    assert [str(e) for e in compiled.validate({"spec": {"labels": {"a": "b"}}}, None)] == [
        "spec.labels[k.z]: Invalid value: no labels"]


def test_rule_fields_are_checked_before_compiling() -> None:
    rules = [{"rule": " "}, {"rule": "self.a ==\n 1"}, {"rule": "nope", "reason": "Other"}]
    _, errors = SchemaRules.compile(_schema(rules), ROOT)
    base = f"{ROOT}.properties[spec].x-kubernetes-validations"
    assert [str(e) for e in errors] == [
        f"{base}[0].rule: Required value: rule is not specified",
        f"{base}[1].message: Required value: message must be specified if rule contains line breaks",
        f'{base}[2].reason: Unsupported value: "Other": supported values: "FieldValueDuplicate", '
        '"FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"',
    ]


def test_old_self_under_an_atomic_list_is_refused() -> None:
    item = {"type": "object", "properties": {"v": {"type": "integer"}},
            "x-kubernetes-validations": [{"rule": "self.v >= oldSelf.v"}]}
    _, errors = SchemaRules.compile(_schema([], items={"type": "array", "items": item}), ROOT)
    assert [str(e) for e in errors] == [
        f'{ROOT}.properties[spec].properties[items].items.x-kubernetes-validations[0].rule: Invalid value: '
        f'"self.v >= oldSelf.v": oldSelf cannot be used on the uncorrelatable portion of the schema within '
        f"{ROOT}.properties[spec].properties[items]"]


def _static_cost(schema: dict[str, Any]) -> int:
    from kubelite.apiextensions.cel.compile import _Compiler

    # the node alone, as kube's compilation tests estimate it (not as a resource's root)
    root = _Compiler().node(schema, ROOT, False, 1)
    assert root is not None and len(root.rules) == 1
    return root.rules[0].static_cost


def _with(schema: dict[str, Any], rule: str, **bounds: int) -> dict[str, Any]:
    return {**schema, **bounds, "x-kubernetes-validations": [{"rule": rule}]}


# kube's estimates for the same schemas and rules (apiextensions-apiserver's compilation tests)
COST_CASES = [
    ("string list all", _with({"type": "array", "items": {"type": "string"}}, "self.all(x, true)"), 3145727),
    ("string list all, 20 items", _with({"type": "array", "items": {"type": "string"}}, "self.all(x, true)",
                                       maxItems=20), 62),
    ("number list all", _with({"type": "array", "items": {"type": "number"}}, "self.all(x, true)"), 4718591),
    ("object list all", _with({"type": "array", "items": {"type": "object", "required": ["required"], "properties": {
        "required": {"type": "string"}, "optional": {"type": "string"}}}}, "self.all(x, true)"), 555128),
    ("object list all, 50 items", _with({"type": "array", "items": {"type": "object", "required": ["required"],
                                                                    "properties": {"required": {"type": "string"}}}},
                                        "self.all(x, true)", maxItems=50), 152),
    ("string map all, 3 properties", _with({"type": "object", "additionalProperties": {"type": "string"}},
                                           "self.all(x, true)", maxProperties=3), 11),
    ("contains", _with({"type": "string"}, "self.contains('test')"), 314574),
    ("contains, maxLength 10", _with({"type": "string"}, "self.contains('test')", maxLength=10), 5),
    ("startsWith", _with({"type": "string"}, "self.startsWith('test')"), 2),
    ("concatenation, maxLength 4", _with({"type": "string"}, 'size(self + "hello") > size("hello")', maxLength=4),
     7),
    ("matches", _with({"type": "string"}, 'self.matches("x")'), 314574),
    ("find", _with({"type": "string"}, "self.find('[0-9]+') == ''"), 629147),
    ("timestamps", _with({"type": "object", "properties": {"a": {"type": "string", "format": "date-time"},
                                                           "b": {"type": "string", "format": "date-time"}}},
                         'self.a == self.b'), 8),
]


@pytest.mark.parametrize(("schema", "expected"), [c[1:] for c in COST_CASES], ids=[c[0] for c in COST_CASES])
def test_static_cost_matches_kube(schema: dict[str, Any], expected: int) -> None:
    assert _static_cost(schema) == expected


def test_literal_regexes_durations_and_timestamps_are_checked_at_compile_time() -> None:
    rules = [{"rule": "self.s.matches('(')"}, {"rule": "duration('1x') > duration('1s')"},
             {"rule": "timestamp('2024-13-01T00:00:00Z') < timestamp('2025-01-01T00:00:00Z')"},
             {"rule": "self.s.matches('^a+$') && self.s.find('[0-9]+') == ''"}]
    _, errors = SchemaRules.compile(_schema(rules, s=STR), ROOT)
    assert [(e.field.rsplit(".", 2)[-2], e.detail) for e in errors] == [
        ("x-kubernetes-validations[0]", "compilation failed: ERROR: <input>:1:16: invalid matches argument\n"
         " | self.s.matches('(')\n | ...............^"),
        ("x-kubernetes-validations[1]", "compilation failed: ERROR: <input>:1:10: invalid duration argument\n"
         " | duration('1x') > duration('1s')\n | .........^"),
        ("x-kubernetes-validations[2]", "compilation failed: ERROR: <input>:1:11: invalid timestamp argument\n"
         " | timestamp('2024-13-01T00:00:00Z') < timestamp('2025-01-01T00:00:00Z')\n | ..........^"),
    ]


def test_find_runs_in_linear_time() -> None:
    rules = [{"rule": "self.s.find('(a+)+$') == ''"}]
    assert _messages(rules, {"s": "a" * 60 + "b"}, s={"type": "string", "maxLength": 100}) == []


@pytest.mark.parametrize("schema", [
    {"type": "object", "properties": {"a": {"type": "array", "maxItems": "ten", "items": {"type": "string"},
                                            "x-kubernetes-validations": [{"rule": "self.size() > 0"}]}}},
    {"type": "object", "x-kubernetes-validations": ["self.a"]},
    {"type": "object", "properties": {"a": "string"}, "x-kubernetes-validations": [{"rule": "true"}]},
    {"type": "object", "allOf": ["x"], "x-kubernetes-validations": [{"rule": 5}]},
])
def test_malformed_schemas_never_raise(schema: dict[str, Any]) -> None:
    compiled, errors = SchemaRules.compile(schema, ROOT)
    assert all(isinstance(str(e), str) for e in errors)
    assert isinstance(compiled.validate({"a": ["x"]}, None), list)


def test_values_of_the_wrong_type_never_raise() -> None:
    rules = [{"rule": "self.n > 0"}]
    compiled, _ = SchemaRules.compile(_schema(rules, n={"type": "integer"}, t={"type": "string",
                                                                              "format": "date-time"}), ROOT)
    for spec in ("text", 5, [1], {"n": "x"}, {"n": None}, {"t": "not a time", "n": 1}, {"n": 1.5}):
        assert isinstance(compiled.validate({"spec": spec}, {"spec": spec}), list)


@pytest.mark.parametrize(("rule", "spec", "error"), [
    ("self.l.min() > 0", {"l": []}, "min called on empty list"),
    ("self.l[3] > 0", {"l": [1]}, "index out of bounds: 3"),
    ("self.l[0] / 0 > 0", {"l": [1]}, "division by zero"),
    ("ip(self.s).family() == 4", {"s": "1.2.3"},
     'IP Address "1.2.3" parse error during conversion from string: ParseAddr("1.2.3"): unable to parse IP'),
    ("quantity(self.s).isInteger()", {"s": "1.2.3"},
     "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"),
])
def test_library_errors_are_evaluation_errors_in_kube_words(rule: str, spec: dict[str, Any], error: str) -> None:
    assert _messages([{"rule": rule}], spec, l=INTS, s=STR) == [
        f'spec: Invalid value: "object": {error} evaluating rule: {rule}']


def test_children_are_reported_first_and_their_rule_field_errors_stop_compiling_above() -> None:
    child = {"type": "integer", "x-kubernetes-validations": [{"rule": "self +"}]}
    schema = _schema([{"rule": "self.a +"}], a=child)
    _, errors = SchemaRules.compile(schema, ROOT)
    assert [e.field for e in errors] == [
        f"{ROOT}.properties[spec].properties[a].x-kubernetes-validations[0].rule",
        f"{ROOT}.properties[spec].x-kubernetes-validations[0].rule",
    ]
    broken_child = {"type": "integer", "x-kubernetes-validations": [{"rule": " "}]}
    _, errors = SchemaRules.compile(_schema([{"rule": "self.a +"}], a=broken_child), ROOT)
    assert [str(e) for e in errors] == [
        f"{ROOT}.properties[spec].properties[a].x-kubernetes-validations[0].rule: Required value: "
        "rule is not specified"]


def test_rules_past_the_wall_clock_budget_are_not_run(monkeypatch: pytest.MonkeyPatch) -> None:
    from kubelite.apiextensions.cel import validator

    schema = {
        "type": "object",
        "properties": {"spec": {"type": "object", "x-kubernetes-validations": [{"rule": "false"}]}},
    }
    rules, errors = SchemaRules.compile(schema, "")
    assert errors == []
    assert [str(e) for e in rules.validate({"spec": {}}, None)] == ["spec: Invalid value: failed rule: false"]
    monkeypatch.setattr(validator, "WALL_BUDGET_SECONDS", -1.0)  # spent before the first rule
    assert [str(e) for e in rules.validate({"spec": {}}, None)] == [
        'spec: Invalid value: "object": validation failed due to running out of cost budget, '
        "no further validation rules will be run"
    ]
