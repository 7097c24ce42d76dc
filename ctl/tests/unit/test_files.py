"""Connector and offsets files: Kafka's shapes accepted, every error naming the file and line or key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from kconnect_ctl.errors import BadInput
from kconnect_ctl.files import ConnectorFile, read_connector_file, read_offsets_file


def write(tmp_path: Path, file: str, text: str) -> Path:
    path = tmp_path / file
    path.write_text(text, encoding="utf-8")
    return path


def test_properties_as_connect_standalone_reads_them(tmp_path: Path) -> None:
    text = (
        "# a comment\nname = src\nconnector.class=FileStreamSource\nfile: /tmp/a\\\n  b\ntopic t\nx=\\u00e9\n"
    )
    assert read_connector_file(write(tmp_path, "c.properties", text)) == ConnectorFile(
        "src",
        {"name": "src", "connector.class": "FileStreamSource", "file": "/tmp/ab", "topic": "t", "x": "é"},
    )


@pytest.mark.parametrize(
    "body",
    [
        {"name": "j", "config": {"connector.class": "X", "tasks.max": 2, "errors.log.enable": True}},
        {"name": "j", "connector.class": "X", "tasks.max": "2", "errors.log.enable": "true"},
        {"config": {"name": "j", "connector.class": "X", "tasks.max": "2", "errors.log.enable": "true"}},
    ],
    ids=["post-body", "config-map", "name-in-config"],
)
def test_json_in_both_of_kafkas_shapes_numbers_and_booleans_as_strings(tmp_path: Path, body: object) -> None:
    got = read_connector_file(write(tmp_path, "c.json", json.dumps(body)))
    assert got == ConnectorFile(
        "j", {"name": "j", "connector.class": "X", "tasks.max": "2", "errors.log.enable": "true"}
    )


def test_the_name_option_beats_the_files_name(tmp_path: Path) -> None:
    got = read_connector_file(write(tmp_path, "c.properties", "name=a\nk=v\n"), name="b")
    assert got == ConnectorFile("b", {"name": "b", "k": "v"})


def test_a_file_without_a_suffix_is_json_when_it_starts_with_a_brace(tmp_path: Path) -> None:
    assert read_connector_file(write(tmp_path, "c", ' {"name": "a"}')).name == "a"
    assert read_connector_file(write(tmp_path, "d", "name=b\n")).name == "b"


@pytest.mark.parametrize(
    ("file", "text", "error"),
    [
        ("c.json", '{\n  "name": "a",\n  "k" 1\n}', "line 3: Expecting ':' delimiter"),
        ("c.json", "[1]", "expected a JSON object: the config, or {'name': ..., 'config': {...}}"),
        ("c.json", '{"name": "a", "k": null}', "key 'k': a config value must be a string, not null"),
        ("c.json", '{"name": "a", "k": {"x": 1}}', "key 'k': a config value must be a string, not object"),
        ("c.json", '{"name": "a", "config": {}, "extra": 1}', "unknown field 'extra' beside 'config'"),
        ("c.json", '{"k": "v"}', "no connector name: set 'name' in the file or give --name"),
        ("c.properties", "k=v\n", "no connector name: set 'name' in the file or give --name"),
        ("c.properties", "name=a\n# c\n\n=orphan\n", "line 4: a value without a key: '=orphan'"),
        ("c.properties", "name=a\nb=\\\n  c\nbad=\\uZZZZ\n", "line 4: Invalid \\u escape sequence: \\uZZZZ"),
    ],
)
def test_bad_connector_files_name_the_file_and_line_or_key(
    tmp_path: Path, file: str, text: str, error: str
) -> None:
    path = write(tmp_path, file, text)
    with pytest.raises(BadInput) as raised:
        read_connector_file(path)
    assert str(raised.value) == f"{path}: {error}"
    assert raised.value.exit_code == 2


def test_a_missing_or_binary_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(BadInput, match=r"nope\.json: no such file or directory$"):
        read_connector_file(tmp_path / "nope.json")
    binary = tmp_path / "b.properties"
    binary.write_bytes(b"\xff\xfe")
    with pytest.raises(BadInput, match=r"b\.properties: not UTF-8 text$"):
        read_connector_file(binary)


def test_offsets_files_take_what_get_offsets_prints(tmp_path: Path) -> None:
    body = {
        "offsets": [
            {"partition": {"filename": "f"}, "offset": {"position": 3}},
            {"partition": {}, "offset": None},
        ]
    }
    assert read_offsets_file(write(tmp_path, "o.json", json.dumps(body))) == body


@pytest.mark.parametrize(
    ("body", "error"),
    [
        ([], 'expected {"offsets": [{"partition": ..., "offset": ...}, ...]}'),
        ({"offsets": [{"offset": {}}]}, "offsets[0]: expected an object with a 'partition' object"),
        ({"offsets": [{"partition": {}, "offset": 3}]}, "offsets[0]: 'offset' must be an object or null"),
        ({"offsets": [{"partition": {}}]}, "offsets[0]: 'offset' must be an object or null"),
    ],
)
def test_bad_offsets_files_say_what_is_expected(tmp_path: Path, body: object, error: str) -> None:
    path = write(tmp_path, "o.json", json.dumps(body))
    with pytest.raises(BadInput) as raised:
        read_offsets_file(path)
    assert str(raised.value) == f"{path}: {error}"
