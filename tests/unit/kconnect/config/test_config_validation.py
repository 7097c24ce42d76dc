"""Validation through JSON Schema with Kafka's outcome, and the validate endpoint's ConfigInfos."""

from __future__ import annotations

from collections.abc import Mapping

import pytest
from kconnect.config import (
    CaseInsensitiveValidString,
    CompositeValidator,
    ConfigDef,
    ConfigException,
    ConfigInfos,
    ConfigValue,
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
    build_config_infos,
    connector_config_def,
    connector_plugin_config,
    generate_result,
    invalid_config_message,
    parse_type,
    sink_connector_config_def,
    source_connector_config_def,
)
from kconnect.config.connector_config import whole_topic_pattern

FILE_SINK = "org.apache.kafka.connect.file.FileStreamSinkConnector"


def _errors(config_def: ConfigDef, props: Mapping[str, object]) -> dict[str, list[str]]:
    return {name: value.errors for name, value in config_def.validate(props).items() if value.errors}


def test_unparsable_int_gives_two_errors_and_a_null_value() -> None:
    config_def = ConfigDef().define(
        "tasks.max", type="INT", default=1, validator=Range.at_least(1), importance="HIGH"
    )
    value = config_def.validate({"tasks.max": "abc"})["tasks.max"]
    assert value.value is None
    assert value.errors == [
        "Invalid value abc for configuration tasks.max: Not a number of type INT",
        "Invalid value null for configuration tasks.max: Value must be non-null",
    ]


def test_every_field_reports_all_its_errors_at_once() -> None:
    config_def = (
        ConfigDef()
        .define("name", type="STRING", validator=NonEmptyStringWithoutControlChars(), importance="HIGH")
        .define("count", type="INT", validator=Range.between(1, 9), importance="HIGH")
        .define("mode", type="STRING", default="a", validator=ValidString.in_("a", "b"), importance="LOW")
        .define("flag", type="BOOLEAN", default=False, importance="LOW")
        .define("ratio", type="DOUBLE", default=0.5, validator=Range.between(0.0, 1.0), importance="LOW")
        .define("ok", type="STRING", default="fine", importance="LOW")
    )
    assert _errors(config_def, {"name": "", "mode": "c", "flag": "maybe", "ratio": "1.5", "ok": "x"}) == {
        "name": ["Invalid value  for configuration name: String may not be empty"],
        "count": [
            'Missing required configuration "count" which has no default value.',
            "Invalid value null for configuration count: Value must be non-null",
        ],
        "mode": ["Invalid value c for configuration mode: String must be one of: a, b"],
        "flag": ["Invalid value maybe for configuration flag: Expected value to be either true or false"],
        "ratio": ["Invalid value 1.5 for configuration ratio: Value must be no more than 1.0"],
    }


def test_values_are_parsed_defaulted_or_null() -> None:
    config_def = (
        ConfigDef()
        .define("a", type="LIST", default="x,y", importance="LOW")
        .define("b", type="LONG", default=None, importance="LOW")
        .define("c", type="INT", importance="LOW")
    )
    values = config_def.validate({"a": "p, q"})
    assert [(v.name, v.value, v.visible, v.recommended_values) for v in values.values()] == [
        ("a", ["p", "q"], True, []),
        ("b", None, True, []),
        ("c", None, True, []),
    ]


SCHEMA_VALIDATORS: list[tuple[Validator, str, list[str]]] = [
    (Range.at_least(1), "INT", ["0", "1", "-5"]),
    (Range.between(2, 4), "INT", ["1", "3", "5"]),
    (Range.between(0.5, 1.0), "DOUBLE", ["0.25", "2"]),
    (ValidString.in_("none", "all"), "STRING", ["none", "x", ""]),
    (ValidList.in_("a", "b"), "LIST", ["a,b", "a,z,y", ""]),
    (NonEmptyString(), "STRING", ["", "a"]),
    (NonEmptyStringWithoutControlChars(), "STRING", ["", "ok", "a\x01b\x9f"]),
    (NonNullValidator(), "STRING", ["v"]),
    (RegexValidator(), "STRING", ["a.*", "(", "[z-a]"]),
    (CompositeValidator.of(NonNullValidator(), Range.at_least(3)), "INT", ["2", "4"]),
    (CompositeValidator.of(ValidString.in_("x"), NonNullValidator()), "STRING", ["x", "y"]),
]


