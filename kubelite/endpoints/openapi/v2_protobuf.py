"""/openapi/v2 in protobuf: the swagger 2.0 document as gnostic's `openapi.v2.Document` message.

client-go asks for the v2 document only in this encoding (`application/com.github.proto-openapi.spec.v2@v1.0+
protobuf`, answered as `...spec.v2.v1.0+protobuf`): kubectl's client-side apply falls back to it to find
how a kind is patched, and `explain --output=plaintext-openapiv2` reads it. kube-openapi produces it by
compiling its JSON document with gnostic (google/gnostic-models, openapiv2/OpenAPIv2.proto), so this module
does the same: the message types are declared at run time from the field table below (the .proto's names,
numbers and types), and the JSON document is walked into them the way gnostic's compiler reads it:

* maps become repeated `Named*` pairs, in document order; `x-` keys become `vendor_extension`;
* values of free form (`default`, `example`, `enum` items, extensions) are `Any` messages holding the
  value as YAML text;
* a parameter is a body parameter or, by its `in`, a header, form-data, query or path parameter; a
  `$ref` anywhere a reference may stand is a `JsonReference`;
* `type` may be one name or several, `items` one schema or several, `additionalProperties` a schema or a
  boolean.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

import orjson
import yaml

PACKAGE = "openapi.v2"
#: the media type client-go asks for
MEDIA_TYPE = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
#: the Content-Type kube-openapi answers it with (also accepted in Accept)
CONTENT_TYPE = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"

# Each message: its fields as `name=number:type`, `*` after the type for a repeated field, `|` before the
# name for a member of the message's one oneof (gnostic calls every such oneof `oneof`).
_COMMON_VALIDATIONS = (
    "default={}:Any maximum={}:double exclusive_maximum={}:bool minimum={}:double exclusive_minimum={}:bool "
    "max_length={}:int64 min_length={}:int64 pattern={}:string max_items={}:int64 min_items={}:int64 "
    "unique_items={}:bool enum={}:Any* multiple_of={}:double"
)


def _numbered(template: str, first: int) -> str:
    return template.format(*range(first, first + template.count("{}")))


_SUB_SCHEMA_HEAD = "required=1:bool in=2:string description=3:string name=4:string"
_PARAMETER_PRIMITIVE = "type={}:string format={}:string items={}:PrimitivesItems collection_format={}:string"

_MESSAGES: dict[str, str] = {
    "AdditionalPropertiesItem": "|schema=1:Schema |boolean=2:bool",
    "Any": "value=1:.google.protobuf.Any yaml=2:string",
    "ApiKeySecurity": "type=1:string name=2:string in=3:string description=4:string vendor_extension=5:NamedAny*",
    "BasicAuthenticationSecurity": "type=1:string description=2:string vendor_extension=3:NamedAny*",
    "BodyParameter": (
        "description=1:string name=2:string in=3:string required=4:bool schema=5:Schema "
        "vendor_extension=6:NamedAny*"
    ),
    "Contact": "name=1:string url=2:string email=3:string vendor_extension=4:NamedAny*",
    "Default": "additional_properties=1:NamedAny*",
    "Definitions": "additional_properties=1:NamedSchema*",
    "Document": (
        "swagger=1:string info=2:Info host=3:string base_path=4:string schemes=5:string* consumes=6:string* "
        "produces=7:string* paths=8:Paths definitions=9:Definitions parameters=10:ParameterDefinitions "
        "responses=11:ResponseDefinitions security=12:SecurityRequirement* "
        "security_definitions=13:SecurityDefinitions tags=14:Tag* external_docs=15:ExternalDocs "
        "vendor_extension=16:NamedAny*"
    ),
    "Examples": "additional_properties=1:NamedAny*",
    "ExternalDocs": "description=1:string url=2:string vendor_extension=3:NamedAny*",
    "FileSchema": (
        "format=1:string title=2:string description=3:string default=4:Any required=5:string* type=6:string "
        "read_only=7:bool external_docs=8:ExternalDocs example=9:Any vendor_extension=10:NamedAny*"
    ),
    "FormDataParameterSubSchema": (
        f"{_SUB_SCHEMA_HEAD} allow_empty_value=5:bool {_numbered(_PARAMETER_PRIMITIVE, 6)} "
        f"{_numbered(_COMMON_VALIDATIONS, 10)} vendor_extension=23:NamedAny*"
    ),
    "Header": (
        f"{_numbered(_PARAMETER_PRIMITIVE, 1)} {_numbered(_COMMON_VALIDATIONS, 5)} description=18:string "
        "vendor_extension=19:NamedAny*"
    ),
    "HeaderParameterSubSchema": (
        f"{_SUB_SCHEMA_HEAD} {_numbered(_PARAMETER_PRIMITIVE, 5)} {_numbered(_COMMON_VALIDATIONS, 9)} "
        "vendor_extension=22:NamedAny*"
    ),
    "Headers": "additional_properties=1:NamedHeader*",
    "Info": (
        "title=1:string version=2:string description=3:string terms_of_service=4:string contact=5:Contact "
        "license=6:License vendor_extension=7:NamedAny*"
    ),
    "ItemsItem": "schema=1:Schema*",
    "JsonReference": "_ref=1:string description=2:string",
    "License": "name=1:string url=2:string vendor_extension=3:NamedAny*",
    "NamedAny": "name=1:string value=2:Any",
    "NamedHeader": "name=1:string value=2:Header",
    "NamedParameter": "name=1:string value=2:Parameter",
    "NamedPathItem": "name=1:string value=2:PathItem",
    "NamedResponse": "name=1:string value=2:Response",
    "NamedResponseValue": "name=1:string value=2:ResponseValue",
    "NamedSchema": "name=1:string value=2:Schema",
    "NamedSecurityDefinitionsItem": "name=1:string value=2:SecurityDefinitionsItem",
    "NamedString": "name=1:string value=2:string",
    "NamedStringArray": "name=1:string value=2:StringArray",
    "NonBodyParameter": (
        "|header_parameter_sub_schema=1:HeaderParameterSubSchema "
        "|form_data_parameter_sub_schema=2:FormDataParameterSubSchema "
        "|query_parameter_sub_schema=3:QueryParameterSubSchema |path_parameter_sub_schema=4:PathParameterSubSchema"
    ),
    "Oauth2AccessCodeSecurity": (
        "type=1:string flow=2:string scopes=3:Oauth2Scopes authorization_url=4:string token_url=5:string "
        "description=6:string vendor_extension=7:NamedAny*"
    ),
    "Oauth2ApplicationSecurity": (
        "type=1:string flow=2:string scopes=3:Oauth2Scopes token_url=4:string description=5:string "
        "vendor_extension=6:NamedAny*"
    ),
    "Oauth2ImplicitSecurity": (
        "type=1:string flow=2:string scopes=3:Oauth2Scopes authorization_url=4:string description=5:string "
        "vendor_extension=6:NamedAny*"
    ),
    "Oauth2PasswordSecurity": (
        "type=1:string flow=2:string scopes=3:Oauth2Scopes token_url=4:string description=5:string "
        "vendor_extension=6:NamedAny*"
    ),
    "Oauth2Scopes": "additional_properties=1:NamedString*",
    "Operation": (
        "tags=1:string* summary=2:string description=3:string external_docs=4:ExternalDocs "
        "operation_id=5:string produces=6:string* consumes=7:string* parameters=8:ParametersItem* "
        "responses=9:Responses schemes=10:string* deprecated=11:bool security=12:SecurityRequirement* "
        "vendor_extension=13:NamedAny*"
    ),
    "Parameter": "|body_parameter=1:BodyParameter |non_body_parameter=2:NonBodyParameter",
    "ParameterDefinitions": "additional_properties=1:NamedParameter*",
    "ParametersItem": "|parameter=1:Parameter |json_reference=2:JsonReference",
    "PathItem": (
        "_ref=1:string get=2:Operation put=3:Operation post=4:Operation delete=5:Operation "
        "options=6:Operation head=7:Operation patch=8:Operation parameters=9:ParametersItem* "
        "vendor_extension=10:NamedAny*"
    ),
    "PathParameterSubSchema": (
        f"{_SUB_SCHEMA_HEAD} {_numbered(_PARAMETER_PRIMITIVE, 5)} {_numbered(_COMMON_VALIDATIONS, 9)} "
        "vendor_extension=22:NamedAny*"
    ),
    "Paths": "vendor_extension=1:NamedAny* path=2:NamedPathItem*",
    "PrimitivesItems": (
        f"{_numbered(_PARAMETER_PRIMITIVE, 1)} {_numbered(_COMMON_VALIDATIONS, 5)} vendor_extension=18:NamedAny*"
    ),
    "Properties": "additional_properties=1:NamedSchema*",
    "QueryParameterSubSchema": (
        f"{_SUB_SCHEMA_HEAD} allow_empty_value=5:bool {_numbered(_PARAMETER_PRIMITIVE, 6)} "
        f"{_numbered(_COMMON_VALIDATIONS, 10)} vendor_extension=23:NamedAny*"
    ),
    "Response": (
        "description=1:string schema=2:SchemaItem headers=3:Headers examples=4:Examples "
        "vendor_extension=5:NamedAny*"
    ),
    "ResponseDefinitions": "additional_properties=1:NamedResponse*",
    "ResponseValue": "|response=1:Response |json_reference=2:JsonReference",
    "Responses": "response_code=1:NamedResponseValue* vendor_extension=2:NamedAny*",
    "Schema": (
        "_ref=1:string format=2:string title=3:string description=4:string default=5:Any multiple_of=6:double "
        "maximum=7:double exclusive_maximum=8:bool minimum=9:double exclusive_minimum=10:bool "
        "max_length=11:int64 min_length=12:int64 pattern=13:string max_items=14:int64 min_items=15:int64 "
        "unique_items=16:bool max_properties=17:int64 min_properties=18:int64 required=19:string* "
        "enum=20:Any* additional_properties=21:AdditionalPropertiesItem type=22:TypeItem items=23:ItemsItem "
        "all_of=24:Schema* properties=25:Properties discriminator=26:string read_only=27:bool xml=28:Xml "
        "external_docs=29:ExternalDocs example=30:Any vendor_extension=31:NamedAny*"
    ),
    "SchemaItem": "|schema=1:Schema |file_schema=2:FileSchema",
    "SecurityDefinitions": "additional_properties=1:NamedSecurityDefinitionsItem*",
    "SecurityDefinitionsItem": (
        "|basic_authentication_security=1:BasicAuthenticationSecurity |api_key_security=2:ApiKeySecurity "
        "|oauth2_implicit_security=3:Oauth2ImplicitSecurity |oauth2_password_security=4:Oauth2PasswordSecurity "
        "|oauth2_application_security=5:Oauth2ApplicationSecurity "
        "|oauth2_access_code_security=6:Oauth2AccessCodeSecurity"
    ),
    "SecurityRequirement": "additional_properties=1:NamedStringArray*",
    "StringArray": "value=1:string*",
    "Tag": "name=1:string description=2:string external_docs=3:ExternalDocs vendor_extension=4:NamedAny*",
    "TypeItem": "value=1:string*",
    "VendorExtension": "additional_properties=1:NamedAny*",
    "Xml": (
        "name=1:string namespace=2:string prefix=3:string attribute=4:bool wrapped=5:bool "
        "vendor_extension=6:NamedAny*"
    ),
}


def fields(message: str) -> list[tuple[str, int, str, bool, bool]]:
    """The table's fields of a message: (name, number, type, repeated, in the oneof)."""
    out = []
    for token in _MESSAGES[message].split():
        in_oneof = token.startswith("|")
        name, rest = token.lstrip("|").split("=")
        number, type_name = rest.split(":")
        out.append((name, int(number), type_name.rstrip("*"), type_name.endswith("*"), in_oneof))
    return out


