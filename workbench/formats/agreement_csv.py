"""The agreement CSV (`agree --format csv`, `agree --nuggets --format csv`): one row per
coefficient, `query,a,b,n,coefficient,value,interpretation` (empty query = all queries,
empty a/b = all assessors), written through the one CSV writer (formats/csv_cells.py).

A report (campaign/agreement/report.py's AgreementReport) gives its pairs' statistics,
the coefficients over all assessors, each pair's confusion counts (`count_<a>_<b>`) when
asked, and the per-query rows. Several reports go in one file with a prefix on their
coefficient names (`agree --nuggets`: `non_strict.cohen_kappa`, `strict.cohen_kappa`)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from typing import TextIO

from workbench.formats.csv_cells import csv_writer

HEADER = ["query", "a", "b", "n", "coefficient", "value", "interpretation"]


def agreement_csv_rows(report, confusion: bool = False) -> Iterator[tuple]:
    """(query, a, b, n, coefficient, value, reading) of one report, values unformatted."""
    from workbench.metrics.agreement import interpret

    for p in report.pairs:
        s = p.stats
        for name, value in (
            ("observed", s.observed),
            ("expected_cohen", s.expected_cohen),
            ("expected_pooled", s.expected_pooled),
            ("cohen_kappa", s.cohen_kappa),
            ("pooled_kappa", s.pooled_kappa),
            ("weighted_kappa_linear", s.weighted_kappa_linear),
            ("weighted_kappa_quadratic", s.weighted_kappa_quadratic),
        ):
            reading = "" if name.startswith(("observed", "expected")) else interpret(value)
            yield ("", p.a, p.b, s.n, name, value, reading)
    for name, value in (
        ("fleiss_kappa", report.fleiss_kappa),
        ("krippendorff_alpha_nominal", report.alpha_nominal),
        ("krippendorff_alpha_ordinal", report.alpha_ordinal),
        ("krippendorff_alpha_interval", report.alpha_interval),
    ):
        yield ("", "", "", report.n_items, name, value, interpret(value))
    if confusion:  # count_<a's grade>_<b's grade>
        for p in report.pairs:
            for ga, row in zip(p.categories, p.confusion):
                for gb, count in zip(p.categories, row):
                    yield ("", p.a, p.b, p.stats.n, f"count_{ga}_{gb}", count, "")
    for q in report.per_query:
        yield (str(q.query), "", "", q.n_items, "observed", q.observed, "")
        yield (str(q.query), "", "", q.n_items, "fleiss_kappa", q.fleiss_kappa, interpret(q.fleiss_kappa))
        yield (str(q.query), "", "", q.n_items, "krippendorff_alpha_nominal", q.alpha_nominal,
               interpret(q.alpha_nominal))


def _value(value) -> str:
    if isinstance(value, int):
        return str(value)
    return "" if value is None or math.isnan(value) else f"{value:.6f}"


def write_agreement_csv(out: TextIO, reports: Iterable[tuple[str, object]], confusion: bool = False) -> None:
    """The header, then each (prefix, report)'s rows, the prefix put before its coefficient names."""
    writer = csv_writer(out)
    writer.writerow(HEADER)
    for prefix, report in reports:
        for query, a, b, n, name, value, reading in agreement_csv_rows(report, confusion):
            writer.writerow([query, a, b, n, prefix + name, _value(value), reading])
