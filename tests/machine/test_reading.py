"""Reading a grade (campaign/machine/reading.py): linear in the answer, bounded, and never a
truncated fraction or an `int()` of thousands of digits."""

from __future__ import annotations

import time

import pytest

from workbench.campaign.machine.reading import MAX_ANSWER_CHARS, read_grade

GRADES = [0, 1, 2, 3]


@pytest.mark.parametrize("answer", [
    "final score" + "\n" * 4000,            # the old pattern: cubic (444 s at 4 000)
    "final score:" + " " * 20000 + "x",
    ("final score " * 3000) + "none",
    "1" * 50_000 + "x",                      # the old lone-integer pattern: quadratic
    " " * 30_000 + "1" + " " * 30_000 + "x",
    "final\n" * 10_000,
], ids=["newlines", "spaces", "repeated", "digits", "spaced-digit", "finals"])
def test_adversarial_answers_are_read_in_linear_time(answer):
    start = time.perf_counter()
    grade, why = read_grade(answer, GRADES)
    assert time.perf_counter() - start < 0.5  # generous: linear is milliseconds
    assert grade is None and why


def test_a_long_answer_is_a_failure_not_a_scan():
    grade, why = read_grade("x" * (MAX_ANSWER_CHARS + 1) + "##final score: 2", GRADES)
    assert grade is None and "longer than" in why


def test_a_4401_digit_grade_is_a_failure():
    grade, why = read_grade("##final score: " + "0" * 4400 + "1", GRADES)
    assert grade is None and "4401 digits" in why
    assert read_grade("1" * 4401, GRADES)[0] is None


@pytest.mark.parametrize("answer", ["2.5", "1.9", "2/3", "3,5", "##final score: 2.5",
                                    "final score: 1,9", "Final Score = 2/3", "**2.5**"])
def test_fractions_are_failures_never_truncated(answer):
    grade, why = read_grade(answer, GRADES)
    assert grade is None and "fraction" in why


@pytest.mark.parametrize("answer, grade", [
    ("##final score: 2", 2), ("final score: 2.", 2), ("Final score: 3, as the passage", 3),
    ("final score: x\nfinal score: 1", 1), ("final score: 1\nfinal score: none", 1),
    ("** 3 **", 3), ("  2 .  ", 2), ("final score:\n\n\n**2**", 2),
])
def test_integers_still_read(answer, grade):
    assert read_grade(answer, GRADES) == (grade, "")


@pytest.mark.parametrize("answer", ["final score: 3rd", "2x", "final score: abc"])
def test_a_number_running_into_a_word_is_no_grade(answer):
    assert read_grade(answer, GRADES)[0] is None
