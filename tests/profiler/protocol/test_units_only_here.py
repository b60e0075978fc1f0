"""No reader of a session writes a number with its own format spec: report/, trackers/, cli/,
analysis/ and model/ (whose verdict sentences are text) call protocol/units.py, so a figure reads the same in every view. The allow-list holds
only numbers that are not a unit (a plot's pixel coordinates, a loss value, a tolerance or a
setting quoted as given, an interval's bound with its own rules, a log's clock)."""

from __future__ import annotations

import re
from pathlib import Path

import tcprof.profiler

ROOT = Path(tcprof.profiler.__file__).resolve().parent
READERS = ("report", "trackers", "cli", "analysis", "model")

# A format spec inside an f-string ('{x:.2f}', '{n:,}', '{s:.0%}'), or given as a string to
# format() or a helper ('.2f', "+.3f", ",d").
SPEC = re.compile(
    r"\{[^{}]*[^\s{}]:(?=[^}])[<>^]?[+]?[0-9]*,?(?:\.[0-9]+)?[dfgeE%]?\}"
    r"|['\"][+ ,]?(?:\.[0-9]+)?[dfgeE%]['\"]"
)

# (file under profiler/, what the line holds): numbers that are not a unit.
ALLOWED = {
    ("report/sections/script.py", "{tol.atol:g} + {tol.rtol:g}"),  # a tolerance as given
    ("report/sections/script.py", "{sy(y):.1f}"),  # the loss chart's pixel coordinates
    ("report/sections/script.py", "{sx(x):.1f}"),
    ("report/sections/script.py", "{y:.4g}</text>"),  # a loss value on its axis
    ("report/sections/script.py", "/ 2:.0f}"),  # pixel coordinates of the axis labels
    ("report/sections/script.py", 'return f"{value:.4g}"'),  # a loss value, not a unit
    ("report/sections/cells.py", "{value:.3g}"),  # an error size between tensors, unitless
    ("report/sections/columns.py", "{SETTLED_RATIO:g} times"),  # a setting, quoted as declared
    ("report/sections/method.py", "{SETTLED_RATIO:g} times"),
    ("report/sections/method.py", "rtol {rtol:g}, atol {atol:g}"),  # a tolerance as given
    ("report/sections/method.py", "(rtol {tol.rtol:g}, atol {tol.atol:g})"),
    ("report/sections/run_output.py", "{t:8.3f}"),  # the Logs' clock column, aligned as the log is
    ("model/rules.py", 'return f"{bound:.2f}"'),  # bound_text: an interval's end
}


def _hits() -> list[str]:
    found = []
    for package in READERS:
        for path in sorted((ROOT / package).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            for number, line in enumerate(path.read_text().splitlines(), 1):
                if line.lstrip().startswith("#") or not SPEC.search(line):
                    continue
                if any(rel == f and what in line for f, what in ALLOWED):
                    continue
                found.append(f"{rel}:{number}: {line.strip()}")
    return found


def test_the_readers_format_units_only_through_protocol_units():
    hits = _hits()
    assert not hits, "format these with tcprof.profiler.protocol.units:\n" + "\n".join(hits)


def test_the_check_sees_each_way_of_writing_a_spec():
    for line in ('f"{v:.2f} s"', 'f"{n:,}"', 'f"{s:.0%}"', '_num(v, "+.3f")', 'format(v, ",d")'):
        assert SPEC.search(line), line
    for line in ('f"{name} {value}"', "f\"{row['bs']}\"", '"-"', '{"a": 1}', 'f"{x!r}"'):
        assert not SPEC.search(line), line
