"""Each validation rule is one object: the parse check, the JSON Schema and the ranked message all read it."""

from __future__ import annotations

import pytest
from kconnect.config import ConfigDef, ConfigException, Validator
from kconnect.config.rules import Rule, fixed, rejects_null
from kconnect.config.validators import (
    CompositeValidator,
    NonEmptyStringWithoutControlChars,
    PluginClass,
    Range,
    UniqueItems,
    ValidList,
    ValidString,
)


class Even(Validator):
    """A validator written as rules only: null rejected, then odd numbers rejected."""

    rules = (
        rejects_null("Value must be non-null"),
        Rule(
            "multipleOf",
            lambda value: isinstance(value, int) and value % 2 == 1,
            fixed("Value must be even"),
            schema={"multipleOf": 2},
        ),
    )


def test_one_rule_object_serves_parse_schema_and_validate() -> None:
    config_def = ConfigDef().define("n", type="INT", default=2, validator=Even(), importance="LOW")
    schema = config_def.json_schema()["properties"]["n"]
    assert schema["type"] == "integer"  # the null rule's schema: "null" left out
    assert schema["multipleOf"] == 2
    with pytest.raises(ConfigException, match="Invalid value 3 for configuration n: Value must be even"):
        config_def.parse({"n": "3"})
    assert config_def.validate({"n": "3"})["n"].errors == [
        "Invalid value 3 for configuration n: Value must be even"
    ]
    assert config_def.validate({"n": "x"})["n"].errors == [
        "Invalid value x for configuration n: Not a number of type INT",
        "Invalid value null for configuration n: Value must be non-null",
    ]


@pytest.mark.parametrize(
    "validator",
    [
        Range.between(1, 5),
        ValidString.in_("a", "b"),
        ValidList.in_("a"),
        NonEmptyStringWithoutControlChars(),
        UniqueItems("Duplicate alias provided.", "unique"),
        CompositeValidator.of(Range.at_least(0), Even()),
    ],
)
def test_a_validators_schema_is_its_rules_fragments(validator: Validator) -> None:
    merged: dict[str, object] = {}
    for rule in validator.rules:
        merged.update(rule.schema)
    assert validator.json_schema() == merged
    assert validator.accepts_null == all(rule.keyword != "type" for rule in validator.rules)


def test_the_rank_is_the_rules_position() -> None:
    validator = CompositeValidator.of(Range.at_least(0), Even())
    assert validator.first_failure(-3) == (1, validator.rules[1])  # below minimum comes first
    # Range's rules (null, minimum) then Even's (null, multipleOf).
    assert validator.first_failure(-3, "multipleOf") == (3, validator.rules[3])
    assert validator.first_failure(4) is None


def test_a_validator_without_rules_runs_as_python() -> None:
    class NotSeven(Validator):
        def ensure_valid(self, name: str, value: object) -> None:
            if value == 7:
                raise ConfigException.invalid(name, value, "Seven is not allowed")

    config_def = ConfigDef().define("n", type="INT", default=1, validator=NotSeven(), importance="LOW")
    assert NotSeven().json_schema() is None
    assert config_def.validate({"n": "7"})["n"].errors == [
        "Invalid value 7 for configuration n: Seven is not allowed"
    ]


JSON = "org.apache.kafka.connect.json.JsonConverter"
CONVERTERS = PluginClass(
    "Converter",
    {JSON: JSON, "JsonConverter": JSON},
    {"FileStreamSink": "org.apache.kafka.connect.file.FileStreamSinkConnector"},
)


@pytest.mark.parametrize(
    ("raw", "value", "errors"),
    [
        ("JsonConverter", JSON, []),  # an alias shows as the class name, as Kafka shows a Class
        ("foo.Bar", None, ["Invalid value foo.Bar for configuration c: Class foo.Bar could not be found."]),
        ("", None, ["Invalid value  for configuration c: Class  could not be found."]),
        (
            "FileStreamSink",
            "FileStreamSink",
            [
                "Class class org.apache.kafka.connect.file.FileStreamSinkConnector does not implement the "
                "Converter interface"
            ],
        ),
    ],
)
def test_plugin_class_texts_are_kafkas(raw: str, value: object, errors: list[str]) -> None:
    config_def = ConfigDef().define("c", type="CLASS", default=None, validator=CONVERTERS, importance="LOW")
    result = config_def.validate({"c": raw})["c"]
    assert (result.value, result.errors) == (value, errors)
    if errors:
        with pytest.raises(ConfigException) as failure:
            config_def.parse({"c": raw})
        assert str(failure.value) == errors[0]


def test_plugin_class_parses_to_the_class_name() -> None:
    config_def = ConfigDef().define("c", type="CLASS", default=None, validator=CONVERTERS, importance="LOW")
    assert config_def.parse({"c": " JsonConverter "}) == {"c": JSON}


def test_plugin_class_lets_null_through() -> None:
    config_def = ConfigDef().define("c", type="CLASS", default=None, validator=CONVERTERS, importance="LOW")
    assert config_def.validate({})["c"].errors == []
    required = ConfigDef().define("c", type="CLASS", validator=CONVERTERS, importance="LOW")
    assert required.validate({})["c"].errors == [
        'Missing required configuration "c" which has no default value.'
    ]
