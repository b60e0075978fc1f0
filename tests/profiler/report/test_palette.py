"""One palette for the window and report.html: distinct for every colour vision, eager first."""

from __future__ import annotations

import itertools
import json
import re

import numpy as np

from tcprof.profiler.config import ArmSpec
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.report.html import chart_data, render_html
from tcprof.profiler.report.palette import ARM_COLOURS, arm_colours
from tests.support.synthetic import synthetic_session

# Machado, Oliveira and Fernandes (2009) at full severity, on linear RGB.
SIMULATIONS = {
    "normal": np.eye(3),
    "protanopia": np.array(
        [
            [0.152286, 1.052583, -0.204868],
            [0.114503, 0.786281, 0.099216],
            [-0.003882, -0.048116, 1.051998],
        ]
    ),
    "deuteranopia": np.array(
        [
            [0.367322, 0.860646, -0.227968],
            [0.280085, 0.672501, 0.047413],
            [-0.011820, 0.042940, 0.968881],
        ]
    ),
    "tritanopia": np.array(
        [
            [1.255528, -0.076749, -0.178779],
            [-0.078411, 0.930809, 0.147602],
            [0.004733, 0.691367, 0.303900],
        ]
    ),
}
MIN_DELTA_E = 15.0  # CIELAB 1976 units: clearly different lines side by side


def _lab(hex_colour: str, simulation: np.ndarray) -> np.ndarray:
    srgb = np.array([int(hex_colour[i : i + 2], 16) for i in (1, 3, 5)]) / 255.0
    linear = np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4)
    linear = np.clip(simulation @ linear, 0.0, 1.0)
    xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
    t = (xyz @ linear) / np.array([0.95047, 1.0, 1.08883])
    f = np.where(t > 0.008856, np.cbrt(t), 7.787 * t + 16 / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def test_every_pair_of_colours_stays_apart_in_each_colour_vision():
    assert len(ARM_COLOURS) == 8 and len(set(ARM_COLOURS)) == 8
    for name, simulation in SIMULATIONS.items():
        for a, b in itertools.combinations(ARM_COLOURS, 2):
            distance = np.linalg.norm(_lab(a, simulation) - _lab(b, simulation))
            assert distance >= MIN_DELTA_E, f"{a} and {b} are {distance:.1f} apart for {name}"


def test_eager_takes_the_first_colour_wherever_it_is():
    assert arm_colours([True, False, False]) == list(ARM_COLOURS[:3])
    assert arm_colours([False, True]) == [ARM_COLOURS[1], ARM_COLOURS[0]]
    # A compiled arm keeps its colour with or without eager; an A/A control's eager differs.
    assert arm_colours([False])[0] == arm_colours([True, False])[1]
    assert arm_colours([True, False, True]) == [ARM_COLOURS[0], ARM_COLOURS[1], ARM_COLOURS[2]]
    assert len(set(arm_colours([False] * 7))) == 7


def test_the_report_draws_with_the_same_palette():
    arms = (ArmSpec("inductor"), ArmSpec("eager"), ArmSpec("aot_eager"))
    session = synthetic_session(arms=arms)
    colours = chart_data(SessionModel.read(session))["colours"]
    assert colours == [ARM_COLOURS[1], ARM_COLOURS[0], ARM_COLOURS[2]]
    page = render_html(SessionModel.read(session))
    data = json.loads(re.search(r'id="tcprof-data">(.*?)</script>', page, re.S).group(1))
    assert data["colours"] == colours
    assert "D.colours" in page and "#6e7781" not in page, "report.js keeps no palette of its own"
