"""TorchDynamo's internal names in the user's words.

A guard that failed names what TorchDynamo holds, not what the user wrote: `___stack0` is a
value that was on the stack when the graph broke and was handed to the resume function (what
`loss.item()` returned, say), `L['x']` and `G['cfg']` are a frame's locals and globals,
`self._modules['fc']` is `self.fc`, and `___check_obj_id(...)`, `___dict_contains(...)` are
guard helpers. These functions say the same with what the user's source says: the expression
behind `___stackN` is read (linecache) from the line where the graph broke, the line a resume
function `torch_dynamo_resume_in_forward_at_14` continues after.
"""

from __future__ import annotations

import ast
import linecache
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from tcprof.profiler.model.arm import Recompile
from tcprof.profiler.protocol.compile_terms import resume_parts

STACK = re.compile(r"\b___stack\d+\b")
# The calls that turn a tensor into a Python value, and so break the graph (item, tolist,
# numpy: methods with no argument; int, float, bool: builtins of one argument).
BREAKING_METHODS = ("item", "tolist", "numpy")
BREAKING_BUILTINS = ("int", "float", "bool")
_BREAKING_TEXT = re.compile(
    r"[\w.]+(?:\([^()]*\)|\[[^\[\]]*\])*(?:\.\w+(?:\([^()]*\)|\[[^\[\]]*\])*)*"
    r"\.(?:item|tolist|numpy)\(\)"
)
_SOURCE = re.compile(r"""\b[LG]\[(['"])(?P<name>\w+)\1\]""")
_CONTAINER = re.compile(r"""\._(?:modules|parameters|buffers)\[(['"])(?P<name>\w+)\1\]""")
_DICT_CONTAINS = re.compile(
    r"(?P<not>\bnot )?___dict_contains\((?P<key>[^,()]+), (?P<dict>[^()]+)\)"
)
_HELPERS = (
    (re.compile(r"___check_obj_id\((?P<e>.+?), \d+\)"), r"\g<e> is the same object"),
    (re.compile(r"___check_type_id\((?P<e>.+?), \d+\)"), r"type(\g<e>) is unchanged"),
    (
        re.compile(r"___check_global_state\(\)"),
        "torch's global state (grad mode, autocast, default dtype) is unchanged",
    ),
    (
        re.compile(r"___check_torch_function_mode_stack\(\)"),
        "the torch function modes are unchanged",
    ),
    (
        re.compile(r"___check_tensors(?:_verbose)?\([^()]*\)"),
        "the tensor arguments' dtype, device, shape and requires_grad are unchanged",
    ),
)
_ANY_HELPER = re.compile(r"\b___(?P<name>[A-Za-z]\w*)")


class Place(Protocol):
    """Where TorchDynamo compiled or gave up: the frame and the line (a recompile, a compile of
    the compiles list, a fallback)."""

    @property
    def frame(self) -> str | None: ...
    @property
    def file(self) -> str | None: ...
    @property
    def line(self) -> int | None: ...


class Guarded(Place, Protocol):
    """A compile with the guard that failed (a recompile, or a compile of the compiles list)."""

    @property
    def reason(self) -> str | None: ...


@dataclass(frozen=True)
class StackValue:
    """What a `___stackN` of a resume function is: the text to show, the user's expression
    (None when the source line could not be read or names no such call) and where it broke."""

    text: str
    expression: str | None
    where: str


def source_line(file: Any, line: Any) -> str | None:
    """One line of the user's file, stripped; None when it cannot be read here (a session from
    another host, a file since deleted)."""
    if not isinstance(file, str) or not file or not isinstance(line, int) or line < 1:
        return None
    linecache.checkcache(file)  # the window reads many sessions; the file may have changed
    return linecache.getline(file, line).strip() or None


def _parse(code: str) -> tuple[ast.AST, str] | None:
    """One source line as a statement (and the text parsed): `if cond:` and `elif cond:`
    lines get a body."""
    stripped = re.sub(r"^elif\b", "if", code)
    for attempt in (stripped, stripped + " pass"):
        try:
            return ast.parse(attempt), attempt
        except SyntaxError:
            continue
    return None


def _method(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in BREAKING_METHODS
        and not node.args
        and not node.keywords
    )


def _builtin(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in BREAKING_BUILTINS
        and len(node.args) == 1
    )


def breaking_calls(code: str) -> list[str]:
    """The calls on one source line that turn a tensor into a Python value (`x.sum().item()`,
    `t.tolist()`; `int(n)` only when the line has none of those), in the order they run."""
    parsed = _parse(code)
    if parsed is None:  # a line inside a statement that spans several
        return list(dict.fromkeys(_BREAKING_TEXT.findall(code)))
    tree, text = parsed
    nodes = list(ast.walk(tree))
    calls = [n for n in nodes if _method(n)] or [n for n in nodes if _builtin(n)]
    calls.sort(key=lambda n: (getattr(n, "end_lineno", 0), getattr(n, "end_col_offset", 0)))
    found = [ast.get_source_segment(text, n) or ast.unparse(n) for n in calls]
    return list(dict.fromkeys(found))


def resume_line(frame: Any) -> int | None:
    """`torch_dynamo_resume_in_forward_at_14` -> 14: the line whose graph break it resumes after."""
    parts = resume_parts(frame)
    return parts[1] if parts else None


def stack_value(record: Place | None) -> StackValue:
    """`___stackN` in a recompile of a resume function, in the user's words: the expression on
    the line where the graph broke (its `.item()` or such), else where it broke."""
    file = record.file if record else None
    line = (resume_line(record.frame) or record.line) if record else None
    where = f"{os.path.basename(str(file))}:{line}" if file else f"line {line}"
    calls = breaking_calls(source_line(file, line) or "")
    if calls:
        return StackValue(" or ".join(calls), calls[0] if len(calls) == 1 else None, where)
    return StackValue(f"the value returned where the graph broke ({where})", None, where)


def plain_source(text: str) -> str:
    """`L['self']._modules['fc'].weight` -> `self.fc.weight`, `G['cfg']` -> `cfg`."""
    text = _SOURCE.sub(lambda m: m.group("name"), text)
    return _CONTAINER.sub(lambda m: "." + m.group("name"), text)


def plain_guard(text: str, record: Place | None = None) -> str:
    """A guard as TorchDynamo prints it, with no internal name left: sources as the user
    writes them, `___stackN` as the expression it holds, guard helpers as what they check."""
    if STACK.search(text):
        value = stack_value(record).text
        text = STACK.sub(lambda _: value, text)
    text = plain_source(text)
    text = _DICT_CONTAINS.sub(
        lambda m: f"{m.group('key')} {'not in' if m.group('not') else 'in'} {m.group('dict')}",
        text,
    )
    for pattern, words in _HELPERS:
        text = pattern.sub(words, text)
    return _ANY_HELPER.sub(lambda m: m.group("name"), text)


def plain_reason(record: Guarded | Mapping[str, Any]) -> str | None:
    """A recompile's (or a compile's) reason in the user's words (None when it has none); a
    record's dict as session.json holds it is read as a recompile."""
    typed = Recompile.of(record) if isinstance(record, Mapping) else record
    return plain_guard(typed.reason, typed) if typed.reason else typed.reason
