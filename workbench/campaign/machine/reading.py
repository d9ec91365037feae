"""Reading a grade from a model's answer, in time linear in the answer's length.

The rule (docs/machine-assessors.md): the last `final score: N` in the answer; failing
that, an answer that is nothing but one integer (with optional `**`, a trailing `.` and
white space around it). The grade must be an integer on the scale. Anything else is a
failure, kept raw: a grade is never guessed from prose, and never truncated:
`2.5`, `1.9`, `2/3` and `3,5` are fractions, not grades 2, 1, 2 and 3.

Bounded: only the first MAX_ANSWER_CHARS of an answer are read (a longer answer is a
failure), and a number of more than MAX_DIGITS digits is a failure (no `int()` of a
4 000-digit string). No regular expression here can backtrack: each one matches a fixed
word or a run of one character class, and the scan resumes after every match, so a
"final score" followed by thousands of newlines costs one pass.
"""

from __future__ import annotations

import re

from workbench.campaign.scale import not_on_scale

MAX_ANSWER_CHARS = 100_000
MAX_DIGITS = 6

_FINAL = re.compile(r"final[ \t\r\n\f\v]+score", re.I)
_SPACE = " \t\r\n\f\v"
_DIGITS = re.compile(r"[0-9]+")
_FRACTION_MARKS = ".,/"
NO_GRADE = "no grade in the answer (expected `##final score: N` or a lone integer)"


def _skip(text: str, i: int, chars: str) -> int:
    n = len(text)
    while i < n and text[i] in chars:
        i += 1
    return i


def _number_at(text: str, i: int) -> tuple[str, int] | None:
    """The number token at `i` (`-?[0-9]+`, with a fraction part when one follows), and
    where it ends; None when there is no number there or it runs into a word."""
    start = i
    if i < len(text) and text[i] == "-":
        i += 1
    digits = _DIGITS.match(text, i)
    if digits is None:
        return None
    i = digits.end()
    if i + 1 < len(text) and text[i] in _FRACTION_MARKS and text[i + 1].isdigit():
        tail = _DIGITS.match(text, i + 1)
        end = tail.end() if tail is not None else i + 2
        return text[start:end], end
    if i < len(text) and (text[i].isalnum() or text[i] == "_"):
        return None  # "3rd", "2x": not a number on its own
    return text[start:i], i


def _final_score(text: str) -> str | None:
    """The token after the last `final score` that is followed by a number."""
    found = None
    pos = 0
    while (m := _FINAL.search(text, pos)) is not None:
        i = _skip(text, m.end(), _SPACE)
        if i < len(text) and text[i] in ":=":
            i = _skip(text, i + 1, _SPACE)
        i = _skip(text, i, "*")
        i = _skip(text, i, _SPACE)
        token = _number_at(text, i)
        if token is not None:
            found, i = token
        pos = max(i, m.end())
    return found


def _lone_number(text: str) -> str | None:
    t = text.strip(_SPACE).lstrip("*").lstrip(_SPACE)
    t = t.rstrip(_SPACE).rstrip("*").rstrip(_SPACE)
    if t.endswith("."):
        t = t[:-1].rstrip(_SPACE)
    token = _number_at(t, 0)
    return token[0] if token is not None and token[1] == len(t) else None


def read_grade(answer: str, grades: list[int]) -> tuple[int | None, str]:
    """(grade, "") from a model's answer, or (None, why) when it holds no grade on the scale."""
    if len(answer) > MAX_ANSWER_CHARS:
        return None, f"the answer is longer than {MAX_ANSWER_CHARS} characters (not read)"
    token = _final_score(answer)
    if token is None:
        token = _lone_number(answer)
    if token is None:
        return None, NO_GRADE
    digits = token.lstrip("-")
    if not digits.isdigit():
        return None, f"{token!r} is a fraction, not an integer grade"
    if len(digits) > MAX_DIGITS:
        return None, f"the grade has {len(digits)} digits (at most {MAX_DIGITS} are read)"
    value = int(token)
    if value not in grades:
        return None, not_on_scale(value, grades)
    return value, ""
