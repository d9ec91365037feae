"""The one display format of numbers (formats/numbers.py): 4 decimals like trec_eval's
%.4f, a dash for no value, p-values in scientific notation below 1e-4."""

from __future__ import annotations

import math

import numpy as np

from workbench.formats.numbers import interval, number, p_value


def test_four_decimals_like_trec_eval():
    # trec_eval prints 0.8133333333333336 (an AP) as 0.8133 and rounds half to even in C's printf
    assert number(0.8133333333333336) == "0.8133" == "%.4f" % 0.8133333333333336
    assert number(np.float64(2 / 3)) == "0.6667"
    assert number(1) == "1.0000"
    assert number(0.05, signed=True) == "+0.0500" and number(-0.05, signed=True) == "-0.0500"
    assert number(12.6, count=True) == "13"
    assert number(2 / 3, 3) == "0.667"


def test_no_value_is_a_dash_never_nan():
    assert number(None) == number(math.nan) == number(np.nan) == "—"
    assert number(math.nan, missing="–") == "–"
    assert interval(0.25, math.nan) == "[0.2500, —]"


def test_interval_and_p_value():
    assert interval(0.38101, 0.44364) == "[0.3810, 0.4436]"
    assert p_value(0.0123) == "0.0123"
    assert p_value(0.0001) == "0.0001"
    assert p_value(3.2e-5) == "3.2e-05"
    assert p_value(None) == "—"
