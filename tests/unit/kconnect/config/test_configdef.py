"""ConfigDef, parsing, validators and the JSON Schema compiler: Kafka's rules and exact texts."""

from __future__ import annotations

from typing import Any

import pytest
from kconnect.config import (
    NO_DEFAULT,
    CaseInsensitiveValidString,
    CompositeValidator,
    ConfigDef,
    ConfigException,
    ConfigType,
    Importance,
    LambdaValidator,
    NonEmptyString,
    NonEmptyStringWithoutControlChars,
    NonNullValidator,
    Password,
    Range,
    RegexValidator,
    Validator,
    ValidList,
    ValidString,
    Width,
    config_def_json_schema,
    convert_to_string,
    parse_type,
)
from kconnect.config.configdef import java_double_str, java_str
from kconnect.config.validators import java_hash_set_order

T = ConfigType


@pytest.mark.parametrize(
    ("config_type", "raw", "parsed"),
    [
        (T.BOOLEAN, "true", True),
        (T.BOOLEAN, " FALSE ", False),
        (T.BOOLEAN, "True", True),
        (T.BOOLEAN, False, False),
        (T.STRING, "  padded\t", "padded"),
        (T.INT, "10", 10),
        (T.INT, " -2147483648 ", -(2**31)),
        (T.INT, "+7", 7),
        (T.INT, 5, 5),
        (T.SHORT, "32767", 32767),
        (T.LONG, "9223372036854775807", 2**63 - 1),
        (T.LONG, 3, 3),
        (T.DOUBLE, "1.5", 1.5),
        (T.DOUBLE, "2", 2.0),
        (T.DOUBLE, "1e3", 1000.0),
        (T.DOUBLE, "3f", 3.0),
        (T.DOUBLE, 4, 4.0),
        (T.LIST, "a, b ,c", ["a", "b", "c"]),
        (T.LIST, "", []),
        (T.LIST, "   ", []),
        (T.LIST, "a,,b,", ["a", "", "b", ""]),
        (T.LIST, ["x"], ["x"]),
        (T.CLASS, " org.example.Foo ", "org.example.Foo"),
        (T.CLASS, ConfigDef, "kconnect.config.configdef.ConfigDef"),
        (T.PASSWORD, " s3cret ", Password("s3cret")),
        (T.INT, None, None),
    ],
)
def test_parse_type_follows_kafka_rules(config_type: ConfigType, raw: object, parsed: object) -> None:
    assert parse_type("k", raw, config_type) == parsed


@pytest.mark.parametrize(
    ("config_type", "raw", "message"),
    [
        (T.INT, "abc", "Invalid value abc for configuration k: Not a number of type INT"),
        (T.INT, "2147483648", "Invalid value 2147483648 for configuration k: Not a number of type INT"),
        (T.INT, "1_000", "Invalid value 1_000 for configuration k: Not a number of type INT"),
        (T.INT, "1.0", "Invalid value 1.0 for configuration k: Not a number of type INT"),
        (T.SHORT, "32768", "Invalid value 32768 for configuration k: Not a number of type SHORT"),
        (T.LONG, "x", "Invalid value x for configuration k: Not a number of type LONG"),
        (T.DOUBLE, "one", "Invalid value one for configuration k: Not a number of type DOUBLE"),
        (
            T.BOOLEAN,
            "yes",
            "Invalid value yes for configuration k: Expected value to be either true or false",
        ),
        (T.BOOLEAN, 1, "Invalid value 1 for configuration k: Expected value to be either true or false"),
        (T.STRING, 5, "Invalid value 5 for configuration k: Expected value to be a string, but it was a int"),
        (
            T.INT,
            2.5,
            "Invalid value 2.5 for configuration k: Expected value to be a 32-bit integer, but it was a "
            "float",
        ),
        (T.LIST, 3, "Invalid value 3 for configuration k: Expected a comma separated list."),
        (T.CLASS, 3, "Invalid value 3 for configuration k: Expected a Class instance or class name."),
    ],
)
def test_parse_type_errors_use_kafka_texts(config_type: ConfigType, raw: object, message: str) -> None:
    with pytest.raises(ConfigException) as caught:
        parse_type("k", raw, config_type)
    assert str(caught.value) == message
    assert caught.value.name == "k"
    assert caught.value.value == raw
    assert isinstance(caught.value, ValueError)


