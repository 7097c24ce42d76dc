from pathlib import Path

import pytest
from kconnect_rest.cli import main
from kconnect_rest.scaffold import ScaffoldError, new_plugin, placeholders


@pytest.mark.parametrize(
    ("name", "kind", "expected"),
    [
        (
            "acme-counter",
            "source",
            {
                "distribution": "acme-counter",
                "package": "acme_counter",
                "alias": "AcmeCounterSource",
                "connector": "AcmeCounterSourceConnector",
                "task": "AcmeCounterSourceTask",
                "module": "source",
            },
        ),
        (
            "lines_out2",
            "sink",
            {
                "distribution": "lines-out2",
                "package": "lines_out2",
                "alias": "LinesOut2Sink",
                "connector": "LinesOut2SinkConnector",
                "task": "LinesOut2SinkTask",
                "module": "sink",
            },
        ),
        ("Db", "sink", {"distribution": "db", "package": "db", "alias": "DbSink"}),
    ],
)
def test_names_follow_from_the_plugin_name(name: str, kind: str, expected: dict[str, str]) -> None:
    values = placeholders(name, kind)
    assert {key: values[key] for key in expected} == expected


@pytest.mark.parametrize(
    ("name", "kind", "message"),
    [
        ("bad name", "source", "Invalid plugin name 'bad name'"),
        ("1st", "source", "Invalid plugin name '1st'"),
        ("trailing-", "source", "Invalid plugin name 'trailing-'"),
        ("ok", "transform", "Unknown plugin kind 'transform': use one of source, sink"),
    ],
)
def test_bad_names_and_kinds_are_refused(name: str, kind: str, message: str) -> None:
    with pytest.raises(ScaffoldError, match=message):
        placeholders(name, kind)


def test_the_project_has_the_entry_point_the_connector_and_a_test(tmp_path: Path) -> None:
    project = new_plugin("acme-counter", "source", tmp_path)

    assert project == tmp_path / "acme-counter"
    files = sorted(str(p.relative_to(project)) for p in project.rglob("*") if p.is_file())
    assert files == [
        "README.md",
        "pyproject.toml",
        "src/acme_counter/__init__.py",
        "src/acme_counter/plugin.py",
        "src/acme_counter/source.py",
        "src/acme_counter/version.py",
        "tests/test_source.py",
    ]
    pyproject = (project / "pyproject.toml").read_text(encoding="utf-8")
    assert '[project.entry-points.kconnect]\nacme_counter = "acme_counter.plugin"' in pyproject
    assert "class AcmeCounterSourceConnector(SourceConnector):" in (
        project / "src/acme_counter/source.py"
    ).read_text(encoding="utf-8")


def test_an_existing_project_is_never_overwritten(tmp_path: Path) -> None:
    (tmp_path / "acme" / "src").mkdir(parents=True)

    with pytest.raises(ScaffoldError, match="already exists and is not empty"):
        new_plugin("acme", "sink", tmp_path)
    assert list((tmp_path / "acme").iterdir()) == [tmp_path / "acme" / "src"]


def test_the_command_prints_the_project_or_one_line_naming_the_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["plugin", "new", "acme-lines", "--kind", "sink", "--dir", str(tmp_path)]) == 0
    assert capsys.readouterr().out == f"{tmp_path / 'acme-lines'}\n"
    assert (tmp_path / "acme-lines" / "src" / "acme_lines" / "sink.py").is_file()

    assert main(["plugin", "new", "acme lines", "--dir", str(tmp_path)]) == 2
    error = capsys.readouterr().err
    assert error.startswith("kconnect plugin: Invalid plugin name 'acme lines'")
    assert error.count("\n") == 1
