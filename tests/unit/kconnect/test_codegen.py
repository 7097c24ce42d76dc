"""build_function: generated code runs with its namespace, and tracebacks show its lines."""

from __future__ import annotations

import traceback

import pytest
from kconnect.codegen import build_function

SOURCE = "def ratio(a, b):\n    total = a + b\n    return scale * a / (b - offset)\n"


def test_the_function_sees_its_namespace_and_not_the_callers_changes() -> None:
    namespace = {"scale": 10, "offset": 0}
    ratio = build_function(SOURCE, "ratio", namespace, what="ratio of two numbers")
    namespace["scale"] = 0
    assert ratio(3, 2) == 15
    assert "ratio" not in namespace


def test_a_traceback_shows_the_generated_line_and_what_it_was_generated_for() -> None:
    ratio = build_function(SOURCE, "ratio", {"scale": 1, "offset": 2}, what="ratio for Schema{Order:STRUCT}")
    try:
        ratio(1, 2)
    except ZeroDivisionError:
        shown = traceback.format_exc()
    else:
        pytest.fail("ratio(1, 2) divided by zero without an error")
    assert 'File "<kconnect generated: ratio for Schema{Order:STRUCT}' in shown
    assert "line 3, in ratio\n    return scale * a / (b - offset)\n" in shown


def test_two_functions_generated_for_the_same_thing_keep_their_own_lines() -> None:
    first = build_function("def f():\n    raise KeyError('first')\n", "f", {}, what="twin")
    second = build_function("def f():\n    x = 1\n    raise KeyError('second')\n", "f", {}, what="twin")
    assert first.__code__.co_filename != second.__code__.co_filename
    for function, line in ((first, "raise KeyError('first')"), (second, "raise KeyError('second')")):
        try:
            function()
        except KeyError:
            assert line in traceback.format_exc()
        else:
            pytest.fail("the generated function raised nothing")


def test_a_long_description_is_shortened_in_the_file_name() -> None:
    made = build_function("def f():\n    return 1\n", "f", {}, what="x" * 500)
    assert len(made.__code__.co_filename) < 160
    assert "x" * 200 not in made.__code__.co_filename
    assert "xxx...>" in made.__code__.co_filename or "xxx... #" in made.__code__.co_filename