@pytest.mark.parametrize(("validator", "config_type", "raws"), SCHEMA_VALIDATORS)
def test_schema_path_gives_the_same_text_as_the_python_validator(
    validator: Validator, config_type: str, raws: list[str]
) -> None:
    assert validator.json_schema() is not None
    config_def = ConfigDef().define("k", type=config_type, importance="LOW", validator=validator)
    for raw in [*raws, None]:
        expected = (
            [] if raw is not None else ['Missing required configuration "k" which has no default value.']
        )
        try:
            validator.ensure_valid("k", parse_type("k", raw, config_def.config_keys["k"].type))
        except ConfigException as failure:
            expected.append(str(failure))
        assert config_def.validate({} if raw is None else {"k": raw})["k"].errors == expected, raw


def test_valid_list_reports_the_first_bad_item() -> None:
    config_def = ConfigDef().define(
        "t", type="LIST", default="", validator=ValidList.in_("a", "b"), importance="LOW"
    )
    assert _errors(config_def, {"t": "a, c, d"}) == {
        "t": ["Invalid value c for configuration t: String must be one of: a, b"]
    }


def test_python_only_validators_run_as_python() -> None:
    def even(name: str, value: object) -> None:
        if isinstance(value, int) and value % 2:
            raise ConfigException.invalid(name, value, "Must be even.")

    config_def = (
        ConfigDef()
        .define("n", type="INT", default=0, validator=LambdaValidator(even, "even"), importance="LOW")
        .define("e", type="STRING", default="poll", validator=CaseInsensitiveValidString.in_("poll"),
                importance="LOW")
        .define("both", type="INT", default=4, importance="LOW",
                validator=CompositeValidator.of(Range.at_least(2), LambdaValidator(even, "even")))
    )  # fmt: skip
    assert config_def.config_keys["both"].validator is not None
    assert config_def.config_keys["both"].validator.json_schema() is None
    assert _errors(config_def, {"n": "3", "e": "Poll", "both": "1"}) == {
        "n": ["Invalid value 3 for configuration n: Must be even."],
        "both": ["Invalid value 1 for configuration both: Value must be at least 2"],
    }
    assert _errors(config_def, {"e": "batch", "both": "3"}) == {
        "e": ["Invalid value batch for configuration e: String must be one of (case insensitive): POLL"],
        "both": ["Invalid value 3 for configuration both: Must be even."],
    }


def test_password_values_stay_hidden() -> None:
    config_def = ConfigDef().define("pw", type="PASSWORD", validator=NonEmptyString(), importance="HIGH")
    value = config_def.validate({"pw": " "})["pw"]
    assert value.value == Password("")
    assert value.errors == ["Invalid value [hidden] for configuration pw: String must be non-empty"]
    infos = generate_result("C", config_def.config_keys, [config_def.validate({"pw": "s3cret"})["pw"]], [])
    assert infos.configs[0].value is not None
    assert infos.configs[0].value.value == "[hidden]"


class _ModeRecommender:
    """Recommends ratios only in "advanced" mode, and hides the key otherwise."""

    def valid_values(self, name: str, parsed_config: Mapping[str, object]) -> list[object]:
        if parsed_config.get("mode") == "broken":
            raise ConfigException.invalid(name, parsed_config.get(name), "Cannot recommend.")
        return [0.25, 0.5] if parsed_config.get("mode") == "advanced" else []

    def visible(self, name: str, parsed_config: Mapping[str, object]) -> bool:
        return parsed_config.get("mode") == "advanced"


def _dependent_def() -> ConfigDef:
    return (
        ConfigDef()
        .define("mode", type="STRING", default="simple", importance="HIGH", dependents=["ratio"])
        .define("ratio", type="DOUBLE", default=0.5, importance="LOW", recommender=_ModeRecommender())
    )