def file_descriptor() -> Any:
    """OpenAPIv2.proto as a FileDescriptorProto."""
    from google.protobuf import descriptor_pb2

    field_proto = descriptor_pb2.FieldDescriptorProto
    scalars = {
        "string": field_proto.TYPE_STRING,
        "bool": field_proto.TYPE_BOOL,
        "double": field_proto.TYPE_DOUBLE,
        "int64": field_proto.TYPE_INT64,
    }
    fdp = descriptor_pb2.FileDescriptorProto(
        name="openapiv2/OpenAPIv2.proto", package=PACKAGE, syntax="proto3", dependency=["google/protobuf/any.proto"]
    )
    for message in sorted(_MESSAGES):
        proto = fdp.message_type.add(name=message)
        rows = fields(message)
        if any(row[4] for row in rows):
            proto.oneof_decl.add(name="oneof")
        for name, number, type_name, repeated, in_oneof in rows:
            field = proto.field.add(name=name, number=number)
            field.label = field_proto.LABEL_REPEATED if repeated else field_proto.LABEL_OPTIONAL
            if type_name in scalars:
                field.type = scalars[type_name]
            else:
                field.type = field_proto.TYPE_MESSAGE
                field.type_name = type_name if type_name.startswith(".") else f".{PACKAGE}.{type_name}"
            if in_oneof:
                field.oneof_index = 0
    return fdp


