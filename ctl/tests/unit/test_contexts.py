"""The context file: read, written (owner-only), and which context a command talks to."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest
from kconnect_ctl import contexts
from kconnect_ctl.config_commands import get_contexts, set_context, use_context
from kconnect_ctl.contexts import DEFAULT_CLUSTER, Context, ContextFile, config_path, load, resolve, save
from kconnect_ctl.errors import BadInput

SECURE = Context(
    cluster="https://c:8443",
    username="u",
    password="p",
    ca_cert="/ca.pem",
    client_cert="/me.pem",
    client_key="/me.key",
    insecure=True,
)


def test_the_path_is_the_env_variable_else_the_home_file() -> None:
    assert config_path({"KCONNECTCTL_CONFIG": "/x/y.yaml"}) == Path("/x/y.yaml")
    assert config_path({}) == Path("~/.kconnectctl.yaml").expanduser()


def test_a_file_written_reads_back_and_only_its_owner_can_read_it(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "ctl.yaml"
    file = ContextFile({"a": Context("http://a:8083"), "s": SECURE}, current="s")
    save(path, file)
    assert load(path) == file
    assert path.stat().st_mode & 0o777 == 0o600
    assert "insecure" not in path.read_text().split("contexts:")[1].split("s:")[0]  # unset keys not written


def test_a_missing_or_empty_file_has_no_contexts(tmp_path: Path) -> None:
    assert load(tmp_path / "none.yaml") == ContextFile()
    (tmp_path / "empty.yaml").write_text("")
    assert load(tmp_path / "empty.yaml") == ContextFile()


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("contexts: [1", "line 1: "),
        ("- a\n", "expected 'current-context' and a mapping 'contexts'"),
        ("contexts:\n  a: 3\n", "context 'a': expected a mapping of cluster, username"),
        ("contexts:\n  a:\n    user: x\n", "context 'a': unknown key 'user'"),
        ("contexts:\n  a:\n    username: x\n", "context 'a': 'cluster' must be the cluster's URL"),
        (
            "contexts:\n  a:\n    cluster: http://a\n    insecure: 'yes'\n",
            "context 'a': 'insecure' must be a boolean",
        ),
    ],
)
def test_a_bad_file_is_named_with_what_is_wrong(tmp_path: Path, text: str, error: str) -> None:
    path = tmp_path / "ctl.yaml"
    path.write_text(text)
    with pytest.raises(BadInput) as raised:
        load(path)
    assert str(raised.value).startswith(f"{path}: {error}")


def test_resolve_picks_the_named_then_the_current_context_and_cluster_beats_the_url() -> None:
    file = ContextFile({"a": Context("http://a:8083"), "s": SECURE}, current="s")
    where = Path("f.yaml")
    assert resolve(file, None, None, where) == SECURE
    assert resolve(file, "a", None, where) == Context("http://a:8083")
    # With a named context, --cluster changes only the URL; alone, it takes nothing of the current one.
    assert resolve(file, "s", "https://other", where) == Context(
        **{**SECURE.__dict__, "cluster": "https://other"}
    )
    assert resolve(file, None, "http://other", where) == Context("http://other")
    assert resolve(ContextFile(), None, None, where) == Context(DEFAULT_CLUSTER)
    with pytest.raises(BadInput, match=re.escape("f.yaml: no context named 'b'")):
        resolve(file, "b", None, where)
    with pytest.raises(BadInput, match=re.escape("f.yaml: the current context 'gone' is not defined")):
        resolve(ContextFile(current="gone"), None, None, where)


def args(**values: object) -> argparse.Namespace:
    base: dict[str, object] = dict.fromkeys(["username", "password", "ca_cert", "client_cert", "client_key"])
    return argparse.Namespace(**{**base, "insecure": False, **values})


def test_set_context_creates_then_changes_only_what_is_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "ctl.yaml"
    set_context(path, args(context_name="a", cluster="http://a:8083", username="u", password="p"))
    set_context(path, args(context_name="b", cluster="http://b:8083"))
    set_context(path, args(context_name="a", password="q", ca_cert="ca.pem"))
    assert (
        capsys.readouterr().out
        == "context a created (current)\ncontext b created\ncontext a updated (current)\n"
    )
    a = load(path).contexts["a"]
    assert (a.cluster, a.username, a.password, a.ca_cert) == (
        "http://a:8083",
        "u",
        "q",
        str(Path("ca.pem").resolve()),
    )
    use_context(path, argparse.Namespace(context_name="b"))
    assert load(path).current == "b"
    assert capsys.readouterr().out == "current context: b\n"

    get_contexts(path, argparse.Namespace(output="table"))
    assert capsys.readouterr().out.splitlines()[1:] == [
        "         a     http://a:8083  basic (u)",
        "*        b     http://b:8083  -",
    ]
    get_contexts(path, argparse.Namespace(output="yaml"))
    assert "password" not in capsys.readouterr().out


@pytest.mark.parametrize(
    ("values", "error"),
    [
        ({"context_name": "n"}, "context 'n' is new: give its --cluster URL"),
        (
            {"context_name": "n", "cluster": "a:8083"},
            "--cluster 'a:8083': expected an http:// or https:// URL",
        ),
        (
            {"context_name": "n", "cluster": "http://a", "client_cert": "c.pem"},
            "--client-cert and --client-key go together",
        ),
    ],
)
def test_set_context_refuses_what_cannot_work(tmp_path: Path, values: dict[str, object], error: str) -> None:
    with pytest.raises(BadInput, match=re.escape(error)):
        set_context(tmp_path / "ctl.yaml", args(**values))
    assert not (tmp_path / "ctl.yaml").exists()


def test_use_context_needs_a_defined_context(tmp_path: Path) -> None:
    contexts.save(tmp_path / "ctl.yaml", ContextFile({"a": Context("http://a")}))
    with pytest.raises(BadInput, match="no context named 'b'"):
        use_context(tmp_path / "ctl.yaml", argparse.Namespace(context_name="b"))
