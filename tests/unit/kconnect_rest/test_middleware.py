"""`escape_path`: routing sees one segment per name, whatever the name holds."""

from __future__ import annotations

from typing import Any, cast

import pytest
from kconnect_rest.middleware import escape_path
from litestar.types import Scope


@pytest.mark.parametrize(
    ("raw_path", "root_path", "path"),
    [
        (b"/connectors/local-file-source/status", "", "/connectors/local-file-source/status"),
        (b"/connectors/a%2Fb/status", "", "/connectors/a%2Fb/status"),
        (b"/connectors/a%2fb", "", "/connectors/a%2Fb"),
        (b"/connectors/50%25", "", "/connectors/50%25"),
        (b"/connectors/caf%C3%A9", "", "/connectors/café"),
        (b"/connectors/with%20space", "", "/connectors/with space"),
        (b"/connectors?expand=status", "", "/connectors"),
        (b"/kc/connectors/a%2Fb", "/kc", "/connectors/a%2Fb"),
        (b"/kc/connectors", "/kc", "/connectors"),
    ],
)
def test_escape_path(raw_path: bytes, root_path: str, path: str) -> None:
    scope: dict[str, Any] = {"raw_path": raw_path, "root_path": root_path, "path": "unchanged"}
    escape_path(cast("Scope", scope))
    assert scope["path"] == path


def test_a_request_without_raw_path_keeps_its_path() -> None:
    scope: dict[str, Any] = {"path": "/connectors/a"}
    escape_path(cast("Scope", scope))
    assert scope["path"] == "/connectors/a"