def test_password_is_hidden_everywhere() -> None:
    secret = Password("hunter2")
    assert str(secret) == repr(secret) == "[hidden]"
    assert f"{secret}" == "[hidden]"
    assert secret.value == "hunter2"
    assert convert_to_string(secret, T.PASSWORD) == "[hidden]"
    assert (
        str(ConfigException.invalid("pw", secret, "bad"))
        == "Invalid value [hidden] for configuration pw: bad"
    )


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (None, "null"),
        (True, "true"),
        (1.0, "1.0"),
        (0.001, "0.001"),
        (1e7, "1.0E7"),
        (1.5e-5, "1.5E-5"),
        (-2.5e20, "-2.5E20"),
        (float("nan"), "NaN"),
        (float("-inf"), "-Infinity"),
        (["a", "b"], "[a, b]"),
        ([], "[]"),
    ],
)
def test_java_str_renders_like_java(value: object, text: str) -> None:
    assert java_str(value) == text


def test_java_double_str_zero_signs() -> None:
    assert (java_double_str(0.0), java_double_str(-0.0)) == ("0.0", "-0.0")


@pytest.mark.parametrize(
    ("value", "config_type", "text"),
    [
        (["a", "b"], T.LIST, "a,b"),
        ([], T.LIST, ""),
        (1, T.INT, "1"),
        (False, T.BOOLEAN, "false"),
        (2.0, T.DOUBLE, "2.0"),
        (None, T.STRING, None),
        ("x", None, "x"),
    ],
)
def test_convert_to_string(value: object, config_type: ConfigType | None, text: str | None) -> None:
    assert convert_to_string(value, config_type) == text


# --- validators -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("validator", "value", "message"),
    [
        (Range.at_least(1), 0, "Invalid value 0 for configuration k: Value must be at least 1"),
        (Range.at_least(1), None, "Invalid value null for configuration k: Value must be non-null"),
        (Range.between(1, 5), 6, "Invalid value 6 for configuration k: Value must be no more than 5"),
        (Range.between(0.5, 1.0), 0.25, "Invalid value 0.25 for configuration k: Value must be at least 0.5"),
        (
            Range.between(0.5, 1.0),
            2.0,
            "Invalid value 2.0 for configuration k: Value must be no more than 1.0",
        ),
        (
            ValidString.in_("none", "all"),
            "some",
            "Invalid value some for configuration k: String must be one of: none, all",
        ),
        (
            ValidString.in_("none", "all"),
            None,
            "Invalid value null for configuration k: String must be one of: none, all",
        ),
        (
            CaseInsensitiveValidString.in_("requested", "required"),
            "maybe",
            "Invalid value maybe for configuration k: "
            "String must be one of (case insensitive): REQUIRED, REQUESTED",
        ),
        (
            ValidList.in_("a", "b"),
            ["a", "c", "d"],
            "Invalid value c for configuration k: String must be one of: a, b",
        ),
        (NonEmptyString(), "", "Invalid value  for configuration k: String must be non-empty"),
        (NonNullValidator(), None, "Invalid value null for configuration k: entry must be non null"),
        (
            NonEmptyStringWithoutControlChars(),
            "",
            "Invalid value  for configuration k: String may not be empty",
        ),
        (
            NonEmptyStringWithoutControlChars(),
            "a\tb\x7f",
            "Invalid value a\tb\x7f for configuration k: "
            "String may not contain control sequences but had the following ASCII chars: 9, 127",
        ),
        (
            RegexValidator(),
            "(",
            "Invalid value ( for configuration k: "
            "Invalid regex: missing ), unterminated subpattern at position 0",
        ),
        (
            CompositeValidator.of(NonNullValidator(), Range.at_least(3)),
            None,
            "Invalid value null for configuration k: entry must be non null",
        ),
        (
            CompositeValidator.of(NonNullValidator(), Range.at_least(3)),
            2,
            "Invalid value 2 for configuration k: Value must be at least 3",
        ),
    ],
)
def test_validator_messages_are_kafkas(validator: Validator, value: object, message: str) -> None:
    with pytest.raises(ConfigException) as caught:
        validator.ensure_valid("k", value)
    assert str(caught.value) == message


@pytest.mark.parametrize(
    ("validator", "value"),
    [
        (Range.between(1, 5), 5),
        (ValidString.in_("none", "all"), "all"),
        (CaseInsensitiveValidString.in_("poll"), "POLL"),
        (ValidList.in_("a", "b"), ["b", "a"]),
        (ValidList.in_("a"), None),
        (NonEmptyString(), None),
        (NonEmptyStringWithoutControlChars(), None),
        (NonEmptyStringWithoutControlChars(), "my-connector"),
        (RegexValidator(), "topic-.*"),
    ],
)
def test_validators_accept_good_values(validator: Validator, value: object) -> None:
    validator.ensure_valid("k", value)


