"""The roster: who the assessors of a campaign are, of which kind, and the one rule for a
name a user typed.

Every entry point that takes an assessor's name (`judge`, `grade`, `queue`, `pool -a`,
`import qrels -a`, the TUI's start screen, `serve link -a`, the browser's app) asks this
module, so that a typo is refused with the same suggestion everywhere, a new person is
created only on purpose (`--new`, `--create`, a confirmed name on the start screen), and
nobody judges under a machine assessor's name (docs/architecture.md#one-owner-per-rule).

Kinds: a person (`HUMAN`), a machine assessor (`MACHINE`: autojudge or
`import qrels --machine`), a judge panel (`PANEL`: `panel:NAME`, derived from its
machines' labels, never stored as an assessor row).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from workbench.campaign.database import Database
from workbench.errors import NotFoundError, UsageError
from workbench.store.kinds import HUMAN, MACHINE

if TYPE_CHECKING:
    from workbench.store.database import Session

PANEL = "panel"
KINDS = (HUMAN, MACHINE, PANEL)

__all__ = ["HUMAN", "KINDS", "MACHINE", "PANEL", "Member", "check_assessor", "create_assessor",
           "get_or_create_assessor", "grading", "kinds", "known_assessor", "machine_refusal",
           "machines", "members", "panels", "people", "unknown_assessor", "with_work"]


@dataclass(frozen=True)
class Member:
    name: str
    kind: str  # HUMAN, MACHINE or PANEL


# ---- the list ---------------------------------------------------------------------------


def members(db: Database, *, panels: bool = True) -> list[Member]:
    """Every assessor of the campaign with its kind, by name: the people (but not a lead who
    only adjudicated), the machine assessors and (`panels`) the judge panels."""
    from workbench.store.judgment_arrays import assessors_not_only_adjudicating
    from workbench.store.machine import assessor_kinds

    with db.read() as s:
        all_kinds = assessor_kinds(s)
        names = assessors_not_only_adjudicating(s).names.tolist()
        found = [Member(n, all_kinds.get(n, HUMAN)) for n in names]
        if panels:
            from workbench.campaign.assessors.panels import PREFIX
            from workbench.store.panels import panel_definitions

            found += [Member(PREFIX + p.name, PANEL) for p in panel_definitions(s)]
    return sorted(found, key=lambda m: m.name)


def kinds(db: Database) -> dict[str, str]:
    """Every assessor row's kind (HUMAN or MACHINE) by name."""
    from workbench.store.machine import assessor_kinds

    with db.read() as s:
        return assessor_kinds(s)


def machines(db: Database) -> list[str]:
    """The machine assessors' names, by name: the hybrid sources a lead can choose, and the
    names nobody may judge under."""
    return sorted(n for n, kind in kinds(db).items() if kind == MACHINE)


def panels(db: Database) -> list[str]:
    """The judge panels' names (without `panel:`), by name: sources a lead can choose."""
    from workbench.campaign.assessors.panels import list_panels

    return [p.name for p in list_panels(db)]


def people(db: Database) -> list[str]:
    """The people of a consensus (majority, mean): every human assessor except a lead who
    only adjudicated, by name (machines count only where the lead names them)."""
    from workbench.store.judgment_arrays import assessors_not_only_adjudicating

    with db.read() as s:
        return assessors_not_only_adjudicating(s, people_only=True).names.tolist()


def grading(db: Database, *, machines: bool = False) -> list[str]:
    """Assessors with at least one current grade, by name (a lead who only adjudicated has
    nothing to agree or disagree with); people only unless `machines`."""
    from workbench.store.judgment_arrays import grading_assessors

    with db.read() as s:
        return grading_assessors(s, people_only=not machines)


def with_work(db: Database) -> list[str]:
    """The people with a queue or grades, by name: the names the start screen offers."""
    from workbench.store.queues import assessors_with_work

    with db.read() as s:
        return list(assessors_with_work(s))


# ---- a name the user typed --------------------------------------------------------------


