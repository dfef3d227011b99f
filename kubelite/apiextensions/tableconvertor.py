"""The Table of a custom resource: its CRD version's `additionalPrinterColumns`, printed as kube's
apiextensions-apiserver prints them (pkg/registry/customresource/tableconvertor).

The columns are Name (format `name`, ObjectMeta's description) and then the declared columns with their
type, format, priority and description (kube writes `Custom resource definition column (in JSONPath
format): <path>` for one without). A version that declares none prints kube's default, an `Age` column of
type `date` over `.metadata.creationTimestamp`. Each path is compiled once, as the template `{<path>}`, and
run with missing keys allowed; a path that does not compile ends the columns there, as kube falls back to
the columns it had built.

A cell takes the first value the path finds (several are not joined): none, or a failing path, is a null
cell; a `string` column prints the value as client-go's JSONPath does (JSON for maps and lists,
`<no value>` for null); `integer` truncates a float, `number` widens an int, `boolean` takes booleans only,
each null for any other value; a `date` column holds the age of an RFC 3339 string (`5m`, `<unknown>` when
empty, `<invalid>` when it does not parse), which is what kube computes on the server.

`validate_column_path` is kube's CRD-time check of a printer column's `jsonPath`: only that it is a dotted
path from the object's root; a path that passes it and still does not compile simply drops the columns from
there on when the resource is printed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Final

from kubelite.apimachinery import jsonpath
from kubelite.apimachinery.duration import human_duration, nanoseconds
from kubelite.apimachinery.meta import Obj
from kubelite.registry.tables import descriptions as d
from kubelite.registry.tables.base import TableSpec, col, name_col, name_of

__all__ = ["DEFAULT_COLUMNS", "SCALE_COLUMNS", "scale_table", "table_for", "validate_column_path"]

#: what kube serves for a version without `additionalPrinterColumns` (`serveDefaultColumnsIfEmpty`)
DEFAULT_COLUMNS: Final[tuple[Mapping[str, Any], ...]] = (
    {"name": "Age", "type": "date", "description": d.CREATION_TIMESTAMP, "jsonPath": ".metadata.creationTimestamp"},
)

#: the columns of a custom resource's `scale` subresource as a Table (`getScaleColumnsForVersion`), printed
#: over the autoscaling/v1 Scale
SCALE_COLUMNS: Final[tuple[Mapping[str, Any], ...]] = (
    {
        "name": "Desired",
        "type": "integer",
        "description": "Number of desired replicas",
        "jsonPath": ".spec.replicas",
    },
    {
        "name": "Available",
        "type": "integer",
        "description": "Number of actual replicas",
        "jsonPath": ".status.replicas",
    },
    *DEFAULT_COLUMNS,
)

_DEFAULT_DESCRIPTION = "Custom resource definition column (in JSONPath format): {}"

Cell = Callable[[Obj, datetime], Any]


def validate_column_path(path: str) -> str | None:
    """kube's `validateSimpleJSONPath` of a printer column's jsonPath: None when it is accepted, else the
    detail of the Invalid error. (kube reports an empty jsonPath as Required before asking this, on the
    field `additionalPrinterColumns[i].JSONPath`, so spelled.)"""
    if not path:
        return "must not be empty"
    if not path.startswith("."):
        return "must be a simple json path starting with ."
    return None


def table_for(columns: Sequence[Mapping[str, Any]]) -> TableSpec:
    """The TableSpec of one served version, from its `additionalPrinterColumns` (kube's default when empty)."""
    definitions = [name_col()]
    cells: list[Cell] = []
    for column in columns or DEFAULT_COLUMNS:
        path = _text(column.get("jsonPath"))
        try:
            template = jsonpath.parse("{" + path + "}")
        except jsonpath.JSONPathError:
            break
        type_ = _text(column.get("type"))
        priority = column.get("priority")
        definitions.append(
            col(
                _text(column.get("name")),
                type_,
                _text(column.get("description")) or _DEFAULT_DESCRIPTION.format(path),
                priority if isinstance(priority, int) and not isinstance(priority, bool) else 0,
                _text(column.get("format")),
            )
        )
        cells.append(_cell(template, type_))

    def row(obj: Obj, now: datetime) -> list[Any]:
        return [name_of(obj), *(cell(obj, now) for cell in cells)]

    return TableSpec(columns=definitions, row=row)


def scale_table() -> TableSpec:
    """The Table of a custom resource's `scale` subresource."""
    return table_for(SCALE_COLUMNS)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


# -- cells -----------------------------------------------------------------------------------------------

_NOTHING: Final = object()


def _first(template: jsonpath.Template, obj: Obj) -> Any:
    """The first value the path finds; _NOTHING when it finds none or fails."""
    try:
        results = template.find_results(obj, allow_missing_keys=True)
    except (jsonpath.JSONPathError, RecursionError):
        return _NOTHING  # a path nested past Python's stack prints nothing, as one that fails
    if not results or not results[0]:
        return _NOTHING
    return results[0][0]


def _cell(template: jsonpath.Template, type_: str) -> Cell:
    convert = _CONVERTERS.get(type_, _null)

    def cell(obj: Obj, now: datetime) -> Any:
        value = _first(template, obj)
        return None if value is _NOTHING else convert(value, now)

    return cell


def _null(_value: Any, _now: datetime) -> None:
    return None


def _as_string(value: Any, _now: datetime) -> str:
    # the value printed alone, as client-go's PrintResults prints it, except that kube passes it on as a
    # bare interface, which reads as no value at all when it is null
    return "<no value>" if value is None else jsonpath.text_of(value)


_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


def _go_int64(value: float) -> int:
    """Go's int64(float64): truncated toward zero; out of range, amd64 gives the smallest int64."""
    if -(2.0**63) <= value < 2.0**63:
        return int(value)
    return _INT64_MIN


def _as_integer(value: Any, _now: datetime) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        # beyond int64 kube's decoder holds the number as a float64
        return value if _INT64_MIN <= value <= _INT64_MAX else _go_int64(float(value))
    if isinstance(value, float):
        return _go_int64(value)
    return None


def _as_number(value: Any, _now: datetime) -> int | float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    # encoding/json writes a whole float64 below 2^63 without a fraction ("3", not "3.0"): an int encodes so
    if number.is_integer() and abs(number) < 2.0**63:
        return int(number)
    return number


def _as_boolean(value: Any, _now: datetime) -> bool | None:
    return value if isinstance(value, bool) else None


def _canonical(text: str) -> bool:
    """`YYYY-MM-DDTHH:MM:SSZ` with ASCII digits, the form metav1.Time is written in."""
    return (
        len(text) == 20
        and text[4] == text[7] == "-"
        and text[10] == "T"
        and text[13] == text[16] == ":"
        and text[19] == "Z"
        and text.isascii()
        and (text[:4] + text[5:7] + text[8:10] + text[11:13] + text[14:16] + text[17:19]).isdigit()
    )


def _as_date(value: Any, now: datetime) -> str | None:
    if not isinstance(value, str):
        return None
    if value in ("", "null"):  # metav1.Time's query-parameter form of the zero time
        return "<unknown>"
    if _canonical(value):  # the form kube writes, read by the standard library's faster parser
        try:
            created = datetime.fromisoformat(value)
        except ValueError:
            pass  # out of the ranges Go allows, or a year datetime cannot hold: the general reading decides
        else:
            return "<unknown>" if created == _GO_ZERO_DATETIME else human_duration(nanoseconds(now - created))
    when = rfc3339_nanoseconds(value)
    if when is None:
        return "<invalid>"
    if when == _GO_ZERO_TIME:
        return "<unknown>"
    return human_duration(nanoseconds(now - _EPOCH) - when)


_CONVERTERS: Final[dict[str, Callable[[Any, datetime], Any]]] = {
    "string": _as_string,
    "integer": _as_integer,
    "number": _as_number,
    "boolean": _as_boolean,
    "date": _as_date,
}


# -- Go's time.Parse(time.RFC3339, ...) ------------------------------------------------------------------

# Go's parser takes a one-digit hour, a comma before the fraction and offsets up to 24:60, which the
# standard library's ISO parser would not, and years down to 0000, which datetime cannot hold: the instant
# is computed by hand, in nanoseconds since the Unix epoch.
_RFC3339 = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{1,2}):([0-9]{2}):([0-9]{2})(?:[.,]([0-9]+))?"
    r"(?:(Z)|([+-])([0-9]{2}):([0-9]{2}))"
)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_GO_ZERO_DATETIME = datetime(1, 1, 1, tzinfo=UTC)
_SECOND = 1_000_000_000