@pytest.mark.parametrize(
    ("validator", "text"),
    [
        (Range.at_least(1), "[1,...]"),
        (Range.between(0, 10), "[0,...,10]"),
        (Range(None, 3), "[...,3]"),
        (Range(), "[...]"),
        (ValidString.in_("none", "restart"), "[none, restart]"),
        (ValidList.in_("x", "y"), "[x, y]"),
        (
            CaseInsensitiveValidString.in_("poll", "interval", "connector"),
            "(case insensitive) [INTERVAL, POLL, CONNECTOR]",
        ),
        (NonEmptyString(), "non-empty string"),
        (NonNullValidator(), "non-null string"),
        (NonEmptyStringWithoutControlChars(), "non-empty string without ISO control characters"),
        (RegexValidator(), "valid regex"),
        (LambdaValidator(lambda name, value: None, "unique aliases"), "unique aliases"),
        (LambdaValidator(lambda name, value: None, lambda: "computed"), "computed"),
        (CompositeValidator.of(NonNullValidator(), Range.at_least(0)), "non-null string, [0,...]"),
    ],
)
def test_validator_descriptions(validator: Validator, text: str) -> None:
    assert str(validator) == text


@pytest.mark.parametrize(
    ("items", "order"),
    [
        (
            ["DISABLED", "DOWNGRADE", "UPGRADE", "BIDIRECTIONAL"],
            ["DISABLED", "DOWNGRADE", "UPGRADE", "BIDIRECTIONAL"],
        ),
        (["NONE", "GZIP", "SNAPPY", "ZSTD"], ["ZSTD", "GZIP", "NONE", "SNAPPY"]),
        (["EVENT", "WALLCLOCK"], ["EVENT", "WALLCLOCK"]),
    ],
)
def test_java_hash_set_order_matches_published_java_messages(items: list[str], order: list[str]) -> None:
    # Expected orders come from Java tests asserting CaseInsensitiveValidString messages (Kafka's
    # GroupCoordinatorConfigTest, Aiven's S3 connector tests): a java.util.HashSet's iteration order.
    assert java_hash_set_order(items) == order


def test_java_hash_set_order_drops_duplicates_and_grows_the_table() -> None:
    assert java_hash_set_order(["REQUESTED", "REQUIRED", "REQUESTED"]) == ["REQUIRED", "REQUESTED"]
    many = [f"V{i}" for i in range(20)]
    assert sorted(java_hash_set_order(many)) == sorted(many)


def test_lambda_validator_runs_its_function() -> None:
    def no_x(name: str, value: object) -> None:
        if value == "x":
            raise ConfigException.invalid(name, value, "No x.")

    with pytest.raises(ConfigException, match=r"^Invalid value x for configuration k: No x\.$"):
        LambdaValidator(no_x, "not x").ensure_valid("k", "x")


# --- ConfigDef ------------------------------------------------------------------------------------------


def _sample() -> ConfigDef:
    return (
        ConfigDef()
        .define("file", type="STRING", importance="HIGH", documentation="File.", group="G", order_in_group=1)
        .define(
            "batch.size", type=T.INT, default="2000", validator=Range.at_least(1), importance=Importance.LOW
        )
        .define(
            "mode",
            type=T.STRING,
            default="a",
            importance="LOW",
            group="H",
            width="SHORT",
            display_name="Mode",
        )
        .define("secret", type=T.PASSWORD, default=None, importance="MEDIUM", group="G")
    )


def test_define_parses_defaults_and_keeps_order_and_groups() -> None:
    config_def = _sample()
    assert config_def.names() == ("file", "batch.size", "mode", "secret")
    assert config_def.groups() == ["G", "H"]
    batch = config_def.config_keys["batch.size"]
    assert (batch.default, batch.type, batch.importance, batch.display_name) == (
        2000,
        T.INT,
        Importance.LOW,
        "batch.size",
    )
    assert (batch.group, batch.order_in_group, batch.width) == (None, -1, Width.NONE)
    assert config_def.config_keys["file"].default is NO_DEFAULT
    assert not config_def.config_keys["file"].has_default
    assert config_def.config_keys["mode"].width is Width.SHORT


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"type": "INT", "default": "x"}, "Invalid value x for configuration k: Not a number of type INT"),
        (
            {"type": "INT", "default": 0, "validator": Range.at_least(1)},
            "Invalid value 0 for configuration k: Value must be at least 1",
        ),
    ],
)
def test_define_rejects_bad_defaults(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigException) as caught:
        ConfigDef().define("k", importance="LOW", **kwargs)
    assert str(caught.value) == message


def test_define_twice_is_an_error() -> None:
    with pytest.raises(ConfigException, match=r"^Configuration file is defined twice\.$"):
        _sample().define("file", type="STRING", importance="LOW")


def test_define_internal_marks_the_key() -> None:
    config_def = ConfigDef().define_internal("internal.x", type="INT", default=3)
    key = config_def.config_keys["internal.x"]
    assert (key.internal, key.default, key.importance) == (True, 3, Importance.LOW)