def unknown_assessor(name: str) -> NotFoundError:
    """The error for a name that no assessor has (for callers that looked it up in bulk)."""
    return NotFoundError(f"unknown assessor {name!r}")


def known_assessor(session: "Session", name: str) -> int:
    """The assessor's id; unknown_assessor(name) raised when there is none."""
    from workbench.store.external_ids import assessor_id

    aid = assessor_id(session, name)
    if aid is None:
        raise unknown_assessor(name)
    return aid


def machine_refusal(name: str) -> str:
    """Why a person may not judge, grade or import under a machine assessor's name."""
    return (f"{name!r} is a machine assessor: its labels come from `workbench autojudge` "
            "or `import qrels --machine`; people judge under their own names")


def not_an_assessor(name: str, people: list[str], *, create: str = "pass --new") -> str:
    """The message for a name that is not an assessor of the pool, with the nearest name
    (`create`: how to create it on purpose where the message is shown)."""
    near = difflib.get_close_matches(name, people, n=1, cutoff=0.5)
    hint = (f"did you mean {near[0]!r}?" if near
            else f"the assessors are {', '.join(people)}" if people else "there are none yet")
    return (f"{name!r} is not an assessor of this campaign ({hint}); "
            f"the lead adds assessors with `workbench pool -a NAME`, or {create}")


def check_assessor(db: Database, name: str, *, new: bool = False,
                   create: str = "pass --new") -> None:
    """The named-assessor rule. A machine assessor's name is refused (UsageError). Once a
    pool exists, assessors come from the lead (`pool -a NAME`) or are created on purpose
    (`new`): a name that is not an assessor (a typo, a lead who only adjudicated) is refused
    (NotFoundError) naming the nearest assessor, so that it does not get the whole pool and
    count in the majority. Before any pool, names are free (a campaign judged from scratch)."""
    from workbench.store.judgment_arrays import assessors_not_only_adjudicating
    from workbench.store.machine import assessor_id_and_kind
    from workbench.store.queues import pool_size

    name = name.strip()
    with db.read() as s:
        found = assessor_id_and_kind(s, name) if name else None
        if found is not None and found[1] == MACHINE:
            raise UsageError(machine_refusal(name))
        if new or not pool_size(s):
            return
        known = assessors_not_only_adjudicating(s, people_only=True).names.tolist()
    if name not in known:
        raise NotFoundError(not_an_assessor(name, known, create=create))


def get_or_create_assessor(session: "Session", name: str, *, machine: bool = False) -> int:
    """The assessor's id; a new assessor row when the name is new. Every path that creates
    an assessor comes here: a new name is checked (workbench.names) before it is written
    (a name stored before the check existed still finds its row).

    A machine assessor's name is refused unless `machine` (its labels come from autojudge
    or `import qrels --machine` only): nobody judges, queues or imports as a machine, so
    its labels and provenance stay one configuration's."""
    from workbench.names import check_name
    from workbench.store.external_ids import add_assessor
    from workbench.store.machine import assessor_id_and_kind

    name = name.strip()
    found = assessor_id_and_kind(session, name) if name else None
    if found is not None:
        if found[1] == MACHINE and not machine:
            raise UsageError(machine_refusal(name))
        return found[0]
    return add_assessor(session, check_name(name))


def lead_row(session: "Session", name: str) -> int:
    """The lead's assessor row (adjudication records who decided), created on first use
    with its name checked; a lead who only adjudicated is not an assessor (see `members`)."""
    from workbench.names import check_name
    from workbench.store.external_ids import add_assessor, assessor_id

    found = assessor_id(session, name)
    return found if found is not None else add_assessor(session, check_name(name))


def create_assessor(db: Database, name: str, *, on_wait=None) -> None:
    """Create the person `name` on purpose (nothing when it exists; a machine's name is
    refused), waiting for other writers (`on_wait` as in writing.write_transaction)."""
    from workbench.campaign.writing import write_transaction

    with write_transaction(db, on_wait=on_wait) as s:
        get_or_create_assessor(s, name)
