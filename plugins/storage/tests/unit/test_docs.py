"""docs/storage.md documents every key of the three storage connectors."""

from __future__ import annotations

from pathlib import Path

import pytest
from kconnect_storage.connectors import storage_config_def

DOC = Path(__file__).resolve().parents[4] / "docs" / "storage.md"


@pytest.mark.parametrize("kind", ["hdfs", "s3", "storage"])
def test_every_key_of_each_connector_is_in_the_keys_tables(kind: str) -> None:
    text = DOC.read_text()
    missing = [name for name in storage_config_def(kind).names() if f"| `{name}` |" not in text]
    assert missing == []
