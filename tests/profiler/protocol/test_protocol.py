"""The event protocol is declared once: every event type that the worker, the engine or the
application creates, and every type any of them matches, is declared in profiler/protocol/events.py, and
every declaration is used. Found by walking the syntax tree, not by grepping."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path

from tcprof.profiler.protocol import events
from tcprof.profiler.protocol.events import EVENT_FIELDS, EventType, Phase, StepsPhase
from tests.support.paths import ROOT

SCANNED = ("profiler", "app", "bench")


@dataclass
class Found:
    """String literals used as event types and phases, each with where it was seen."""

    emitted: dict[str, list[str]] = field(default_factory=dict)
    matched: dict[str, list[str]] = field(default_factory=dict)
    phases_emitted: dict[str, list[str]] = field(default_factory=dict)
    phases_matched: dict[str, list[str]] = field(default_factory=dict)

    def add(self, table: dict[str, list[str]], values: list[str], where: str) -> None:
        for value in values:
            table.setdefault(value, []).append(where)


def _strings(node: ast.AST | None) -> list[str]:
    """The string values a node can take: a literal, `EventType.X`-style members, a conditional
    of those, or a tuple/list/set of those (for membership tests)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        enum = getattr(events, node.value.id, None)
        member = getattr(enum, node.attr, None)
        return [member.value] if isinstance(member, str) and hasattr(member, "value") else []
    if isinstance(node, ast.IfExp):
        return _strings(node.body) + _strings(node.orelse)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [s for elt in node.elts for s in _strings(elt)]
    return []


def _reads_key(node: ast.AST, key: str) -> bool:
    """`x[key]` or `x.get(key)`."""
    if isinstance(node, ast.Subscript):
        return isinstance(node.slice, ast.Constant) and node.slice.value == key
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get"
        and bool(node.args)
        and isinstance(node.args[0], ast.Constant)
        and node.args[0].value == key
    )


class _Scanner(ast.NodeVisitor):
    def __init__(self, found: Found, path: str, emit_calls: bool) -> None:
        self.found, self.path = found, path
        self.emit_calls = emit_calls  # `.emit("type", ...)` is the worker channel's (not Qt's)
        self.type_names: list[set[str]] = [set()]  # per function: names bound to an event type

    def _where(self, node: ast.AST) -> str:
        return f"{self.path}:{getattr(node, 'lineno', '?')}"

    def _is_type(self, node: ast.AST) -> bool:
        if isinstance(node, ast.NamedExpr):
            return self._is_type(node.value)
        return _reads_key(node, "type") or (
            isinstance(node, ast.Name) and node.id in self.type_names[-1]
        )

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.type_names.append(set())
        self.generic_visit(node)
        self.type_names.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Assign(self, node: ast.Assign) -> None:
        if self._is_type(node.value):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    self.type_names[-1].add(target.id)
        self.generic_visit(node)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        if self._is_type(node.value):
            self.type_names[-1].add(node.target.id)
        self.generic_visit(node)

    def visit_Dict(self, node: ast.Dict) -> None:
        fields = {
            k.value: v
            for k, v in zip(node.keys, node.values, strict=True)
            if isinstance(k, ast.Constant)
        }
        if "type" in fields:
            types = _strings(fields["type"])
            self.found.add(self.found.emitted, types, self._where(node))
            if "phase" in types and "phase" in fields:
                self.found.add(
                    self.found.phases_emitted, _strings(fields["phase"]), self._where(node)
                )
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if (
            self.emit_calls
            and isinstance(func, ast.Attribute)
            and func.attr == "emit"
            and node.args
        ):
            types = _strings(node.args[0])
            self.found.add(self.found.emitted, types, self._where(node))
            for kw in node.keywords:
                if "phase" in types and kw.arg == "phase":
                    self.found.add(self.found.phases_emitted, _strings(kw.value), self._where(node))
        if isinstance(func, ast.Name) and func.id == "dict":
            for kw in node.keywords:
                if kw.arg == "type":
                    self.found.add(self.found.emitted, _strings(kw.value), self._where(node))
        self.generic_visit(node)

    def visit_Compare(self, node: ast.Compare) -> None:
        for left, right in pairwise([node.left, *node.comparators]):
            for subject, value in ((left, right), (right, left)):
                if self._is_type(subject):
                    self.found.add(self.found.matched, _strings(value), self._where(node))
                elif _reads_key(subject, "phase"):
                    self.found.add(self.found.phases_matched, _strings(value), self._where(node))
        self.generic_visit(node)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        """A class that dispatches on `getattr(self, f"_on_{type}")` (the Session) matches the
        type of each of its `_on_<type>` methods."""
        dispatches = any(
            isinstance(n, ast.JoinedStr)
            and n.values
            and isinstance(n.values[0], ast.Constant)
            and n.values[0].value == "_on_"
            for n in ast.walk(node)
        )
        if dispatches:
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name.startswith("_on_"):
                    self.found.add(self.found.matched, [item.name[4:]], self._where(item))
        self.generic_visit(node)