_classes: dict[str, Any] | None = None
_lock = threading.Lock()


def message_classes() -> dict[str, Any]:
    """The message classes by short name (`Document`, `Schema`, ...), built once."""
    global _classes
    if _classes is None:
        with _lock:
            if _classes is None:
                from google.protobuf import any_pb2, descriptor_pb2, descriptor_pool, message_factory

                pool = descriptor_pool.DescriptorPool()
                any_file = descriptor_pb2.FileDescriptorProto()
                any_pb2.DESCRIPTOR.CopyToProto(any_file)
                pool.Add(any_file)
                pool.Add(file_descriptor())
                _classes = {
                    name: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{PACKAGE}.{name}"))
                    for name in _MESSAGES
                }
    return _classes


# JSON -> messages


class _Dumper(yaml.SafeDumper):
    """Quotes the way Go's YAML (gnostic's) does: double quotes where a scalar cannot be written plain."""

    def choose_scalar_style(self) -> str:
        style: str = super().choose_scalar_style()
        return '"' if style == "'" else style


def _yaml(value: Any) -> str:
    text = yaml.dump(
        value, Dumper=_Dumper, default_flow_style=False, sort_keys=False, allow_unicode=True, width=1 << 30
    )
    # a lone scalar gets a document end marker from PyYAML; gnostic (Go's yaml) writes none
    return text.removesuffix("...\n")


