"""client-go's JSONPath: each construct, its printing, and its parse and execution errors word for word.

The expectations were checked against kubectl 1.36's `-o jsonpath` (client-go's engine) on the same data;
templates whose output depends on Go's random map order are left out.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from kubelite.apimachinery.jsonpath import NO_VALUE, JSONPathError, parse, text_of
from kubelite.apimachinery.jsonpath import unquote as unquote_go

DATA: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "x", "labels": {"app.kubernetes.io/name": "web", "k8s-app": "dash", "web/html": "slash"}},
    "spec": {
        "n": [1, 2.5, 3.0, "a", None, True],
        "m": {"only": "<&>"},
        "s": "hé",
        "floats": {"f": 1e21, "g": 1e-7, "h": 123456789.0, "z": 0.0001},
        "items": [
            {"name": "a", "type": "Ready", "x": 1, "tags": ["p", "q"]},
            {"name": "b", "type": "Other", "x": 2, "tags": []},
            {"name": "c", "type": "Other", "x": 3},
        ],
        "sparse": [{"name": "d", "x": None}, None, {"name": "e"}],
        "dotted": {"a.b": "dot", "a": {"b": "nested"}},
        "bools": [{"n": "t", "b": True}, {"n": "f", "b": False}],
        "names": [{"name": "a)"}, {"name": "it's"}, {"name": 'q"x'}],
        "u": {"é": "accent", "a b": "space"},
        "e": [],
        "empty": {},
    },
}


def execute(template: str, *, allow_missing_keys: bool = False, data: Any = DATA) -> str:
    return parse(template).execute(data, allow_missing_keys=allow_missing_keys)


# -- what templates print ------------------------------------------------------------------------------------

PRINTS = [
    # plain text and fields
    ("text", "hello jsonpath", "hello jsonpath"),
    ("field", "{.kind}", "ConfigMap"),
    ("text around actions", "kind={.kind}, version={.apiVersion}.", "kind=ConfigMap, version=v1."),
    ("spaces in an action", "{ .kind }", "ConfigMap"),
    ("root markers", "{$.kind}{@.apiVersion}", "ConfigMapv1"),
    ("whole object under a field", "{.spec.m}", '{"only":"\\u003c\\u0026\\u003e"}'),
    ("dash and slash in a key", "{.metadata.labels.k8s-app} {.metadata.labels.web/html}", "dash slash"),
    ("escaped dots", "{.metadata.labels.app\\.kubernetes\\.io/name}", "web"),
    ("non-ASCII key", "{.spec.u.é}", "accent"),
    ("bracket key", "{.spec['s']}", "hé"),
    ("bracket key is a path", "{.spec.dotted['a.b']}", "nested"),
    ("chained bracket keys", "{.spec.dotted['a']['b']}", "nested"),
    # printing of each JSON type
    ("list as JSON", "{.spec.n}", '[1,2.5,3,"a",null,true]'),
    ("items space separated", "{.spec.n[*]}", "1 2.5 3 a null true"),
    (
        "floats as Go prints them",
        "{.spec.floats.f} {.spec.floats.g} {.spec.floats.h} {.spec.floats.z}",
        "1e+21 1e-07 1.23456789e+08 0.0001",
    ),
    ("empty list and map", "{.spec.e}{.spec.empty}", "[]{}"),
    ("null by index", "{.spec.n[4]}", "null"),
    # indexes and slices
    ("index", "{.spec.items[0].name}", "a"),
    ("negative index", "{.spec.items[-2].name}", "b"),
    ("null item", "{.spec.sparse[1]}", "null"),
    ("slice", "{.spec.items[1:3].name}", "b c"),
    ("open slice", "{.spec.items[1:].name}", "b c"),
    ("slice to negative end", "{.spec.items[:-1].name}", "a b"),
    ("step", "{.spec.items[::2].name}", "a c"),
    ("slice with a step past the end", "{.spec.items[0].tags[0:2:3]}", "p"),
    ("empty slice prints nothing", "{.spec.items[2:2].name}|", "|"),
    ("star", "{.spec.items[*].name}", "a b c"),
    ("bare brackets take the first", "{.spec.items[].name}", "a"),
    ("index with a trailing comma is a union", "{.spec.items[1,].name}", "b a"),
    ("union of indexes", "{.spec.items[0,2].name}", "a c"),
    ("union of keys", "{.spec.items[0]['name','type']}", "a Ready"),
    ("union of keys over items", "{.spec.items[0:2]['name', 'x']}", "a b 1 2"),
    ("union of a key and a filter", "{.spec.items[0]['name', 'tags']}", 'a ["p","q"]'),
    # wildcard and recursive descent
    ("wildcard over a list", "{.spec.items[0].tags.*}", "p q"),
    ("wildcard over a string gives its bytes", "{.spec.s.*}", "104 195 169"),
    ("wildcard over an empty list", "{.spec.e.*}|", "|"),
    ("recursive descent under a list", "{.spec.items..name}", "a b c"),
    ("recursive descent of a field", "{.spec.sparse..x}", "null"),
    ("three dots read as recursive descent", "{...kind}", "ConfigMap"),
    # filters
    ("filter ==", '{.spec.items[?(@.type=="Ready")].name}', "a"),
    ("filter !=", '{.spec.items[?(@.type!="Ready")].name}', "b c"),
    ("filter >", "{.spec.items[?(@.x>1)].name}", "b c"),
    ("filter >=", "{.spec.items[?(@.x>=2)].name}", "b c"),
    ("filter <", "{.spec.items[?(@.x<2)].name}", "a"),
    ("filter <=", "{.spec.items[?(@.x<=2)].name}", "a b"),
    ("filter against a negative number", "{.spec.items[?(@.x>-1)].name}", "a b c"),
    ("filter with spaces", "{.spec.items[?( @.x > 2 )].name}", "c"),
    ("filter strings ordered", '{.spec.items[?(@.name>"a")].name}', "b c"),
    ("filter on booleans", "{.spec.bools[?(@.b==false)].n}{.spec.bools[?(@.b==true)].n}", "ft"),
    ("filter on the item itself", '{.spec.items[0].tags[?(@=="q")]}', "q"),
    ("filter comparing two fields", "{.spec.items[?(@.x==@.x)].name}", "a b c"),
    ("filter without @", '{.spec.items[?(.type=="Ready")].name}', "a"),
    ("filter quote holding a parenthesis", '{.spec.names[?(@.name=="a)")].name}', "a)"),
    ("filter escaped single quote", "{.spec.names[?(@.name=='it\\'s')].name}", "it's"),
    ("filter escaped double quote", '{.spec.names[?(@.name=="q\\"x")].name}', 'q"x'),
    ("exists", "{.spec.items[?(@.tags)].name}", "a b"),
    ("exists on null counts", "{.spec.sparse[?(@.x)].name}", "d"),
    ("exists over every element", "{.spec.items[?(@.tags[*])].name}", "a"),
    # an index error hands back its input, which an existence filter counts
    ("exists through a failing index", "{.spec.items[?(@.tags[5])].name}", "a b"),
    ("exists on the items themselves", "{.spec.n[?(@)]}", "1 2.5 3 a null true"),
    # literals
    ("double-quoted string", '{"a\\tb"}', "a\tb"),
    ("single-quoted string", "{'c'}", "c"),
    ("escapes", '{"\\u00e9\\x41\\101"}', "éAA"),
    ("escaped single quote", "{'it\\'s'}", "it's"),
    ("braces as literals", '{"{"}{.kind}{"}"}', "{ConfigMap}"),
    ("two literals in one action", '{"a" "b"}', "b"),
    ("integer literal", "{5} {-5} {+1}", "5 -5 1"),
    ("float literal", "{1.5}", "1.5"),
    ("boolean literals", "{true false}", "false"),
    ("closing brace in text", "a}b", "a}b"),
    # range
    ("range", "{range .spec.items[*]}{.name}:{.x};{end}", "a:1;b:2;c:3;"),
    ("range then more", "{range .spec.items[0:2]}{.name}, {end}{.kind}", "a, b, ConfigMap"),
    ("range over nulls prints no value", "{range .spec.n[*]}[{@}]{end}", "[1][2.5][3][a][<no value>][true]"),
    ("nested range", "{range .spec.items[0:2]}{range .tags[*]}{@},{end}|{end}", "p,q,||"),
    ("two ranges", "{range .spec.items[0:2]}{.name}{end}-{range .spec.bools[*]}{.n}{end}", "ab-tf"),
]


@pytest.mark.parametrize(("template", "expected"), [case[1:] for case in PRINTS], ids=[case[0] for case in PRINTS])
def test_prints(template: str, expected: str) -> None:
    assert execute(template) == expected


MISSING_ALLOWED = [
    ("missing field", "{.spec.nope}", ""),
    ("text around a missing field", "before-{.spec.nope}-after", "before--after"),
    ("under a missing field", "{.spec.nope.deeper}", ""),
    ("field of a string", "{.spec.s.x}", ""),
    ("field of a null item", "{.spec.n[4].x}", ""),
    ("field of each scalar", "{.spec.n.x}", ""),
    ("empty field name", "{.spec.}", ""),
    ("filter over items lacking the field", '{.spec.sparse[?(@.name=="e")].name}', "e"),
    ("empty range", "{range .spec.e[*]}{.name}{end}done", "done"),
    ("range skipping missing fields", "{range .spec.items[*]}{.tags}.{end}", '["p","q"].[]..'),
    ("range without end goes on over the root", "{range .spec.items[0:2]}{.name}", "ab"),
]


@pytest.mark.parametrize(
    ("template", "expected"), [case[1:] for case in MISSING_ALLOWED], ids=[case[0] for case in MISSING_ALLOWED]
)
def test_prints_with_missing_keys_allowed(template: str, expected: str) -> None:
    assert execute(template, allow_missing_keys=True) == expected


# -- errors ------------------------------------------------------------------------------------------------

PARSE_ERRORS = [
    ("{", "unclosed action"),
    ("{.kind", "unclosed action"),
    ("{.kind\n}", "unclosed action"),
    ("{.kind}{", "unclosed action"),
    ("{#}", "unrecognized character in action: U+0023 '#'"),
    ("{\t}", "unrecognized character in action: U+0009"),
    ("{{.kind}}", "unrecognized character in action: U+007B '{'"),
    ("{.spec.items[", "unterminated array"),
    ("{.spec.items[?(@.x", "unterminated filter"),
    ("{.spec.items[?(@.x)", "unclosed array expect ]"),
    ('{.spec.items[?(@.name=="a")}', "unclosed array expect ]"),
    ("{'abc", "unterminated quoted string"),
    ('{"\\q"}', 'unquote string "\\q" error invalid syntax'),
    ('{"\\x"}', 'unquote string "\\x" error invalid syntax'),
    ('{"\\400"}', 'unquote string "\\400" error invalid syntax'),
    ('{"\\U00110000"}', 'unquote string "\\U00110000" error invalid syntax'),
    ("{'\\\"'}", "unquote string '\\\"' error invalid syntax"),
    ("{1.2.3}", "cannot parse number 1.2.3"),
    ("{-}", "cannot parse number -"),
    ("{....kind}", "invalid multiple recursive descent"),
    ("{.spec.items[a]}", "invalid array index a"),
    ('{.spec.items["a"]}', 'invalid array index "a"'),
    ("{.spec.items[ 0]}", "invalid array index  0"),
    ("{.spec.items[1.5]}", "invalid array index 1.5"),
    ("{.spec.items[b,c]}", "invalid array index b"),
    ("{.spec.items['x]}", "invalid array index 'x"),
    ("{.spec.items[-]}", "array index - is not a number"),
    ("{.spec.items[99999999999999999999]}", "array index 99999999999999999999 is not a number"),
]


@pytest.mark.parametrize(("template", "message"), PARSE_ERRORS, ids=[case[0] for case in PARSE_ERRORS])
def test_parse_errors(template: str, message: str) -> None:
    with pytest.raises(JSONPathError) as caught:
        parse(template)
    assert str(caught.value) == message


EXECUTE_ERRORS = [
    ("{.spec.nope}", "nope is not found"),
    ("{.}", " is not found"),
    ('{.spec.sparse[?(@.name=="e")].name}', "name is not found"),
    ("{.spec.u['a b']}", "a is not found"),
    ("{range .spec.items[*]}{range .tags[*]}{@}{end}{end}", "tags is not found"),
    ("{.spec.items[5]}", "array index out of bounds: index 5, length 3"),
    ("{.spec.items[-4]}", "array index out of bounds: index -1, length 3"),
    ("{.spec.items[1:9]}", "array index out of bounds: index 8, length 3"),
    ("{.spec.items[2:1]}", "starting index 2 is greater than ending index 1"),
    ("{.spec.items[-1:-2]}", "starting index 2 is greater than ending index 1"),
    ("{.spec.items[0:3:0]}", "step must be > 0"),
    ("{.spec.items[::-1]}", "step must be > 0"),
    ("{.spec.m[0]}", "map[string]interface {} is not array or slice"),
    ("{.spec.s[0]}", "string is not array or slice"),
    ("{.spec.n[4][0]}|", "|"),  # a null is skipped, not indexed
    ("{..[0]}", "map[string]interface {} is not array or slice"),
    ("{.spec.s[?(@.x)]}", "hé is not array or slice and cannot be filtered"),
    ("{.spec.m[?(@.x)]}", "map[only:<&>] is not array or slice and cannot be filtered"),
    ("{.spec.n[?(@==1)]}", "incompatible types for comparison"),
    ('{.spec.n[?(@=="a")]}', "incompatible types for comparison"),
    ("{.spec.items[?(@.x==1.0)].name}", "incompatible types for comparison"),
    ("{.spec.sparse[?(@.x==1)].name}", "invalid type for comparison"),
    ("{.spec.items[?(@.tags>1)].name}", "invalid type for comparison"),
    ("{.spec.bools[?(@.b<true)].n}", "invalid type for comparison"),
    ("{.spec.items[?(@.type<>1)].name}", "unrecognized filter operator <>"),
    ("{.spec.items[?(@.x>abc)].name}", "unrecognized identifier abc"),
    ("{.spec.items[?(@.tags[*]=='p')].name}", "can only compare one element at a time"),
    (
        "{.spec.items[0:2][?(@.tags)]}",
        "map[name:a tags:[p q] type:Ready x:1] is not array or slice and cannot be filtered",
    ),
    ("{hello}", "unrecognized identifier hello"),
    ("{end}", "not in range, nothing to end"),
    ("{range .spec.items[0:2]}{end}{end}", "not in range, nothing to end"),
]


@pytest.mark.parametrize(("template", "message"), EXECUTE_ERRORS, ids=[case[0] for case in EXECUTE_ERRORS])
def test_execute_errors(template: str, message: str) -> None:
    if message == "|":
        assert execute(template) == "|"
        return
    compiled = parse(template)
    with pytest.raises(JSONPathError) as caught:
        compiled.execute(DATA)
    assert str(caught.value) == message


def test_missing_keys_allowed_still_fails_on_bad_indexes() -> None:
    with pytest.raises(JSONPathError) as caught:
        execute("{.spec.items[5]}", allow_missing_keys=True)
    assert str(caught.value) == "array index out of bounds: index 5, length 3"


# -- results and reuse --------------------------------------------------------------------------------------


def test_find_results_gives_one_list_per_text_and_action() -> None:
    compiled = parse("names: {.spec.items[*].name} kind: {.kind}")
    assert compiled.find_results(DATA) == [["names: "], ["a", "b", "c"], [" kind: "], ["ConfigMap"]]


def test_find_results_of_a_range_gives_the_body_per_item() -> None:
    compiled = parse("{range .spec.items[0:2]}{.name}={.x} {end}")
    assert compiled.find_results(DATA) == [["a"], ["="], [1], [" "], ["b"], ["="], [2], [" "]]


def test_plain_field_paths_give_the_value_itself() -> None:
    compiled = parse("{.spec.items}")
    assert compiled.fields == ("spec", "items")
    assert compiled.find_results(DATA)[0][0] is DATA["spec"]["items"]
    assert compiled.find_results({"spec": {}}, allow_missing_keys=True) == [[]]
    assert compiled.find_results({"spec": None}, allow_missing_keys=True) == [[]]
    with pytest.raises(JSONPathError) as caught:
        compiled.find_results({"spec": "text"})
    assert str(caught.value) == "items is not found"
    assert parse("{.spec.n[0]}").fields is None
    assert parse("a{.kind}").fields is None


def test_a_null_field_is_a_value() -> None:
    assert parse("{.spec.n}").find_results({"spec": {"n": None}}) == [[None]]
    assert execute("{.x}", data={"x": None}) == "null"


def test_a_template_runs_again_from_scratch() -> None:
    compiled = parse("{range .spec.items[0:2]}{.name}{end}-{.kind}")
    assert [compiled.execute(DATA) for _ in range(3)] == ["ab-ConfigMap"] * 3


def test_running_never_changes_the_data() -> None:
    before = copy.deepcopy(DATA)
    execute("{range .spec.items[*]}{..name}{.tags[::2]}{end}", allow_missing_keys=True)
    execute("{.spec.items[?(@.x>=1)].name}{.spec.items[0,2]}{.spec.*.*}{..x}")
    assert before == DATA


def test_long_templates_parse_without_recursion() -> None:
    template = "{.kind}" * 5000 + "{" + ".a" * 5000 + "}"
    assert len(parse(template).root.nodes) == 5001


# -- printing and unquoting --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("s", "s"),
        (True, "true"),
        (42, "42"),
        (2.0, "2"),
        (1e6, "1e+06"),
        (None, "null"),
        (NO_VALUE, "<no value>"),
        ({"b": [1, "<"], "a": {}}, '{"a":{},"b":[1,"\\u003c"]}'),
        (12345678901234567890, "1.2345678901234567e+19"),
    ],
)
def test_text_of(value: Any, text: str) -> None:
    assert text_of(value) == text


@pytest.mark.parametrize(
    ("quoted", "text"),
    [
        ('"plain"', "plain"),
        ("'single'", "single"),
        ("'say \"hi\"'", 'say "hi"'),
        ('"\\a\\b\\f\\n\\r\\t\\v\\\\"', "\a\b\f\n\r\t\v\\"),
        ('"\\u00e9\\U0001F600"', "é\U0001f600"),
        ('"\\xc3\\xa9"', "é"),
        ('"\\303\\251"', "é"),
        ("'\\''", "'"),
    ],
)
def test_unquote(quoted: str, text: str) -> None:
    assert unquote_go(quoted) == text


@pytest.mark.parametrize("quoted", ['"', "'a\"", '"\\"', '"\\\'"', '"\\xg0"', '"\\u12"', '"\\ud800"', '"\\08"'])
def test_unquote_rejects(quoted: str) -> None:
    with pytest.raises(ValueError) as caught:
        unquote_go(quoted)
    assert str(caught.value) == "invalid syntax"


# -- JSON output (kubectl's -o jsonpath-as-json) --------------------------------------------------------------


def test_json_output_prints_each_text_and_action_as_an_indented_array() -> None:
    printed = parse('{.spec.items[0]}{"x"}{.spec.e}{.spec.nope}').execute(
        DATA, allow_missing_keys=True, json_output=True
    )
    assert printed == (
        "[\n"
        "    {\n"
        '        "name": "a",\n'
        '        "tags": [\n'
        '            "p",\n'
        '            "q"\n'
        "        ],\n"
        '        "type": "Ready",\n'
        '        "x": 1\n'
        "    }\n"
        "]\n"
        '[\n    "x"\n]\n'
        "[\n    []\n]\n"
        "[]\n"
    )


def test_json_output_of_scalars_and_escapes() -> None:
    printed = parse("{.spec.m}{.spec.floats.f}{.spec.empty}").execute(DATA, json_output=True)
    assert printed == '[\n    {\n        "only": "\\u003c\\u0026\\u003e"\n    }\n]\n[\n    1e+21\n]\n[\n    {}\n]\n'


def test_json_output_of_a_range_over_nulls_gives_null() -> None:
    printed = parse("{range .spec.sparse[*]}{.name}{end}").execute(DATA, allow_missing_keys=True, json_output=True)
    assert printed == '[\n    "d"\n]\n[]\n[\n    "e"\n]\n'
    printed = parse("{range .spec.sparse[1:2]}{@}{end}").execute(DATA, json_output=True)
    assert printed == "[\n    null\n]\n"