@pytest.mark.parametrize(
    ("mode", "recommended", "visible", "errors"),
    [
        ("simple", [], False, []),
        ("advanced", [0.25, 0.5], True, []),
        ("broken", [], True, ["Invalid value 0.5 for configuration ratio: Cannot recommend."]),
    ],
)
def test_recommenders_see_every_parsed_value(
    mode: str, recommended: list[object], visible: bool, errors: list[str]
) -> None:
    ratio = _dependent_def().validate({"mode": mode})["ratio"]
    assert (ratio.recommended_values, ratio.visible, ratio.errors) == (recommended, visible, errors)


def test_undefined_dependents_are_reported_and_hidden() -> None:
    config_def = ConfigDef().define("a", type="STRING", default="", importance="LOW", dependents=["ghost"])
    ghost = config_def.validate({})["ghost"]
    assert (ghost.errors, ghost.visible, ghost.value) == (
        ["ghost is referred in the dependents, but not defined."],
        False,
        None,
    )


def test_recommended_values_render_as_strings() -> None:
    config_def = _dependent_def()
    infos = generate_result(
        "C", config_def.config_keys, config_def.validate({"mode": "advanced"}).values(), []
    )
    ratio = infos.configs[1].value
    assert ratio is not None
    assert (ratio.value, ratio.recommended_values, ratio.visible) == ("0.5", ("0.25", "0.5"), True)


# --- The framework's connector keys ---------------------------------------------------------------------


def _layout(config_def: ConfigDef) -> list[tuple[str, str, str | None, int]]:
    return [(k.name, k.type.value, k.group, k.order_in_group) for k in config_def.config_keys.values()]


COMMON_LAYOUT = [
    ("name", "STRING", "Common", 1),
    ("connector.class", "STRING", "Common", 2),
    ("connector.plugin.version", "STRING", "Common", 3),
    ("tasks.max", "INT", "Common", 4),
    ("tasks.max.enforce", "BOOLEAN", "Common", 5),
    ("key.converter", "CLASS", "Common", 6),
    ("key.converter.plugin.version", "STRING", "Common", 7),
    ("value.converter", "CLASS", "Common", 8),
    ("value.converter.plugin.version", "STRING", "Common", 9),
    ("header.converter", "CLASS", "Common", 10),
    ("header.converter.plugin.version", "STRING", "Common", 11),
    ("transforms", "LIST", "Transforms", 12),
    ("predicates", "LIST", "Predicates", 13),
    ("config.action.reload", "STRING", "Common", 14),
    ("errors.retry.timeout", "LONG", "Error Handling", 1),
    ("errors.retry.delay.max.ms", "LONG", "Error Handling", 2),
    ("errors.tolerance", "STRING", "Error Handling", 3),
    ("errors.log.enable", "BOOLEAN", "Error Handling", 4),
    ("errors.log.include.messages", "BOOLEAN", "Error Handling", 5),
]


def test_connector_defs_match_kafka_4_1() -> None:
    assert _layout(connector_config_def()) == COMMON_LAYOUT
    assert _layout(sink_connector_config_def()) == [
        *COMMON_LAYOUT,
        ("topics", "LIST", "Common", 4),
        ("topics.regex", "STRING", "Common", 4),
        ("errors.deadletterqueue.topic.name", "STRING", "Error Handling", 6),
        ("errors.deadletterqueue.topic.replication.factor", "SHORT", "Error Handling", 7),
        ("errors.deadletterqueue.context.headers.enable", "BOOLEAN", "Error Handling", 8),
    ]
    assert _layout(source_connector_config_def()) == [
        *COMMON_LAYOUT,
        ("topic.creation.groups", "LIST", "Topic Creation", 1),
        ("exactly.once.support", "STRING", "Exactly Once Support", 2),
        ("transaction.boundary", "STRING", "Exactly Once Support", 3),
        ("transaction.boundary.interval.ms", "LONG", "Exactly Once Support", 4),
        ("offsets.storage.topic", "STRING", "offsets.topic", 1),
    ]
    assert sink_connector_config_def().groups() == ["Common", "Transforms", "Predicates", "Error Handling"]
    assert source_connector_config_def().groups() == [
        "Common", "Transforms", "Predicates", "Error Handling", "Topic Creation", "Exactly Once Support",
        "offsets.topic",
    ]  # fmt: skip