def scan_source(text: str, path: str, found: Found | None = None) -> Found:
    found = found or Found()
    emit_calls = not path.startswith("app/")  # app/ has Qt signals' emit()
    _Scanner(found, path, emit_calls).visit(ast.parse(text, filename=path))
    return found


def scan_tree(root: Path = ROOT) -> Found:
    found = Found()
    for folder in SCANNED:
        for path in sorted((root / folder).rglob("*.py")):
            scan_source(path.read_text(), str(path.relative_to(root)), found)
    return found


def undeclared(found: Found) -> dict[str, list[str]]:
    declared = {t.value for t in EventType}
    return {
        t: where
        for table in (found.emitted, found.matched)
        for t, where in table.items()
        if t not in declared
    }


def test_every_emitted_or_matched_event_type_is_declared():
    found = scan_tree()
    assert len(found.emitted) > 20 and len(found.matched) > 20, "the scanner sees the code"
    assert undeclared(found) == {}


def test_every_declared_event_type_is_emitted_somewhere():
    emitted = scan_tree().emitted
    assert [t.value for t in EventType if t.value not in emitted] == []


def test_phases_are_declared_and_all_used():
    found = scan_tree()
    assert set(found.phases_emitted) == {p.value for p in Phase}
    declared = {p.value for p in Phase} | {p.value for p in StepsPhase}
    assert {p: w for p, w in found.phases_matched.items() if p not in declared} == {}


def test_every_type_is_documented_with_its_fields():
    words = set(re.findall(r"[a-z_]+", events.__doc__ or ""))
    assert [t.value for t in EventType if t.value not in words] == []
    assert set(EVENT_FIELDS) == set(EventType), "a TypedDict per event type"


def test_the_scanner_finds_a_planted_undeclared_type():
    """The checks above can fail: each way of creating or matching a type is seen."""
    planted = """
def emit_one(channel, event, e):
    channel.emit("planted_emit", x=1)
    relay({"type": "planted_dict", "arm": 0})
    kind = event.get("type")
    if kind == "planted_name":
        pass
    if e["type"] in ("hello", "planted_tuple"):
        pass
    if (k := e.get("type")) != "planted_walrus":
        pass

class Folder:
    def apply(self, event):
        getattr(self, f"_on_{event['type']}")(event)

    def _on_planted_handler(self, e):
        pass
"""
    found = scan_source(planted, "profiler/planted.py")
    assert set(undeclared(found)) == {
        "planted_emit",
        "planted_dict",
        "planted_name",
        "planted_tuple",
        "planted_walrus",
        "planted_handler",
    }
    qt = scan_source('def f(self):\n    self.runEnded.emit("completed")\n', "app/w.py")
    assert undeclared(qt) == {}, "a Qt signal's emit() is not an event"
