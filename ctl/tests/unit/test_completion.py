"""The completion script, run by a real bash: verbs, resources, options and option values."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from kconnect_ctl.cli import main
from kconnect_ctl.completion import bash_script, completion
from kconnect_ctl.parser import build_parser

BASH = shutil.which("bash")


def complete(line: str) -> list[str]:
    """What bash offers after `line` (the last word is the one being completed)."""
    assert BASH is not None, "bash is needed"
    words = line.split(" ")
    script = bash_script(build_parser(completion))
    driver = (
        f"{script}\nCOMP_WORDS=({' '.join(repr(w) for w in words)}); COMP_CWORD={len(words) - 1}\n"
        '_kconnectctl; printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    done = subprocess.run([BASH, "-c", driver], capture_output=True, text=True, check=True, cwd="/")
    return done.stdout.split()


def test_verbs_then_resources_then_options() -> None:
    assert complete("kconnectctl ")[:3] == ["get", "describe", "apply"]
    assert complete("kconnectctl re") == ["resume", "restart"]
    assert complete("kconnectctl get ") == ["connectors", "connector", "plugins", "plugin", "offsets"]
    assert complete("kconnectctl --cluster http://x:1 restart t") == ["task", "tasks"]
    assert "--only-failed" in complete("kconnectctl restart connector --")
    assert complete("kconnectctl get connectors -o y") == ["yaml"]
    assert complete("kconnectctl completion ") == ["bash", "zsh"]
    assert complete("kconnectctl apply -f /et") == ["/etc"]


def test_connector_names_come_from_the_cluster_quietly() -> None:
    # No kconnectctl on bash's PATH here and nothing listening: no names, no noise.
    assert complete("kconnectctl describe connector ") == []


def test_the_command_prints_each_script(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["completion", "bash"]) == 0
    assert capsys.readouterr().out.rstrip().endswith("complete -F _kconnectctl kconnectctl")
    assert main(["completion", "zsh"]) == 0
    assert "bashcompinit" in capsys.readouterr().out