def _sink_errors(props: dict[str, str]) -> dict[str, list[str]]:
    infos = build_config_infos("c", FILE_SINK, sink_connector_config_def(), ConfigDef(), props)
    return {
        i.value.name: list(i.value.errors) for i in infos.configs if i.value is not None and i.value.errors
    }


BASE = {"name": "c", "connector.class": "FileStreamSink"}
NO_TOPICS = "Must configure one of topics or topics.regex"


@pytest.mark.parametrize(
    ("extra", "errors"),
    [
        ({"topics": "a"}, {}),
        ({}, {"topics": [NO_TOPICS], "topics.regex": [NO_TOPICS]}),
        ({"topics": " ", "topics.regex": ""}, {"topics": [NO_TOPICS], "topics.regex": [NO_TOPICS]}),
        ({"topics": "a", "topics.regex": "b.*"},
         {"topics": ["topics and topics.regex are mutually exclusive options, but both are set."],
          "topics.regex": ["topics and topics.regex are mutually exclusive options, but both are set."]}),
        ({"topics": "a, dlq, a", "errors.deadletterqueue.topic.name": " dlq "},
         {"topics": ["The DLQ topic 'dlq' may not be included in the list of topics ('topics=[a, dlq]') "
                     "consumed by the connector"]}),
        ({"topics.regex": "d.*", "errors.deadletterqueue.topic.name": "dlq"},
         {"topics.regex": ["The DLQ topic 'dlq' may not be matched by the regex for the topics "
                           "('topics.regex=d.*') consumed by the connector"]}),
        ({"topics.regex": "orders", "errors.deadletterqueue.topic.name": "orders-dlq"}, {}),
        ({"topics.regex": "(?i)orders-DLQ", "errors.deadletterqueue.topic.name": "orders-dlq"},
         {"topics.regex": ["The DLQ topic 'orders-dlq' may not be matched by the regex for the topics "
                           "('topics.regex=(?i)orders-DLQ') consumed by the connector"]}),
        ({"topics.regex": "(", "errors.deadletterqueue.topic.name": "dlq"},
         {"topics.regex": ["Invalid value ( for configuration topics.regex: Invalid regex: missing ), "
                           "unterminated subpattern at position 0"]}),
        ({"topics": "a", "transforms": "x,x"},
         {"transforms": ["Invalid value [x, x] for configuration transforms: Duplicate alias provided."]}),
        ({"topics": "a", "connector.plugin.version": "[1.0"},
         {"connector.plugin.version": ["Invalid value [1.0 for configuration connector.plugin.version: "
                                       "Unbounded range: [1.0"]}),
        ({"topics": "a", "key.converter.plugin.version": "(1.0)"},
         {"key.converter.plugin.version": ["Invalid value (1.0) for configuration "
                                           "key.converter.plugin.version: Single version must be "
                                           "surrounded by []: (1.0)"]}),
        ({"topics": "a", "value.converter.plugin.version": "[2.0,1.0]"},
         {"value.converter.plugin.version": ["Invalid value [2.0,1.0] for configuration "
                                             "value.converter.plugin.version: Range defies version ordering: "
                                             "[2.0,1.0]"]}),
        ({"topics": "a", "header.converter.plugin.version": "[1.0,2.0),3.0"},
         {"header.converter.plugin.version": ["Invalid value [1.0,2.0),3.0 for configuration "
                                              "header.converter.plugin.version: Only fully-qualified sets "
                                              "allowed in multiple set scenario: [1.0,2.0),3.0"]}),
        ({"topics": "a", "connector.plugin.version": "[1.0,2.0)"}, {}),
        ({"topics": "a", "connector.plugin.version": "[1.0,1.0]"}, {}),  # valid for maven-artifact 3.9
        ({"topics": "a", "connector.plugin.version": "(1.0,1.0]"},
         {"connector.plugin.version": ["Invalid value (1.0,1.0] for configuration connector.plugin.version: "
                                       "Range defies version ordering: (1.0,1.0]"]}),
        ({"topics": "a", "connector.plugin.version": "3.9.1"}, {}),
        ({"topics": "a", "connector.plugin.version": "latest"}, {}),
        ({"topics": "a", "name": "bad\nname"},
         {"name": ["Invalid value bad\nname for configuration name: String may not contain control sequences "
                   "but had the following ASCII chars: 10"]}),
    ],
)  # fmt: skip
def test_sink_validation_texts(extra: dict[str, str], errors: dict[str, list[str]]) -> None:
    assert _sink_errors({**BASE, **extra}) == errors


