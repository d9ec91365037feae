"""What the evaluation engine takes and gives: its settings and one result per run."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from workbench.metrics.evaluate import Evaluation


@dataclass(frozen=True)
class EvalSettings:
    """trec_eval's options, as `workbench eval` spells them.

    rel_level: grades >= this are relevant (-l); ties: order of tied scores, ``trec_eval``
    (docno descending), ``input`` (file order) or ``rank`` (the rank column); max_depth:
    evaluate only the top n of each query (-M); complete: average over every qrels query,
    a missing one scoring 0 (-c); compat: 10, or 9 for trec_eval 9's iprec rounding;
    judged_only: evaluate only the judged retrieved documents (-J); num_docs: documents in
    the collection (-N, for utility).
    """

    rel_level: int = 1
    ties: str = "trec_eval"
    max_depth: int | None = None
    complete: bool = False
    compat: int = 10
    judged_only: bool = False
    num_docs: int = 0

    def as_dict(self) -> dict:
        """The settings in `eval --format json`'s order (docs/json-outputs.md)."""
        return {"ties": self.ties, "rel_level": self.rel_level, "max_depth": self.max_depth,
                "complete": self.complete, "compat": self.compat,
                "judged_only": self.judged_only, "num_docs": self.num_docs}


@dataclass(frozen=True)
class RunResult:
    """One run's evaluation.

    path: the run file (or the name given for a run of arrays); name: what output calls
    the run (its first tag, else path); evaluation: the metrics package's `Evaluation`;
    upper: the same with every unjudged retrieved document at the top grade (bounds),
    else None; unaveraged: qrels queries missing from the run and so left out of the
    averages (always empty with complete); strategy: how it was evaluated
    (``threads``, ``processes`` or ``split``); jobs: how many processes did that (the
    workers, or 1 for this process alone).
    """

    path: str
    name: str
    evaluation: Evaluation
    upper: Evaluation | None = None
    unaveraged: tuple[str, ...] = ()
    strategy: str = "threads"
    jobs: int = 1
