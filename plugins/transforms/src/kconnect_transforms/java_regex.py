"""Java regular expressions and replacement strings on Python's ``re``.

Kafka compiles ``regex`` and ``pattern`` keys with ``java.util.regex``. The common syntax is the
same in Python; named groups are spelled ``(?<name>...)`` in Java, which this module rewrites to
Python's ``(?P<name>...)``. Java replacement strings use ``$1`` / ``${name}`` and ``\\`` escapes.
"""

from __future__ import annotations

import re

_NAMED_GROUP = re.compile(r"(?<!\\)\(\?<(?=[A-Za-z])")


def compile_java(pattern: str) -> re.Pattern[str]:
    """`pattern` compiled as Python ``re``; raises ``re.error`` when it does not compile."""
    return re.compile(_NAMED_GROUP.sub("(?P<", pattern))


def expand_replacement(match: re.Match[str], replacement: str) -> str:
    """The text Java's ``Matcher.appendReplacement`` writes for `replacement` at `match`.

    ``$n`` takes as many digits as still name an existing group, ``${name}`` a named group, and a
    backslash makes the next character literal. Raises IndexError (Java's IndexOutOfBoundsException)
    for a group number the pattern lacks, ValueError (IllegalArgumentException) for other mistakes.
    """
    out: list[str] = []
    index = 0
    groups = match.re.groups
    while index < len(replacement):
        char = replacement[index]
        if char == "\\":
            index += 1
            if index >= len(replacement):
                raise ValueError("character to be escaped is missing")
            out.append(replacement[index])
            index += 1
        elif char == "$":
            index += 1
            if index >= len(replacement):
                raise ValueError("Illegal group reference: group index is missing")
            if replacement[index] == "{":
                end = replacement.find("}", index)
                if end < 0:
                    raise ValueError("named capturing group is missing trailing '}'")
                name = replacement[index + 1 : end]
                if name not in match.re.groupindex:
                    raise ValueError(f"No group with name {{{name}}}")
                out.append(match.group(name) or "")
                index = end + 1
            else:
                if not replacement[index].isdigit():
                    raise ValueError("Illegal group reference")
                number = int(replacement[index])
                index += 1
                while index < len(replacement) and replacement[index].isdigit():
                    longer = number * 10 + int(replacement[index])
                    if longer > groups:
                        break
                    number = longer
                    index += 1
                if number > groups:
                    raise IndexError(f"No group {number}")
                out.append(match.group(number) or "")
        else:
            out.append(char)
            index += 1
    return "".join(out)
