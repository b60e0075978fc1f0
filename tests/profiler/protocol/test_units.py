"""One place for units: each kind of figure, at its edges (None, 0, negative, huge, NaN)."""

from __future__ import annotations

import math

import pytest

from tcprof.profiler.protocol import units

NOT_FIGURES = [None, math.nan, math.inf, -math.inf, "9.17", True]


@pytest.mark.parametrize(
    "fn",
    [
        units.ms,
        units.seconds,
        units.duration,
        units.megabytes,
        units.whole_megabytes,
        units.percent,
        units.change,
        units.ratio,
        units.count,
        units.rate,
        units.short_count,
    ],
)
@pytest.mark.parametrize("value", NOT_FIGURES)
def test_what_is_no_figure_reads_missing(fn, value):
    assert fn(value) == units.MISSING


def test_ms_keeps_three_digits_of_precision_whatever_its_size():
    assert units.ms(0) == "0.000 ms"
    assert units.ms(0.1234) == "0.123 ms"
    assert units.ms(9.1666) == "9.17 ms"
    assert units.ms(99.999) == "100.00 ms"  # rounds within its band, never "1e+02"
    assert units.ms(230.4) == "230 ms"
    assert units.ms(1204.4) == "1,204 ms"
    assert units.ms(12_345_678.0) == "12,345,678 ms"
    assert units.ms(-0.5) == "\u22120.500 ms"
    assert units.ms(-0.0001) == "0.000 ms"  # a minus on zero reads as a figure it is not
    assert units.ms(9.17, unit=False) == "9.17"
    assert units.ms(0.1, unit=False, plus=True) == "+0.100"


def test_seconds_two_decimals_with_the_unit():
    assert units.seconds(0) == "0.00 s"
    assert units.seconds(7.876) == "7.88 s"
    assert units.seconds(1234.5) == "1,234.50 s"
    assert units.seconds(-4.2) == "\u22124.20 s"
    assert units.seconds(-0.001) == "0.00 s"
    assert units.seconds(4.67, unit=False) == "4.67"


def test_duration_in_words():
    assert units.duration(0) == "0 s"
    assert units.duration(-3) == "0 s"  # clocks that moved
    assert units.duration(44.6) == "45 s"
    assert units.duration(59.6) == "1 min"
    assert units.duration(100) == "1 min 40 s"
    assert units.duration(88) == "1 min 28 s"
    assert units.duration(5 * 60 + 22) == "5 min 20 s"  # steps of five from five minutes
    assert units.duration(7500) == "2 h 5 min"
    assert units.duration(3600) == "1 h"
    assert units.duration(1_000_000) == "277 h 46 min"


def test_duration_never_reads_sixty_seconds():
    # rounding to five seconds carries into the minute: not '5 min 60 s'
    assert units.duration(5 * 60 + 58) == "6 min"
    assert units.duration(59 * 60 + 58) == "1 h"


def test_megabytes_keep_small_sizes_precise():
    assert units.megabytes(0) == "0 B"
    assert units.megabytes(44 / 1024 / 1024) == "44 B"
    assert units.megabytes(0.5) == "512 KB"
    assert units.megabytes(0.0013) == "1.33 KB"
    assert units.megabytes(3.251) == "3.25 MB"
    assert units.megabytes(1204.4) == "1,204 MB"
    assert units.megabytes(2.5e6) == "2,500,000 MB"
    assert units.megabytes(-3.251) == "\u22123.25 MB"
    assert units.whole_megabytes(361.4) == "361 MB"
    assert units.whole_megabytes(12_345.6) == "12,346 MB"


def test_percent_and_change():
    assert units.percent(0) == "0%"
    assert units.percent(0.14) == "14%"
    assert units.percent(0.95) == "95%"
    assert units.percent(12.5) == "1,250%"
    assert units.percent(-0.08) == "\u22128%"
    assert units.percent(0.1234, digits=1) == "12.3%"
    assert units.change(0.04) == "+4%"
    assert units.change(-0.08) == "\u22128%"
    assert units.change(0) == "±0%"
    assert units.change(-0.001) == "±0%"  # rounds to nothing: no sign to read
    assert units.change(-0.001, digits=1) == "\u22120.1%"
    assert units.change(40.0) == "+4,000%"


def test_ratio_and_its_span():
    assert units.ratio(1.2149) == "1.21×"
    assert units.ratio(0) == "0.00×"
    assert units.ratio(26577.3) == "26,577.30×"
    assert units.ratio(-1.5) == "\u22121.50×"
    assert units.ratio_span(1.21, 1.2149) == "1.21×"
    assert units.ratio_span(1.21, 1.30) == "1.21–1.30×"
    assert units.ratio_span(None, 1.30) == "1.30×"
    assert units.ratio_span(1.21, None) == "1.21×"


def test_counts():
    assert units.count(0) == "0"
    assert units.count(14100) == "14,100"
    assert units.count(14100.4) == "14,100"
    assert units.count(2**70) == f"{2**70:,}"  # an int stays exact, however large
    assert units.count(-1200) == "\u22121,200"
    assert units.rate(2048.2) == "2,048"
    assert units.rate(9.1666) == "9.17"
    assert units.rate(0.000412) == "0.000412"
    assert units.rate(0) == "0"
    assert units.short_count(9800) == "9,800"
    assert units.short_count(25_400) == "25k"
    assert units.short_count(1_234_567) == "1.2M"
    assert units.short_count(0) == "0"
