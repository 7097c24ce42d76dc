"""Frozen, slotted dataclasses built as fast as plain objects: the records of the data path.

A frozen dataclass's generated ``__init__`` sets each field through ``object.__setattr__`` (a
generic attribute lookup by name per field), which makes building one about twice as slow as
setting the slots directly. The task loops build several such objects per record (the record,
its converted values), so on the data path this is a large share of the CPU per record.

`fast_init` replaces the generated ``__init__`` with one of the same signature (the same
parameters, keyword-only ones included, the same defaults and default factories) that calls the
slots' own setters; `positional_constructor` builds an instance from every field positionally,
for the loops that know them all. Both build objects equal to what the dataclass's own
``__init__`` builds; neither supports ``__post_init__``, ``InitVar`` or ``init=False`` fields, and
`fast_init` refuses a class that has them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar

from kconnect.codegen import build_function

T = TypeVar("T")


class _Factory:
    """The default of a parameter whose field has a default factory (shown as dataclasses show it)."""

    def __repr__(self) -> str:
        return "<factory>"


_FACTORY = _Factory()


def _setters(cls: type, names: list[str]) -> dict[str, Any]:
    """The slot setter of each field, keyed ``set_<name>`` (the slots of base classes included)."""
    return {f"set_{name}": getattr(cls, name).__set__ for name in names}


def fast_init(cls: type[T]) -> type[T]:
    """Class decorator: give the frozen, slotted dataclass `cls` an ``__init__`` setting its slots directly.

    Apply it above ``@dataclass(frozen=True, slots=True)``. Subclasses need it again (a dataclass
    subclass generates its own ``__init__``).
    """
    if hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__qualname__} has __post_init__, which fast_init does not call")
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    if not all(f.init for f in fields):
        raise TypeError(f"{cls.__qualname__} has init=False fields, which fast_init does not set")
    namespace: dict[str, Any] = {"FACTORY": _FACTORY, **_setters(cls, [f.name for f in fields])}
    positional: list[str] = []
    keyword: list[str] = []
    body: list[str] = []
    for f in fields:
        if f.default is not dataclasses.MISSING:
            namespace[f"default_{f.name}"] = f.default
            parameter = f"{f.name}=default_{f.name}"
        elif f.default_factory is not dataclasses.MISSING:
            namespace[f"factory_{f.name}"] = f.default_factory
            parameter = f"{f.name}=FACTORY"
            body.append(f"    if {f.name} is FACTORY:\n        {f.name} = factory_{f.name}()\n")
        else:
            parameter = f.name
        (keyword if f.kw_only else positional).append(parameter)
        body.append(f"    set_{f.name}(self, {f.name})\n")
    parameters = ["self", *positional, *(["*", *keyword] if keyword else [])]
    source = f"def __init__({', '.join(parameters)}):\n{''.join(body) or '    pass'}\n"
    # As dataclasses builds __init__: one straight-line function per class.
    init = build_function(source, "__init__", namespace, what=f"__init__ of {cls.__qualname__}")
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__doc__ = cls.__init__.__doc__
    cls.__init__ = init  # type: ignore[method-assign]
    return cls


def positional_constructor(cls: type[T]) -> Callable[..., T]:
    """A constructor of the frozen, slotted dataclass `cls` taking every field positionally, in order.

    It builds the same object as ``cls(**fields)`` (no defaults, no ``__post_init__``) without
    going through ``__init__`` at all. The task loops build one record per message and use it
    there; connectors use the classes themselves.
    """
    names = [f.name for f in dataclasses.fields(cls)]  # type: ignore[arg-type]
    namespace: dict[str, Any] = {"new": object.__new__, "cls": cls, **_setters(cls, names)}
    body = "".join(f"    set_{name}(record, {name})\n" for name in names)
    source = f"def construct({', '.join(names)}):\n    record = new(cls)\n{body}    return record\n"
    constructor: Callable[..., T] = build_function(
        source, "construct", namespace, what=f"positional constructor of {cls.__qualname__}"
    )
    return constructor
