"""Shapes of JSON values, and the first way a value does not fit one, as one line.

A reader of a file from elsewhere states what it relies on (`Fields({"median_ms": Number()})`)
and gets back the first misfit with its path: `arms[0].results[3].median_ms is a string,
expected a number`. Keys a shape does not name are allowed. A check follows the shape's own
nesting, never the value's, so no value can make it recurse deeply. Qt-free, no imports.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

MAX_INT = 2**53  # beyond this an integer cannot be a float exactly (and plots need floats)
MAX_NUMBER = 1e300  # converts to a float, and sums of a few stay finite

Problem = str | None
Check = Callable[[dict[str, Any], str], Problem]  # what shapes alone cannot say (Fields.also)


def kind_of(value: Any) -> str:
    """How a value is named in a problem: "a string", "null", "an object"..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


class Shape:
    """A value's expected shape; `problem` says what is wrong with a value, or None."""

    expected = "a value"
    null = True

    def problem(self, value: Any, path: str) -> Problem:
        if value is None:
            return None if self.null else self._wrong(value, path)
        return self._check(value, path)

    def _check(self, value: Any, path: str) -> Problem:
        return None

    def _wrong(self, value: Any, path: str) -> str:
        return f"{path or 'the file'} is {kind_of(value)}, expected {self.expected}"


@dataclass(frozen=True)
class Anything(Shape):
    pass


@dataclass(frozen=True)
class Number(Shape):
    null: bool = True
    expected = "a number"

    def _check(self, value: Any, path: str) -> Problem:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return self._wrong(value, path)
        if isinstance(value, float) and not math.isfinite(value):
            return f"{path} is not a finite number"
        return None if -MAX_NUMBER <= value <= MAX_NUMBER else f"{path} is out of range"

    def all_fine(self, values: list[Any]) -> bool:
        """A fast pass over a long list (samples hold millions of step times)."""
        null = self.null
        return all(
            ((type(v) is float or type(v) is int) and -MAX_NUMBER <= v <= MAX_NUMBER)
            or (null and v is None)
            for v in values
        )


@dataclass(frozen=True)
class Integer(Shape):
    null: bool = True
    expected = "an integer"

    def _check(self, value: Any, path: str) -> Problem:
        if isinstance(value, bool) or not isinstance(value, int):
            return self._wrong(value, path)
        return f"{path} is out of range" if abs(value) > MAX_INT else None


@dataclass(frozen=True)
class Text(Shape):
    null: bool = True
    expected = "a string"

    def _check(self, value: Any, path: str) -> Problem:
        return None if isinstance(value, str) else self._wrong(value, path)


@dataclass(frozen=True)
class Flag(Shape):
    null: bool = True
    expected = "true or false"

    def _check(self, value: Any, path: str) -> Problem:
        return None if isinstance(value, bool) else self._wrong(value, path)


@dataclass(frozen=True)
class Exactly(Shape):
    """One string value (the accuracy pass's `replicate`)."""

    value: str
    null: bool = False

    @property
    def expected(self) -> str:  # type: ignore[override]
        return repr(self.value)

    def _check(self, value: Any, path: str) -> Problem:
        return None if value == self.value else self._wrong(value, path)


@dataclass(frozen=True)
class OneOf(Shape):
    shapes: tuple[Shape, ...]
    null: bool = True

    @property
    def expected(self) -> str:  # type: ignore[override]
        return " or ".join(s.expected for s in self.shapes)

    def _check(self, value: Any, path: str) -> Problem:
        if any(s.problem(value, path) is None for s in self.shapes):
            return None
        return self._wrong(value, path)


@dataclass(frozen=True)
class ListOf(Shape):
    item: Shape = field(default_factory=Anything)
    null: bool = True
    length: int | None = None  # exactly this many items
    expected = "a list"

    def _check(self, value: Any, path: str) -> Problem:
        if not isinstance(value, list):
            return self._wrong(value, path)
        if self.length is not None and len(value) != self.length:
            return f"{path} holds {len(value)} items, expected {self.length}"
        if isinstance(self.item, Anything):
            return None
        if isinstance(self.item, Number) and self.item.all_fine(value):
            return None  # else the loop names the first problem
        for i, item in enumerate(value):
            problem = self.item.problem(item, f"{path}[{i}]")
            if problem:
                return problem
        return None


@dataclass(frozen=True)
class Row(Shape):
    """A list of a fixed length with a shape per position (`[replicate, block, steps]`)."""

    items: tuple[Shape, ...]
    null: bool = False
    expected = "a list"

    def _check(self, value: Any, path: str) -> Problem:
        if not isinstance(value, list):
            return self._wrong(value, path)
        if len(value) != len(self.items):
            return f"{path} holds {len(value)} items, expected {len(self.items)}"
        for i, (item, shape) in enumerate(zip(value, self.items, strict=True)):
            problem = shape.problem(item, f"{path}[{i}]")
            if problem:
                return problem
        return None


@dataclass(frozen=True)
class MapOf(Shape):
    """An object with keys of the writer's choosing (batch sizes, cache states...)."""

    value: Shape = field(default_factory=Anything)
    null: bool = True
    expected = "an object"

    def _check(self, value: Any, path: str) -> Problem:
        if not isinstance(value, dict):
            return self._wrong(value, path)
        for key, item in value.items():
            problem = self.value.problem(item, join(path, str(key)))
            if problem:
                return problem
        return None


@dataclass(frozen=True)
class Fields(Shape):
    """An object: the listed keys have these shapes when present; `required` must be present;
    `also` checks what the shapes alone cannot (after they pass)."""

    fields: dict[str, Shape]
    required: tuple[str, ...] = ()
    null: bool = True
    also: Check | None = None
    expected = "an object"

    def _check(self, value: Any, path: str) -> Problem:
        if not isinstance(value, dict):
            return self._wrong(value, path)
        for key in self.required:
            if key not in value:
                return f"{join(path, key)} is missing"
        for key, shape in self.fields.items():
            if key in value:
                problem = shape.problem(value[key], join(path, key))
                if problem:
                    return problem
        return self.also(value, path) if self.also else None


def with_fields(base: Fields, required: tuple[str, ...] = (), **more: Shape) -> Fields:
    """`base` with more fields (and more of them required)."""
    return Fields({**base.fields, **more}, (*base.required, *required), base.null, base.also)