@pytest.mark.parametrize(
    ("regex", "topic", "matches"),
    [
        ("orders", "orders", True),
        ("orders", "orders-dlq", False),
        ("orders", "orders\n", False),
        ("orders.*", "orders-dlq", True),
        ("a|b", "ab", False),
        ("a|b", "b", True),
        ("(?i)orders", "ORDERS", True),
        ("(?i)orders", "ORDERS-dlq", False),
        ("(?x) orders  # the main topic", "orders", True),
        ("(?x) orders  # the main topic", "orders-dlq", False),
    ],
)  # fmt: skip
def test_topic_patterns_match_whole_names_as_java_matches(regex: str, topic: str, matches: bool) -> None:
    assert (whole_topic_pattern(regex).match(topic) is not None) is matches


@pytest.mark.parametrize(
    ("props", "errors"),
    [
        ({"exactly.once.support": "Required", "transaction.boundary": "INTERVAL"}, {}),
        ({"exactly.once.support": "always"},
         {"exactly.once.support": ["Invalid value always for configuration exactly.once.support: String must "
                                   "be one of (case insensitive): REQUIRED, REQUESTED"]}),
        ({"transaction.boundary.interval.ms": "-1"},
         {"transaction.boundary.interval.ms": ["Invalid value -1 for configuration "
                                               "transaction.boundary.interval.ms: Value must be at least "
                                               "0"]}),
        ({"offsets.storage.topic": ""},
         {"offsets.storage.topic": ["Invalid value  for configuration offsets.storage.topic: String must be "
                                    "non-empty"]}),
    ],
)  # fmt: skip
def test_source_validation_texts(props: dict[str, str], errors: dict[str, list[str]]) -> None:
    assert _errors(source_connector_config_def(), {**BASE, **props}) == errors


# --- ConfigInfos ----------------------------------------------------------------------------------------


def _own_def() -> ConfigDef:
    return (
        ConfigDef()
        .define("file", type="STRING", default=None, importance="HIGH", documentation="Destination file.")
        .define("tasks.max", type="INT", default=2, validator=Range.at_least(1), importance="LOW",
                documentation="Overridden.", group="Own", order_in_group=7)
    )  # fmt: skip


