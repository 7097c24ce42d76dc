"""The config diff apply and patch print, and the table and dump renderers."""

from __future__ import annotations

import json

import yaml
from kconnect_ctl.diff import ConfigDiff, diff_configs
from kconnect_ctl.render import dump, key_values, state_counts, table
from kconnect_ctl.writes import restarting


def test_a_diff_lists_added_changed_and_removed_keys_in_key_order() -> None:
    diff = diff_configs({"a": "1", "b": "2", "c": "3"}, {"b": "2", "c": "30", "d": "4"})
    assert diff == ConfigDiff(added={"d": "4"}, changed={"c": ("3", "30")}, removed={"a": "1"})
    assert not diff.unchanged
    assert diff.lines() == ["- a=1", "~ c: 3 -> 30", "+ d=4"]


def test_equal_configs_are_unchanged_whatever_their_order() -> None:
    diff = diff_configs({"a": "1", "b": "2"}, {"b": "2", "a": "1"})
    assert diff.unchanged and diff.lines() == []


def test_a_value_set_to_empty_is_a_change_not_a_removal() -> None:
    assert diff_configs({"a": "1"}, {"a": ""}).lines() == ["~ a: 1 -> "]


def test_tables_align_columns_and_do_not_pad_the_last() -> None:
    assert table(["NAME", "STATE"], [["a-long-name", "RUNNING"], ["b", "FAILED"]]) == (
        "NAME         STATE\na-long-name  RUNNING\nb            FAILED"
    )
    assert table(["NAME", "TASKS"], []) == "NAME  TASKS"
    assert key_values([("Name:", "x"), ("Worker ID:", "w")]) == "Name:       x\nWorker ID:  w"


def test_task_states_are_counted_most_frequent_first() -> None:
    assert state_counts(["RUNNING", "FAILED", "RUNNING"]) == "2 RUNNING, 1 FAILED"
    assert state_counts([]) == "-"


def test_json_and_yaml_keep_the_servers_order_and_unicode() -> None:
    data = {"z": 1, "a": ["é", None]}
    assert dump(data, "json") == json.dumps(data, indent=2, ensure_ascii=False)
    assert list(yaml.safe_load(dump(data, "yaml"))) == ["z", "a"]
    assert "é" in dump(data, "yaml")


def test_a_restart_answer_says_what_restarts() -> None:
    status = {
        "connector": {"state": "RESTARTING"},
        "tasks": [
            {"id": 0, "state": "RUNNING"},
            {"id": 1, "state": "RESTARTING"},
            {"id": 2, "state": "RESTARTING"},
        ],
    }
    assert restarting(status) == "restarting the connector and tasks 1, 2"
    assert restarting({"connector": {"state": "RUNNING"}, "tasks": [{"id": 0, "state": "RESTARTING"}]}) == (
        "restarting task 0"
    )
    assert restarting({"connector": {"state": "RUNNING"}, "tasks": []}) == "nothing to restart"