def _json_key(field_name: str) -> str:
    if field_name == "_ref":
        return "$ref"
    head, *rest = field_name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


_PLAIN: dict[str, dict[str, tuple[str, str, bool]]] = {}


def _plain_fields(message: str) -> dict[str, tuple[str, str, bool]]:
    """JSON key -> (field, type, repeated) for the fields read by their own key."""
    found = _PLAIN.get(message)
    if found is None:
        found = {
            _json_key(name): (name, type_name, repeated)
            for name, _, type_name, repeated, in_oneof in fields(message)
            if not in_oneof and name != "vendor_extension"
        }
        _PLAIN[message] = found
    return found


#: messages that are a JSON object's entries: message -> the Named* type of an entry
_MAPS = {
    "Default": "NamedAny",
    "Definitions": "NamedSchema",
    "Examples": "NamedAny",
    "Headers": "NamedHeader",
    "Oauth2Scopes": "NamedString",
    "ParameterDefinitions": "NamedParameter",
    "Properties": "NamedSchema",
    "ResponseDefinitions": "NamedResponse",
    "SecurityDefinitions": "NamedSecurityDefinitionsItem",
    "SecurityRequirement": "NamedStringArray",
    "VendorExtension": "NamedAny",
}
_NON_BODY = {
    "header": "header_parameter_sub_schema",
    "formData": "form_data_parameter_sub_schema",
    "query": "query_parameter_sub_schema",
    "path": "path_parameter_sub_schema",
}
_SECURITY = {
    ("basic", None): "basic_authentication_security",
    ("apiKey", None): "api_key_security",
    ("oauth2", "implicit"): "oauth2_implicit_security",
    ("oauth2", "password"): "oauth2_password_security",
    ("oauth2", "application"): "oauth2_application_security",
    ("oauth2", "accessCode"): "oauth2_access_code_security",
}