def test_config_infos_json_shape_and_order() -> None:
    props = {"connector.class": FILE_SINK, "name": "c", "topics": "t", "tasks.max": "0", "stray": None}
    infos = build_config_infos("c", "ignored", sink_connector_config_def(), _own_def(), props)
    document = infos.to_json()
    assert list(document) == ["name", "error_count", "groups", "configs"]
    assert document["name"] == FILE_SINK
    assert document["groups"] == ["Common", "Transforms", "Predicates", "Error Handling", "Own"]
    names = [c["definition"]["name"] if c["definition"] else c["value"]["name"] for c in document["configs"]]
    sink_names = list(sink_connector_config_def().names())
    assert names == ["stray", *sink_names, "file"]
    stray = document["configs"][0]
    assert stray == {
        "definition": None,
        "value": {
            "name": "stray",
            "value": None,
            "recommended_values": [],
            "errors": ["Null value can not be supplied as the configuration value."],
            "visible": True,
        },
    }
    tasks_max = document["configs"][names.index("tasks.max")]
    assert tasks_max == {
        "definition": {
            "name": "tasks.max",
            "type": "INT",
            "required": False,
            "default_value": "2",
            "importance": "LOW",
            "documentation": "Overridden.",
            "group": "Own",
            "width": "NONE",
            "display_name": "tasks.max",
            "dependents": [],
            "order": 7,
        },
        "value": {
            "name": "tasks.max",
            "value": "0",
            "recommended_values": [],
            "errors": ["Invalid value 0 for configuration tasks.max: Value must be at least 1"],
            "visible": True,
        },
    }
    assert list(tasks_max["definition"]) == [
        "name", "type", "required", "default_value", "importance", "documentation", "group", "width",
        "display_name", "dependents", "order",
    ]  # fmt: skip
    transforms = document["configs"][names.index("transforms")]
    assert (transforms["definition"]["default_value"], transforms["value"]["value"]) == ("", "")
    file_config = document["configs"][-1]
    assert file_config["definition"]["group"] is None
    assert (file_config["definition"]["order"], file_config["definition"]["width"]) == (-1, "NONE")
    assert file_config["definition"]["default_value"] is None
    assert file_config["definition"]["required"] is False
    assert document["error_count"] == 2


def test_config_infos_name_falls_back_to_the_plugin_class() -> None:
    infos = build_config_infos("c", FILE_SINK, connector_config_def(), ConfigDef(), {"name": "c"}, sink=False)
    assert infos.name == FILE_SINK
    assert infos.error_count == 1
    assert invalid_config_message(infos, "FileStreamSink") == (
        "Connector configuration is invalid and contains the following 1 error(s):\n"
        'Missing required configuration "connector.class" which has no default value.\n'
        "You can also find the above list of errors at the endpoint "
        "`/connector-plugins/FileStreamSink/config/validate`"
    )


def test_connector_validate_values_replace_the_defaults() -> None:
    def validate(props: Mapping[str, str]) -> Mapping[str, ConfigValue]:
        return {
            "file": ConfigValue("file", props.get("file"), errors=["File must be absolute."]),
            "extra": ConfigValue("extra", "x", recommended_values=["x", "y"]),
        }

    props = {**BASE, "topics": "t", "file": "rel"}
    infos = build_config_infos("c", FILE_SINK, sink_connector_config_def(), _own_def(), props, validate)
    assert infos.configs[0].definition is None
    assert infos.configs[0].value is not None
    assert (infos.configs[0].value.name, infos.configs[0].value.recommended_values) == ("extra", ("x", "y"))
    assert infos.error_messages() == ["File must be absolute."]
    assert invalid_config_message(infos, "{connectorType}") == (
        "Connector configuration is invalid and contains the following 1 error(s):\n"
        "File must be absolute.\n"
        "You can also find the above list of errors at the endpoint "
        "`/connector-plugins/{connectorType}/config/validate`"
    )


def test_valid_config_has_no_message() -> None:
    infos = build_config_infos(
        "c", FILE_SINK, sink_connector_config_def(), _own_def(), {**BASE, "topics": "t"}
    )
    assert infos.error_count == 0
    assert invalid_config_message(infos, "FileStreamSink") is None


def test_generate_result_lists_keys_without_values() -> None:
    infos = generate_result("C", _own_def().config_keys, [], ["Own"])
    assert infos == ConfigInfos("C", 0, ("Own",), infos.configs)
    assert [(c.definition is not None, c.value) for c in infos.configs] == [(True, None), (True, None)]
    assert infos.to_json()["configs"][0]["value"] is None


def test_connector_plugin_config_lists_plugin_keys_first() -> None:
    infos = connector_plugin_config(_own_def(), sink_connector_config_def())
    names = [info.name for info in infos]
    assert names[:2] == ["file", "tasks.max"]
    assert names.count("tasks.max") == 1
    assert infos[1].default_value == "2"
    assert len(names) == len(sink_connector_config_def().names()) + 1
