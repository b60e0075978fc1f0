"""The arm colours of the window's plots and of report.html: one list, so an arm looks the
same in both.

Okabe and Ito's colour-blind-safe set ("Color Universal Design", 2008), chosen because its
colours stay apart for protanopes, deuteranopes and tritanopes and are mid-tones that keep
contrast on white and on near-black backgrounds. Its black is replaced by a dark grey (black
vanishes on a dark theme), and the order keeps the first arms furthest apart: eager is always
blue, the next arms vermillion and reddish purple (the bluish green, close to blue for many
readers, comes fourth), and the pale yellow, weakest on white, comes last. Every pair differs
by at least 16 CIELAB units under each simulated colour-vision deficiency
(tests/profiler/report/test_palette.py measures it).
"""

from __future__ import annotations

from collections.abc import Sequence

ARM_COLOURS = (
    "#0072B2",  # blue: eager, always
    "#D55E00",  # vermillion
    "#CC79A7",  # reddish purple
    "#009E73",  # bluish green
    "#E69F00",  # orange
    "#56B4E9",  # sky blue
    "#555555",  # dark grey (Okabe-Ito's black, lightened for dark themes)
    "#F0E442",  # yellow
)
EAGER = "eager"


def is_eager(name_or_backend: str) -> bool:
    """An arm label such as 'eager' or 'eager(dynamic=False)' runs the uncompiled model."""
    return name_or_backend.split("(")[0].strip() == EAGER


def arm_colours(eager: Sequence[bool]) -> list[str]:
    """One colour per arm, given which arms are eager: the first eager arm takes the first
    colour and every other arm (an A/A control's second eager arm included) the others in
    order, so a compiled arm's colour does not depend on whether eager runs beside it; they
    cycle after seven."""
    colours = []
    others = 0
    eager_seen = False
    for flag in eager:
        if flag and not eager_seen:
            colours.append(ARM_COLOURS[0])
            eager_seen = True
        else:
            colours.append(ARM_COLOURS[1 + others % (len(ARM_COLOURS) - 1)])
            others += 1
    return colours


# The timeline's categories (report/sections/timeline.py, the window's Timeline tab): the same
# colour-blind-safe set, measurement in the strongest blue and "other" in a light grey.
CATEGORY_COLOURS = {
    "measurement": "#0072B2",
    "compiling": "#D55E00",
    "accuracy pass": "#CC79A7",
    "start-up": "#E69F00",
    "waiting for a quiet machine": "#56B4E9",
    "other": "#BBBBBB",
}