def test_parse_applies_defaults_and_types() -> None:
    parsed = _sample().parse({"file": "/tmp/x", "batch.size": "10", "unknown": "kept out"})
    assert parsed == {"file": "/tmp/x", "batch.size": 10, "mode": "a", "secret": None}


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({}, 'Missing required configuration "file" which has no default value.'),
        (
            {"file": "f", "batch.size": "0"},
            "Invalid value 0 for configuration batch.size: Value must be at least 1",
        ),
        (
            {"file": "f", "batch.size": "x"},
            "Invalid value x for configuration batch.size: Not a number of type INT",
        ),
    ],
)
def test_parse_raises_the_first_problem(props: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigException) as caught:
        _sample().parse(props)
    assert str(caught.value) == message


def test_parse_rejects_undefined_dependents() -> None:
    config_def = ConfigDef().define("a", type="STRING", default="", importance="LOW", dependents=["b", "c"])
    with pytest.raises(ConfigException) as caught:
        config_def.parse({})
    assert str(caught.value) == "Some configurations in are referred in the dependents, but not defined: b,c"


def test_with_combines_and_refuses_duplicates() -> None:
    other = ConfigDef().define("extra", type="INT", default=1, importance="LOW", group="Z")
    combined = _sample().with_(other)
    assert combined.names() == ("file", "batch.size", "mode", "secret", "extra")
    assert combined.groups() == ["G", "H", "Z"]
    with pytest.raises(ConfigException, match="defined twice"):
        combined.with_(other)


@pytest.mark.parametrize(("keep_existing", "expected_default"), [(False, "b"), (True, "a")])
def test_merge_replaces_in_place_or_keeps(keep_existing: bool, expected_default: str) -> None:
    other = ConfigDef().define("mode", type="STRING", default="b", importance="LOW")
    merged = _sample().merge(other, keep_existing=keep_existing)
    assert merged.names() == ("file", "batch.size", "mode", "secret")
    assert merged.config_keys["mode"].default == expected_default


# --- JSON Schema ----------------------------------------------------------------------------------------


def test_json_schema_document() -> None:
    config_def = (
        ConfigDef()
        .define("name", type="STRING", importance="HIGH", documentation="Name.",
                validator=NonEmptyStringWithoutControlChars(), group="Common", order_in_group=1,
                width="MEDIUM", display_name="Connector name")
        .define("tasks.max", type="INT", default=1, validator=Range.at_least(1), importance="HIGH")
        .define("mode", type="STRING", default="none", validator=ValidString.in_("none", "all"),
                importance="LOW", dependents=["ratio"])
        .define("ratio", type="DOUBLE", default=0.5, validator=Range.between(0, 1), importance="LOW")
        .define("topics", type="LIST", default="", validator=ValidList.in_("a", "b"), importance="LOW")
        .define("flag", type="BOOLEAN", default=False, importance="LOW")
        .define("secret", type="PASSWORD", default="pw", importance="LOW")
        .define("eos", type="STRING", default="poll", validator=CaseInsensitiveValidString.in_("poll"),
                importance="LOW")
    )  # fmt: skip
    schema = config_def_json_schema(config_def, title="sample")
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["title"] == "sample"
    assert schema["type"] == "object"
    assert schema["required"] == ["name"]
    assert schema["x-kafka-groups"] == ["Common"]
    props = schema["properties"]
    assert props["name"] == {
        "type": ["string", "null"],
        "description": "Name.",
        "x-kafka-type": "STRING",
        "x-kafka-importance": "HIGH",
        "x-kafka-group": "Common",
        "x-kafka-order-in-group": 1,
        "x-kafka-width": "MEDIUM",
        "x-kafka-display-name": "Connector name",
        "x-kafka-valid-values": "non-empty string without ISO control characters",
        "minLength": 1,
        "not": {"type": "string", "pattern": "[\\u0000-\\u001f\\u007f-\\u009f]"},
    }
    assert props["tasks.max"]["type"] == "integer"
    assert (props["tasks.max"]["minimum"], props["tasks.max"]["default"]) == (1, 1)
    assert "maximum" not in props["tasks.max"]
    assert props["mode"]["enum"] == ["none", "all"]
    assert props["mode"]["x-kafka-dependents"] == ["ratio"]
    assert (props["ratio"]["type"], props["ratio"]["minimum"], props["ratio"]["maximum"]) == ("number", 0, 1)
    assert props["topics"]["type"] == ["array", "null"]
    assert props["topics"]["items"] == {"enum": ["a", "b"]}
    assert props["topics"]["default"] == []
    assert props["flag"]["type"] == ["boolean", "null"]
    assert props["secret"]["writeOnly"] is True
    assert "default" not in props["secret"]
    assert "enum" not in props["eos"]
    assert props["eos"]["x-kafka-valid-values"] == "(case insensitive) [POLL]"
    assert config_def.json_schema()["properties"] == props
