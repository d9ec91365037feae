"""Leaderboard files (AutoJudge's formats): per-run, per-topic values of measures, read for
`workbench import leaderboard` and written by `workbench export scores -q --format`.

- `trec_eval`: `measure topic value` (trec_eval's own output), the run named by the file
  name (its base name); a `runid` line is skipped;
- `tot`: `run measure topic value`;
- `ir_measures`: `run topic measure value`;
- `jsonl`: one object a line, `{"run_id", "topic_id", "measure", "value"}`.
Topic `all` is the run's summary line. Columns are separated by whitespace. A four-column
file cannot say whether it is `tot` or `ir_measures`, so without a format it is refused.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from typing import Iterable, TextIO

from workbench.errors import InputError
from workbench.formats.textlines import iter_lines

LEADERBOARD_FORMATS = ("trec_eval", "tot", "ir_measures", "jsonl")
SUMMARY_TOPIC = "all"


@dataclass(frozen=True)
class LeaderboardRows:
    """The rows of one leaderboard file, in file order."""

    runs: tuple[str, ...]
    topics: tuple[str, ...]
    measures: tuple[str, ...]
    values: tuple[float, ...]

    def __len__(self) -> int:
        return len(self.values)


def detect_format(path: str | os.PathLike) -> str:
    """The format of a file given without --format: `jsonl` (a line starting with `{`) or
    `trec_eval` (three columns); four columns are refused (tot or ir_measures?)."""
    name = os.fspath(path)
    for number, text in iter_lines(name):
        if not text.strip():
            continue
        if text.lstrip().startswith("{"):
            return "jsonl"
        columns = len(text.split())
        if columns == 3:
            return "trec_eval"
        if columns == 4:
            raise InputError(name, number, "four columns can be `tot` (run measure topic value) or "
                             "`ir_measures` (run topic measure value): give --format tot or --format ir_measures")
        raise InputError(name, number, f"{columns} columns; a leaderboard line has 3 (trec_eval) or 4")
    raise InputError(name, None, "the file holds no leaderboard line")


def _value(name: str, number: int, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise InputError(name, number, f"value {text[:40]!r} is not a number") from None
    if math.isnan(value) or math.isinf(value):
        raise InputError(name, number, f"value {text[:40]!r} is not a finite number")
    return value


def read_leaderboard(path: str | os.PathLike, fmt: str | None = None, *,
                     measure: str | None = None) -> LeaderboardRows:
    """Every (run, topic, measure, value) of the file; `measure` keeps that measure only.
    A malformed line, a repeated (run, topic, measure) or a file left empty is an
    InputError naming the file and line."""
    name = os.fspath(path)
    if fmt is None:
        fmt = detect_format(name)
    if fmt not in LEADERBOARD_FORMATS:
        raise InputError(name, None, f"unknown leaderboard format {fmt!r}; expected {', '.join(LEADERBOARD_FORMATS)}")
    run_of_file = os.path.basename(name)
    runs, topics, measures, values = [], [], [], []
    seen: dict[tuple[str, str, str], int] = {}
    for number, text in iter_lines(name):
        if not text.strip():
            continue
        if fmt == "jsonl":
            try:
                obj = json.loads(text)
            except ValueError as exc:
                raise InputError(name, number, f"not JSON: {exc}") from None
            if not isinstance(obj, dict):
                raise InputError(name, number, "expected a JSON object")
            missing = [k for k in ("run_id", "topic_id", "measure", "value") if k not in obj]
            if missing:
                raise InputError(name, number, f"missing {', '.join(missing)}")
            run, topic, m = (str(obj[k]) for k in ("run_id", "topic_id", "measure"))
            raw = obj["value"]
            if isinstance(raw, bool) or not isinstance(raw, (int, float, str)):
                raise InputError(name, number, f"value {raw!r} is not a number")
            value = _value(name, number, str(raw))
        else:
            cols = text.split()
            want = 3 if fmt == "trec_eval" else 4
            if len(cols) != want:
                raise InputError(name, number, f"{len(cols)} columns; `{fmt}` has {want}")
            if fmt == "trec_eval":
                m, topic, raw_value = cols
                run = run_of_file
                if m == "runid":
                    continue
            elif fmt == "tot":
                run, m, topic, raw_value = cols
            else:
                run, topic, m, raw_value = cols
            value = _value(name, number, raw_value)
        for what, text_ in (("run", run), ("topic", topic), ("measure", m)):
            if not text_.strip():
                raise InputError(name, number, f"empty {what}")
        if measure is not None and m != measure:
            continue
        key = (run, topic, m)
        if key in seen:
            raise InputError(name, number, f"run {run!r}, topic {topic!r}, measure {m!r} repeats line {seen[key]}")
        seen[key] = number
        runs.append(run)
        topics.append(topic)
        measures.append(m)
        values.append(value)
    if not values:
        raise InputError(name, None, f"no value of measure {measure!r}" if measure else "the file holds no leaderboard line")
    return LeaderboardRows(tuple(runs), tuple(topics), tuple(measures), tuple(values))


def write_leaderboard(rows: Iterable[tuple[str, str, str, float]], out: TextIO, fmt: str) -> int:
    """(run, topic, measure, value) rows in `tot`, `ir_measures` or `jsonl`; NaN values are
    left out (a format line has no empty value). Returns the rows written."""
    if fmt not in ("tot", "ir_measures", "jsonl"):
        raise ValueError(f"cannot write leaderboard format {fmt!r}")
    count = 0
    for run, topic, m, value in rows:
        if value is None or math.isnan(value):
            continue
        value = float(value)
        if fmt == "jsonl":
            out.write(json.dumps({"run_id": run, "topic_id": topic, "measure": m, "value": value}) + "\n")
        elif fmt == "tot":
            out.write(f"{run} {m} {topic} {value!r}\n")
        else:
            out.write(f"{run} {topic} {m} {value!r}\n")
        count += 1
    return count
