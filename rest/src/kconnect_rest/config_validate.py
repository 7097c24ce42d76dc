"""``kconnect validate [--worker WORKER.properties] [-o text|json] FILE...``: connector configs checked
before deploy, with the validate endpoint's answers, without a worker or a broker.

The logic is the kernel's (`kconnect.herder.offline_validation`); this module reads the files,
prints and picks the exit status: 0 when every file is valid, 1 when any has an error, 2 when an
input cannot be read (one line on stderr naming the file). Text output is one line per error,
``FILE: KEY: message``, then a summary; ``-o json`` prints, for each file in turn on its own line,
the JSON body the endpoint answers with (Kafka's ConfigInfos, or its ``{"error_code", "message"}``).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import TextIO

from kconnect.herder.offline_validation import (
    FileValidation,
    offline_validator,
    validate_file,
    validation_worker,
)
from kconnect.plugin_host import PluginHost
from kconnect.worker_config import load_properties

from kconnect_rest.errors import status_of

EXIT_VALID = 0
EXIT_INVALID = 1


async def _validate_all(
    files: Sequence[str], worker_file: str | None, host: PluginHost
) -> list[FileValidation]:
    validator = offline_validator(validation_worker(worker_file, host), host)
    configs = [(path, load_properties(path)) for path in files]  # every file read before any is validated
    return [await validate_file(validator, path, config) for path, config in configs]


def _json_body(result: FileValidation) -> dict[str, object]:
    if result.error is not None:
        return {"error_code": status_of(result.error), "message": str(result.error)}
    assert result.infos is not None
    return result.infos.to_json()


def _summary(results: Sequence[FileValidation]) -> str:
    invalid = [result for result in results if not result.valid]
    errors = sum(len(result.errors) for result in invalid)
    files = f"{len(results)} file{'s' if len(results) != 1 else ''}"
    if not invalid:
        return f"{files} valid"
    return (
        f"{files}: {len(results) - len(invalid)} valid, {len(invalid)} invalid "
        f"({errors} error{'s' if errors != 1 else ''})"
    )


def run_validate(files: Sequence[str], worker_file: str | None, output: str, out: TextIO) -> int:
    """Validate `files`, print to `out`, return the exit status; ConfigFileError (a file that cannot
    be read, a bad worker file) propagates for the command to print as one line and exit 2."""
    results = asyncio.run(_validate_all(files, worker_file, PluginHost.load()))
    for result in results:
        if output == "json":
            print(json.dumps(_json_body(result)), file=out)
        else:
            for key, message in result.errors:
                print(f"{result.path}: {key}: {message}", file=out)
    if output != "json":
        print(_summary(results), file=out)
    return EXIT_VALID if all(result.valid for result in results) else EXIT_INVALID