class _Encoder:
    def __init__(self) -> None:
        self.classes = message_classes()
        #: keys the document has where gnostic allows none (gnostic would refuse the document)
        self.unknown: list[str] = []
        #: YAML text by the JSON of its value: most values (an operation's action and kind) repeat
        self._yaml_texts: dict[bytes, str] = {}

    def fill(self, message: str, target: Any, value: Any) -> None:
        """Set `target` (a `message`) from the JSON value, as gnostic's New<message> reads it."""
        special = getattr(self, f"_fill_{message}", None)
        if special is not None:
            special(target, value)
            return
        if message in _MAPS:
            self._entries(target.additional_properties, _MAPS[message], value)
            return
        if not isinstance(value, Mapping):
            self.unknown.append(f"{message}: {value!r}")
            return
        plain = _plain_fields(message)
        for key, item in value.items():
            if key.startswith("x-") and hasattr(target, "vendor_extension"):
                self._any(target.vendor_extension.add(name=key).value, item)
                continue
            found = plain.get(key)
            if found is None:
                self.unknown.append(f"{message}.{key}")
                continue
            self._set(target, *found, item)

    def _set(self, target: Any, name: str, type_name: str, repeated: bool, value: Any) -> None:
        if value is None:
            return  # null is an unset field, as gnostic reads it
        if type_name in ("string", "bool", "double", "int64"):
            cast = {"string": str, "bool": bool, "double": float, "int64": int}[type_name]
            values = value if isinstance(value, list) else [value]
            try:
                if repeated:
                    getattr(target, name).extend(cast(v) for v in values if v is not None)
                else:
                    setattr(target, name, cast(value))
            except (TypeError, ValueError, OverflowError):
                self.unknown.append(name)  # a value this field cannot hold is left out, not a failed document
        elif repeated:
            container = getattr(target, name)
            for item in value if isinstance(value, list) else [value]:
                self.fill(type_name, container.add(), item)
        else:
            self.fill(type_name, getattr(target, name), value)

    def _entries(self, container: Any, named: str, value: Any) -> None:
        if not isinstance(value, Mapping):
            self.unknown.append(f"{named}: {value!r}")
            return
        value_type = fields(named)[1][2]
        for key, item in value.items():
            entry = container.add(name=str(key))
            if value_type == "string":
                entry.value = str(item)
            else:
                self.fill(value_type, entry.value, item)

    def _any(self, target: Any, value: Any) -> None:
        key = orjson.dumps(value)
        text = self._yaml_texts.get(key)
        if text is None:
            text = self._yaml_texts[key] = _yaml(value)
        target.yaml = text

    # the messages gnostic reads by shape rather than by key

    def _fill_Any(self, target: Any, value: Any) -> None:
        self._any(target, value)

    def _fill_TypeItem(self, target: Any, value: Any) -> None:
        target.value.extend(v for v in (value if isinstance(value, list) else [value]) if isinstance(v, str))

    def _fill_ItemsItem(self, target: Any, value: Any) -> None:
        for item in value if isinstance(value, list) else [value]:
            self.fill("Schema", target.schema.add(), item)

    def _fill_StringArray(self, target: Any, value: Any) -> None:
        target.value.extend(str(item) for item in value)

    def _fill_AdditionalPropertiesItem(self, target: Any, value: Any) -> None:
        if isinstance(value, bool):
            target.boolean = value
        else:
            self.fill("Schema", target.schema, value)

    def _fill_SchemaItem(self, target: Any, value: Any) -> None:
        if isinstance(value, Mapping) and value.get("type") == "file":
            self.fill("FileSchema", target.file_schema, value)
        else:
            self.fill("Schema", target.schema, value)

    def _fill_ParametersItem(self, target: Any, value: Any) -> None:
        if isinstance(value, Mapping) and "$ref" in value:
            self.fill("JsonReference", target.json_reference, value)
        else:
            self.fill("Parameter", target.parameter, value)

    def _fill_Parameter(self, target: Any, value: Any) -> None:
        where = value.get("in") if isinstance(value, Mapping) else None
        if where == "body":
            self.fill("BodyParameter", target.body_parameter, value)
        elif where in _NON_BODY:
            field = _NON_BODY[where]
            sub_message = "".join(part[:1].upper() + part[1:] for part in field.split("_"))
            self.fill(sub_message, getattr(target.non_body_parameter, field), value)
        else:
            self.unknown.append(f"Parameter.in: {where!r}")

    def _fill_ResponseValue(self, target: Any, value: Any) -> None:
        if isinstance(value, Mapping) and "$ref" in value:
            self.fill("JsonReference", target.json_reference, value)
        else:
            self.fill("Response", target.response, value)

    def _fill_SecurityDefinitionsItem(self, target: Any, value: Any) -> None:
        kind = str(value.get("type")) if isinstance(value, Mapping) else ""
        flow = str(value.get("flow")) if kind == "oauth2" else None
        field = _SECURITY.get((kind, flow))
        if field is None:
            self.unknown.append(f"SecurityDefinitionsItem.type: {kind!r}")
            return
        sub_message = "".join(part[:1].upper() + part[1:] for part in field.split("_"))
        self.fill(sub_message, getattr(target, field), value)

    def _fill_Paths(self, target: Any, value: Any) -> None:
        for key, item in value.items():
            if key.startswith("x-"):
                self._any(target.vendor_extension.add(name=key).value, item)
            elif key.startswith("/"):
                self.fill("PathItem", target.path.add(name=key).value, item)
            else:
                self.unknown.append(f"Paths.{key}")

    def _fill_Responses(self, target: Any, value: Any) -> None:
        for key, item in value.items():
            if key.startswith("x-"):
                self._any(target.vendor_extension.add(name=key).value, item)
            elif key == "default" or (len(key) == 3 and key.isdigit()):
                self.fill("ResponseValue", target.response_code.add(name=key).value, item)
            else:
                self.unknown.append(f"Responses.{key}")


def to_message(document: Mapping[str, Any]) -> tuple[Any, list[str]]:
    """The `openapi.v2.Document` of a swagger 2.0 JSON document, and the keys gnostic would refuse."""
    encoder = _Encoder()
    message = encoder.classes["Document"]()
    encoder.fill("Document", message, document)
    return message, encoder.unknown


def encode(document: Mapping[str, Any]) -> bytes:
    """The served protobuf bytes of a swagger 2.0 JSON document."""
    data: bytes = to_message(document)[0].SerializeToString(deterministic=True)
    return data
