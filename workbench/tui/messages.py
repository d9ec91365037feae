"""Messages that thread workers post to screens (typed, plain records only)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from textual.message import Message

from workbench.campaign.judging.assessing import QueryProgress, Queue
from workbench.campaign.judging.grades import GradeRecord

if TYPE_CHECKING:  # scoring pulls in numpy: imported when the panel first opens
    from workbench.campaign.judging.session import Opening, Poll
    from workbench.campaign.judging.marks import MarkRecord
    from workbench.campaign.scoring.scores import ScoreTable


@dataclass
class AssessorsLoaded(Message):
    names: list[str]
    machines: list[str] = field(default_factory=list)  # names a person may not take


@dataclass
class AssessorChecked(Message):
    """The roster's answer for a name typed on the start screen: None, or why not."""

    name: str
    refusal: str | None
    creatable: bool = False  # a new name (not a machine's): Enter again creates it


@dataclass
class WriteWaiting(Message):
    """A write waits for another writer (e.g. a long import): say so on the status line."""


@dataclass
class QueueLoaded(Message):
    """A query's queue and what goes with it (progress, scale, settings), as the judging
    session read it."""

    opening: "Opening"


@dataclass
class SessionPolled(Message):
    """The judging session's state in the database: ended ("" while it goes on) and the
    progress counts as stored."""

    poll: "Poll"


@dataclass
class JudgingStopped(Message):
    """The judging session ended (assessor removed, or another session took over)."""

    reason: str


@dataclass
class ProgressLoaded(Message):
    """A page of the query list; `more`: the key of the next page (None: the last)."""

    progress: list[QueryProgress]
    assigned: int = 0  # items newly assigned (whole pool given to a new assessor)
    append: bool = False  # a further page: added below the rows already shown
    more: int | None = None


@dataclass
class ProgressSummed(Message):
    """The query list's totals over every query, and the first query with work left."""

    totals: object  # campaign.judging.assessing.ProgressTotals
    first_open: str | None


@dataclass
class GradeSaved(Message):
    """A grade is COMMITTED: only now may the screen show it as saved."""

    index: int
    record: GradeRecord
    note: str | None = None
    # With the live panel open: the scores recomputed after this grade (one redraw for both)
    table: "ScoreTable | None" = None
    # An adaptive pool served the next document: the query's queue, reloaded after it
    queue: "Queue | None" = None


@dataclass
class MarkSaved(Message):
    """A "can't judge" mark (or its removal) is COMMITTED."""

    index: int
    record: "MarkRecord"
    # An adaptive pool served the next document (a mark settles one too): the queue, reloaded
    queue: "Queue | None" = None


@dataclass
class GradeFailed(Message):
    index: int
    error: str


@dataclass
class UndoDone(Message):
    record: GradeRecord | None


@dataclass
class NoteSaved(Message):
    index: int
    note: str
    query: str = ""
    document: str = ""


@dataclass
class ScoresUpdated(Message):
    table: "ScoreTable"
    query: str | None


@dataclass
class WorkFailed(Message):
    """A background read or write that is not a grade failed."""

    what: str
    error: str
