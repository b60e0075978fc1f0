"""Where a run's points go on the plots' x axes, apart from what the points are (live_data.py):
the sections of "all batch sizes in a row" (a batch size in a round, laid out as its first event
comes: series.py), how far the data reached in each, and the run's wall-clock time as its events
said it. `LiveData` is this layout with each arm's buffers folded into it.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from tcprof.app.plots.live_events import Where
from tcprof.app.plots.series import Section
from tcprof.profiler.config.script import ScriptSource
from tcprof.profiler.protocol.event_text import phase_words


class SectionLayout:
    """The planned sections (batch sizes x rounds, each `span` steps wide), those that began,
    their labels, and the run's time."""

    def __init__(
        self,
        batch_sizes: list[int],
        warmup: int,
        steps: int,
        replicates: int = 1,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.batch_sizes = list(batch_sizes)
        self.warmup = warmup
        self.span = 1 + warmup + steps
        self.replicates = max(1, replicates)
        self.clock = clock
        self._sections: list[tuple[int, int, int]] = []  # (x, replicate, batch size)
        self._section_x: dict[Section, int] = {}
        self._section_reach: dict[Section, int] = {}  # one past its largest step with data
        self._extent = 0  # one past the largest x with data
        self.sections_version = 0
        self.current_section: Section | None = None  # that of the last event with one
        # Wall-clock time: whether any event had a `t`, the largest seen, and when it came.
        self.has_times = False
        self.t_extent = 0.0
        self._t_seen_at: float | None = None
        self.wall_sections: list[tuple[float, Section]] = []  # (t, section) as the run moved
        self.script = False  # a training script's run: its sections are its sweep's values
        # The script's source: its phases said in its words.
        self.script_source: ScriptSource | None = None

    def boundaries(self) -> list[tuple[float, int]]:
        """(x, batch size) where each section (a batch size in a round) starts."""
        return [(float(x), bs) for x, _rep, bs in self._sections]

    def section_label(self, section: Section) -> str:
        """'bs=32', with the round when there are several; a script's sweep value
        ('batch_size=8'), or for a script with none its round ('round 2')."""
        rep, bs = section
        if not self.script:
            return f"r{rep + 1} bs={bs}" if self.replicates > 1 else f"bs={bs}"
        words = phase_words(bs, self.script_source)
        if not words:
            return f"round {rep + 1}"
        return f"r{rep + 1} {words}" if self.replicates > 1 else words

    def sections(self) -> list[tuple[float, str]]:
        """(x, label) of each section: 'bs=32', with the round when there are several."""
        return [(float(x), self.section_label((rep, bs))) for x, rep, bs in self._sections]

    def section_keys(self) -> list[Section]:
        """The sections in the order they began."""
        return [(rep, bs) for _x, rep, bs in self._sections]

    def section_start(self, section: Section | None) -> float:
        """Where a section starts in "all batch sizes in a row"."""
        return float(self._section_x.get(section, 0)) if section is not None else 0.0

    def section_width(self, section: Section | None) -> float:
        """The steps a section spans: its planned span, or more if its data went further."""
        reach = self._section_reach.get(section, 0) if section is not None else 0
        return float(max(self.span, reach))

    def x_extent(self) -> float:
        """The x range to show: the planned sections, or further if the data went further."""
        planned = self.span * max(1, len(self.batch_sizes)) * self.replicates
        return max(float(planned), self._extent)

    def run_time(self) -> float:
        """The run's time now (s): the latest event's t, plus the time since it came."""
        if self._t_seen_at is None:
            return self.t_extent
        return self.t_extent + max(0.0, self.clock() - self._t_seen_at)

    def _offset(self, where: Where) -> tuple[int, Section] | None:
        """Where the event's section starts in "all batch sizes in a row", and the section (a
        section is laid out when its first event comes)."""
        key = self._section_of(where)
        if key is None:
            return None
        x = self._section_x.get(key)
        if x is None:
            last = self._sections[-1][0] if self._sections else -self.span
            x = max(self._extent, last + self.span)
            self._section_x[key] = x
            self._sections.append((x, key[0], key[1]))
            self.sections_version += 1
        if self.current_section != key:
            self.current_section = key
            self.sections_version += 1
        if where.t is not None and (not self.wall_sections or self.wall_sections[-1][1] != key):
            self.wall_sections.append((where.t, key))
            self.sections_version += 1
        return x, key

    def _section_of(self, where: Where) -> Section | None:
        bs = where.batch_size
        if where.untimed or bs is None or bs not in self.batch_sizes:
            return None  # the untimed accuracy pass, or an unknown batch size
        return (where.round, bs)

    def _reach(self, x: int, section: Section, step: int) -> None:
        if x + 1 > self._extent:
            self._extent = x + 1
        if step + 1 > self._section_reach.get(section, 0):
            self._section_reach[section] = step + 1

    def _time(self, where: Where) -> float | None:
        t = where.t
        if t is None:
            return None
        self.has_times = True
        if t >= self.t_extent:
            self.t_extent = t
            self._t_seen_at = self.clock()
        return t