def _is_leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def _days_in_month(year: int, month: int) -> int:
    if month == 2:
        return 29 if _is_leap(year) else 28
    return 30 if month in (4, 6, 9, 11) else 31


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days from 1970-01-01 to a date of the proleptic Gregorian calendar."""
    year -= month <= 2
    era = year // 400
    year_of_era = year - era * 400
    day_of_year = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    return era * 146097 + day_of_era - 719468


def rfc3339_nanoseconds(text: str) -> int | None:
    """The instant Go's `time.Parse(time.RFC3339, text)` reads, in nanoseconds since the Unix epoch;
    None where Go returns an error."""
    match = _RFC3339.fullmatch(text)
    if match is None:
        return None
    year, month, day, hour, minute, second = (int(part) for part in match.groups()[:6])
    fraction, zulu, sign, offset_hours, offset_minutes = match.groups()[6:]
    if not 1 <= month <= 12 or not 1 <= day <= _days_in_month(year, month):
        return None
    if hour >= 24 or minute >= 60 or second >= 60:
        return None
    offset = 0
    if zulu is None:
        if int(offset_hours) > 24 or int(offset_minutes) > 60:
            return None
        offset = (int(offset_hours) * 3600 + int(offset_minutes) * 60) * (-1 if sign == "-" else 1)
    seconds = _days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offset
    nanos = int(fraction[:9].ljust(9, "0")) if fraction else 0
    return seconds * _SECOND + nanos


#: Go's zero time.Time, 0001-01-01T00:00:00Z, which metav1.Time prints as unknown
_GO_ZERO_TIME: Final = _days_from_civil(1, 1, 1) * 86400 * _SECOND
