"""The qrels source a campaign is scored against, as one small value (`QrelsSource`), and
the scoreboard's menu of sources.

Spellings (`--source SPEC`, the scoreboard menu, a score table's `source` field):
- `majority`, `mean`, `adjudicated` (or `consensus:METHOD`): a consensus over the people's
  current grades (machine assessors never count in it);
- `assessor:NAME`: that assessor's own grades (a person's or a machine's);
- `hybrid:MACHINE`: the people's majority where at least one person judged the item, the
  machine's label elsewhere;
- `panel:NAME`: a judge panel's derived labels (campaign/assessors/panels.py), wherever a
  machine is taken (`hybrid:panel:NAME` too).

`label` gives the long form back (`consensus:majority`, `assessor:alice`, `hybrid:gpt`), so
`parse(label)` is the identity.
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.campaign.database import Database
from workbench.errors import UsageError

CONSENSUS_METHODS = ("majority", "mean", "adjudicated")
KINDS = ("consensus", "assessor", "hybrid", "panel")


@dataclass(frozen=True)
class QrelsSource:
    """One qrels source: `kind` is consensus, assessor or hybrid; `name` the consensus
    method, the assessor's name or the machine's name."""

    kind: str
    name: str

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise UsageError(f"unknown qrels source kind {self.kind!r}; expected one of {', '.join(KINDS)}")
        if not self.name:
            raise UsageError(f"a {self.kind} qrels source needs a name")
        if self.kind == "consensus" and self.name not in CONSENSUS_METHODS:
            raise UsageError(f"unknown consensus {self.name!r}; expected one of {', '.join(CONSENSUS_METHODS)}")

    @classmethod
    def consensus(cls, method: str = "majority") -> QrelsSource:
        return cls("consensus", method)

    @classmethod
    def assessor(cls, name: str) -> QrelsSource:
        return cls("assessor", name)

    @classmethod
    def hybrid(cls, machine: str) -> QrelsSource:
        return cls("hybrid", machine)

    @classmethod
    def panel(cls, name: str) -> QrelsSource:
        return cls("panel", name)

    @classmethod
    def parse(cls, spec: str) -> QrelsSource:
        """'majority' | 'mean' | 'adjudicated' | 'consensus:METHOD' | 'assessor:NAME' |
        'hybrid:MACHINE' -> the source; anything else is a usage error."""
        spec = spec.strip()
        if spec in CONSENSUS_METHODS:
            return cls.consensus(spec)
        kind, sep, name = spec.partition(":")
        if not sep or kind not in KINDS or not name:
            raise UsageError(
                f"unknown qrels source {spec!r}; expected majority, mean, adjudicated, "
                "assessor:NAME, hybrid:MACHINE or panel:NAME")
        return cls(kind, name)

    @classmethod
    def of_options(cls, *, source: str | None = None, assessor: str | None = None,
                   consensus: str | None = None) -> QrelsSource:
        """The one source the CLI's options name (`--source`, `--assessor`, `--consensus`:
        at most one of them); the majority consensus when none is given."""
        given = [o for o, v in (("--source", source), ("--assessor", assessor),
                                ("--consensus", consensus)) if v]
        if len(given) > 1:
            raise UsageError(f"give one qrels source, not {' and '.join(given)}")
        if source:
            return cls.parse(source)
        if assessor:
            return cls.assessor(assessor)
        return cls.consensus(consensus or "majority")

    @property
    def label(self) -> str:
        """The long spelling: 'consensus:majority', 'assessor:alice', 'hybrid:gpt'."""
        return f"{self.kind}:{self.name}"

    def __str__(self) -> str:
        return self.label


MAJORITY = QrelsSource.consensus("majority")


def qrels_sources(db: Database) -> list[QrelsSource]:
    """Every qrels source a lead can score against, in menu order: the consensus methods,
    each judging assessor, then a hybrid for each machine assessor."""
    from workbench.campaign.assessors.roster import grading, machines

    return ([QrelsSource.consensus(m) for m in CONSENSUS_METHODS]
            + [QrelsSource.assessor(name) for name in grading(db, machines=True)]  # a lead's menu
            + [QrelsSource.hybrid(name) for name in machines(db)])
