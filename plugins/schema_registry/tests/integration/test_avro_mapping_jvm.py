"""kconnect's Avro mapping beside a JVM one: Apicurio's ``AvroData`` (a fork of Confluent's) on Avro 1.12.

Confluent's own jars are not on Maven Central; Apicurio's converter is, and its
``io.apicurio.registry.utils.converter.avro.AvroData`` is a fork of Confluent's ``AvroData``. A small
Java program (compiled here against Kafka 4.3.1's jars and Apicurio's converter, fetched once into
the cache) maps each Connect schema of the unit tests' table, handed over as JsonConverter's schema
JSON, to Avro with ``fromConnectSchema(...).toString()``, and each Avro text back with
``toConnectSchema`` (printed as JsonConverter's schema JSON). kconnect must give the same text and
the same Connect schema for each.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from kconnect.data.schema import Schema
from kconnect_converters.json_converter import JsonConverter
from kconnect_converters.json_schema_codec import schema_to_json
from kconnect_schema_registry.avro.config import AvroDataSettings
from kconnect_schema_registry.avro.mapping import AvroMapping
from kconnect_schema_registry.avro.schema import parse
from kconnect_testkit.jars import fetch_jars

from plugins.schema_registry.tests.unit.test_avro_mapping import CASES, COLOR, EVERYTHING
from tests.java_converters import fetch_apicurio_converter

pytestmark = pytest.mark.integration

ORACLE = """
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.util.*;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.kafka.connect.json.JsonConverter;
import io.apicurio.registry.utils.converter.avro.AvroData;
import io.apicurio.registry.utils.converter.avro.AvroDataConfig;

/** Lines in: FROM|TO, tab, AvroDataConfig as JSON, tab, a Connect schema (JSON) or an Avro text. */
public class AvroDataOracle {
  public static void main(String[] args) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    PrintStream out = new PrintStream(System.out, true, "UTF-8");
    ObjectMapper mapper = new ObjectMapper();
    JsonConverter json = new JsonConverter();
    json.configure(Map.of("schemas.enable", "true", "converter.type", "value"));
    String line;
    while ((line = in.readLine()) != null) {
      String[] parts = line.split("\\t", 3);
      try {
        AvroData data = new AvroData(new AvroDataConfig(mapper.readValue(parts[1], Map.class)));
        if (parts[0].equals("FROM")) {
          out.println(data.fromConnectSchema(json.asConnectSchema(mapper.readTree(parts[2]))).toString());
        } else {
          org.apache.avro.Schema avro = new org.apache.avro.Schema.Parser().parse(parts[2]);
          out.println(json.asJsonSchema(data.toConnectSchema(avro)).toString());
        }
      } catch (Exception e) {
        out.println("ERROR " + e.getMessage());
      }
    }
  }
}
"""

#: An Avro schema another producer wrote: docs, Avro defaults, enum, unions, fixed, logical types.
FOREIGN = (
    '{"type":"record","name":"Order","namespace":"shop","doc":"an order","fields":['
    '{"name":"id","type":"long","doc":"the id","default":7},'
    '{"name":"state","type":{"type":"enum","name":"State","symbols":["NEW","DONE"],"default":"NEW"}},'
    '{"name":"either","type":["int","string","null"]},'
    '{"name":"hash","type":{"type":"fixed","name":"Hash","size":2}},'
    '{"name":"when","type":{"type":"long","logicalType":"timestamp-millis"}},'
    '{"name":"price","type":{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}},'
    '{"name":"f","type":"float","default":1.1},{"name":"b","type":"bytes","default":"\\u00ff"},'
    '{"name":"arr","type":{"type":"array","items":"string"},"default":["a"]},'
    '{"name":"m","type":{"type":"map","values":"long"},"default":{"k":5}},'
    '{"name":"u","type":["null","string"],"default":null},{"name":"u2","type":["string","null"],"default":"x"}]}'
)


@pytest.fixture(scope="module")
def oracle(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The java command running the compiled oracle (classpath: the oracle, Apicurio, Kafka)."""
    plugin = fetch_apicurio_converter() / "apicurio-converter"
    jars = [next(plugin.glob("apicurio-registry-utils-converter-*.jar")), next(plugin.glob("avro-*.jar"))]
    classpath = ":".join([*map(str, jars), f"{fetch_jars()}/*"])
    folder: Path = tmp_path_factory.mktemp("avro-oracle")
    (folder / "AvroDataOracle.java").write_text(ORACLE)
    subprocess.run(
        ["javac", "-cp", classpath, "-d", str(folder), str(folder / "AvroDataOracle.java")], check=True
    )
    return ["java", "-cp", f"{folder}:{classpath}", "AvroDataOracle"]


def ask(oracle: list[str], lines: list[str]) -> list[str]:
    """The oracle's answer to each line."""
    done = subprocess.run(
        oracle, input="".join(f"{line}\n" for line in lines), capture_output=True, text=True
    )
    answers = done.stdout.split("\n")[:-1]  # not splitlines(): texts may hold U+2028
    assert len(answers) == len(lines), done.stderr[-2000:]
    return answers


def connect_json(schema: Schema) -> str:
    """`schema` as JsonConverter's schema JSON."""
    converter = JsonConverter()
    converter.configure({"schemas.enable": "true"}, False)
    return schema_to_json(schema, converter._text.render_default)


#: (case, Connect schema, AvroDataConfig keys) for Connect -> Avro. The struct-default case is left
#: out: a Struct default whose schema is not its field's cannot be written as JsonConverter JSON.
FROM_CASES: list[tuple[str, Schema, dict[str, str]]] = [
    *((name, schema, {}) for name, schema, _ in CASES if name != "struct default"),
    ("enhanced enum", COLOR, {"enhanced.avro.schema.support": "true"}),
    ("every type", EVERYTHING, {}),
    ("every type, enhanced", EVERYTHING, {"enhanced.avro.schema.support": "true"}),
    ("every type, connect.meta.data=false", EVERYTHING, {"connect.meta.data": "false"}),
]


def settings(configs: dict[str, str]) -> AvroDataSettings:
    """kconnect's settings for the same keys."""
    return AvroDataSettings(
        enhanced_schema_support=configs.get("enhanced.avro.schema.support") == "true",
        connect_meta_data=configs.get("connect.meta.data") != "false",
    )


def test_connect_to_avro_text_as_the_jvm_maps_it(oracle: list[str]) -> None:
    lines = [f"FROM\t{json.dumps(configs)}\t{connect_json(schema)}" for _, schema, configs in FROM_CASES]
    expected = ask(oracle, lines)
    ours = [
        AvroMapping(settings(configs)).from_connect_schema(schema).text() for _, schema, configs in FROM_CASES
    ]
    different = [
        (case[0], mine, theirs)
        for case, mine, theirs in zip(FROM_CASES, ours, expected, strict=True)
        if mine != theirs
    ]
    assert different == []


def test_avro_text_to_connect_as_the_jvm_maps_it(oracle: list[str]) -> None:
    texts = [text for name, _, text in CASES if name != "struct default"] + [FOREIGN]
    expected = [json.loads(answer) for answer in ask(oracle, [f"TO\t{{}}\t{text}" for text in texts])]
    ours: list[Any] = [
        json.loads(connect_json(AvroMapping().to_connect_schema(parse(text)))) for text in texts
    ]
    different = [
        (text, mine, theirs)
        for text, mine, theirs in zip(texts, ours, expected, strict=True)
        if mine != theirs
    ]
    assert different == []
