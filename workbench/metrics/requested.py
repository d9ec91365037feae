"""The measures a user asked for, in the order asked, each with the name to show.

Tables (score, compare, the scoreboard) keep the user's spelling and order: `-m nDCG@10
-m AP` gives the columns `nDCG@10 AP`. A name that stands for several measures (`P`,
`P.5,10`, `official`) shows trec_eval's labels, in trec_eval's order within it. Output in
trec_eval's format is not made here: it sorts by `Measure.sort_key` and prints labels.
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.metrics.measures import Measure, parse_measures


@dataclass(frozen=True)
class Requested:
    """Measures in the user's order (duplicates dropped, first spelling wins) and the
    name each is shown under."""

    measures: tuple[Measure, ...]
    names: tuple[str, ...]


def requested_measures(names, compat: int = 10) -> Requested:
    """Parse `names` (strings; whitespace separates several in one string) keeping their
    order (compat: as for `parse_measures`, what the sets hold). Raises MeasureError as
    `parse_measures` does."""
    if isinstance(names, str):
        names = [names]
    shown: dict[Measure, str] = {}
    for raw in names:
        for name in str(raw).split():
            found = parse_measures([name], compat=compat)
            for m in found:
                if m not in shown:
                    shown[m] = name if len(found) == 1 else (m.label or m.family)
    return Requested(tuple(shown), tuple(shown.values()))


def evaluated_measures(names, compat: int = 10) -> Requested:
    """`requested_measures` cut to the measures trec_eval evaluates for these names: a later
    name of a family replaces its parameters (`-m all_trec -m relstring.20` evaluates
    relstring_20 only, `-m official -m P.5,10` P_5 and P_10 of P), as `parse_measures`
    reads them. What `eval` shows and the Python API returns."""
    if isinstance(names, str):
        names = [names]
    asked = requested_measures(names, compat=compat)
    evaluated = set(parse_measures([str(n) for n in names], compat=compat))
    kept = [(m, name) for m, name in zip(asked.measures, asked.names) if m in evaluated]
    return Requested(tuple(m for m, _ in kept), tuple(name for _, name in kept))
