"""What each audience may see of an item, a grade or a label: the one owner of blindness.

Audiences:
- `ASSESSOR_SCREEN`: the judging screens of `workbench judge` in a terminal;
- `BROWSER`: the same screens behind `workbench serve` (a link of role assessor);
- `ASSESSOR_COMMAND`: `workbench queue` and `workbench grade` (an assessor's commands);
- `LEAD`: the lead's screens and commands (bare `workbench`, `serve --lead`, `calibrate`,
  `agree`, `adjudicate`...): everything.

An assessor, whatever the door, sees the documents to judge (id, title, text, the query's
text), their place in the queue, and their own grade, note and can't-judge mark: never a
system, a rank, a score, a pool depth, another assessor's grade, a machine's label or
provenance, nor what makes an item a validation item or a hidden repeat. Per-system
numbers (live scores) are shown to an assessor only while the campaign is not blind
(campaign/settings.py stores the setting; this module decides what it means).

A hidden repeat (`pool --repeat`, a validation sample) is a second showing of a document:
while it waits in a query's queue, nothing in sight may pair it with its first showing
(`pair_blind`), and no item says more about itself than any other item of its state
(`item_status`, `list_label`): an unjudged item looks like any other unjudged item, a
judged one like any other judged one. (The first showing once said "Judged" in green
before anything was judged, which told the assessor which document would come back.)

Screens, the queue command and serve ask here; none decides alone
(docs/architecture.md#one-owner-per-rule). Items are duck-typed (`judged`, `repeat`,
`grade`, `cant_judge`, `document`, `title`, `listed_blind`, `grade_hidden`): this domain
sits below judging.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Sequence, TypeVar

from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from workbench.campaign.database import Database

ASSESSOR_SCREEN, BROWSER, ASSESSOR_COMMAND, LEAD = "assessor screen", "browser", "assessor command", "lead"
AUDIENCES = (ASSESSOR_SCREEN, BROWSER, ASSESSOR_COMMAND, LEAD)
ASSESSORS = (ASSESSOR_SCREEN, BROWSER, ASSESSOR_COMMAND)

ITEM, GRADE, LABEL, ANSWER = "item", "grade", "label", "answer"

# Every field of each kind of record, and what an assessor (any door) may see of it.
FIELDS = {
    ITEM: ("query", "place", "document", "title", "text", "query_title", "query_description",
           "query_narrative", "system", "rank", "score", "pool_depth", "repeat", "validation",
           "stratum", "probability"),
    GRADE: ("own_grade", "own_note", "own_cant_judge", "own_seconds", "other_grades",
            "adjudicated_grade", "history"),
    LABEL: ("machine", "model", "prompt", "machine_grade", "raw_answer", "provenance"),
    # a generated answer on the nugget screen (campaign/answers/assessing.answer_view)
    ANSWER: ("answer_id", "topic", "narrative", "sentences", "n_references", "nuggets", "run",
             "team", "metadata", "nugget_origin", "nugget_importance", "other_labels",
             "machine_labels", "score"),
}
_ASSESSOR_FIELDS = {
    ITEM: frozenset(("query", "place", "document", "title", "text", "query_title",
                     "query_description", "query_narrative")),
    GRADE: frozenset(("own_grade", "own_note", "own_cant_judge")),
    LABEL: frozenset(),
    # the nuggets carry this assessor's own labels and notes only
    ANSWER: frozenset(("answer_id", "topic", "narrative", "sentences", "n_references", "nuggets")),
}


class NotShown(WorkbenchError):
    """An audience asked for what it may not see."""


def _check(audience: str) -> str:
    if audience not in AUDIENCES:
        raise ValueError(f"unknown audience {audience!r}")
    return audience


def shown_fields(audience: str, kind: str) -> tuple[str, ...]:
    """The fields of a record of `kind` (ITEM, GRADE, LABEL) that `audience` may see, in
    the order of FIELDS."""
    if _check(audience) == LEAD:
        return FIELDS[kind]
    allowed = _ASSESSOR_FIELDS[kind]
    return tuple(f for f in FIELDS[kind] if f in allowed)


def may_show(audience: str, kind: str, field: str) -> bool:
    return field in shown_fields(audience, kind)


def only_shown(audience: str, kind: str, record: dict) -> dict:
    """`record` with only the fields `audience` may see (a field of no kind is refused:
    a new field is decided here before any screen shows it)."""
    unknown = set(record) - set(FIELDS[kind])
    if unknown:
        raise ValueError(f"fields not decided in visibility.FIELDS: {sorted(unknown)}")
    keep = set(shown_fields(audience, kind))
    return {k: v for k, v in record.items() if k in keep}


# ---- per-system numbers and lead screens -----------------------------------------------


def scores_shown(audience: str, blind: bool) -> bool:
    """Per-system numbers (live scores while judging): a lead always; an assessor only on a
    campaign that is not blind."""
    return _check(audience) == LEAD or not blind


def campaign_scores_shown(db: "Database", audience: str) -> bool:
    """scores_shown with the campaign's blindness read now."""
    from workbench.campaign.settings import is_blind

    return scores_shown(audience, is_blind(db))


def lead_screens(audience: str) -> bool:
    """Whether the lead's screens (scores, agreement, disagreements, systems, calibration,
    machines...) exist in the app at all: for a lead only, never a key or palette entry
    away in an assessor's app."""
    return _check(audience) == LEAD


def require_lead(audience: str, what: str) -> None:
    """Refuse `what` (a lead's view: machine labels, every assessor's grades) to anyone else."""
    if not lead_screens(audience):
        raise NotShown(f"{what} is a lead's view; an assessor never sees it")


# ---- hidden repeats ---------------------------------------------------------------------

T = TypeVar("T")


def pair_blind(items: Sequence[T]) -> list[T]:
    """Nothing in sight may pair a hidden repeat with its first showing (DESIGN: blind to
    earlier grades on a repeat). While a query's queue holds a repeat not judged yet, no
    judged item of that query is listed by title (the titles would match the repeat's) or
    shows its grade: the first showing looks like every other judged item. Once the
    repeats are judged, everything shows again."""
    pending = {it.document for it in items if it.repeat and not it.judged}
    out = []
    for it in items:
        blind = bool(pending) and it.judged  # the first showing among them, like the rest
        out.append(it if (it.listed_blind, it.grade_hidden) == (blind, blind)
                   else replace(it, listed_blind=blind, grade_hidden=blind))
    return out


NOT_JUDGED, JUDGED, GRADED, CANT_JUDGE = "not judged", "judged", "graded", "can't judge"


def item_status(item) -> str:
    """What the item says about itself on an assessor's screen: NOT_JUDGED (nothing at
    all), CANT_JUDGE (their mark), JUDGED (settled, its grade hidden while a repeat is
    pending) or GRADED (their own grade shown). Never JUDGED for an item not judged."""
    if item.cant_judge:
        return CANT_JUDGE
    if not item.judged:
        return NOT_JUDGED
    return JUDGED if item.grade_hidden else GRADED


def list_label(item) -> str:
    """The text of the item's line in an assessor's queue list: its title once judged
    (unless a pending repeat could be paired with it: "judged"), else "not judged yet"."""
    if not item.judged:
        return "not judged yet"
    return "judged" if item.listed_blind else (item.title or item.document)
