"""The judging lease: one judging session per assessor at a time, and the newest takes over.

The policy, the same for the terminal (`workbench judge`), the browser (`workbench serve`)
and `workbench grade`: opening a session takes the assessor's lease (table
`judging_session`, SQL in store/judging_sessions.py), and the session it took the lease
from stops at its next write or poll with a notice saying so ("another judging session for
ann took over: this one stops (nothing more is saved here)"). Every write checks, in its
own transaction, that its session still holds the lease and that the assessor still exists,
so a stale screen never overwrites or undoes the newer one's work and a removed assessor is
never re-created.

Why take-over and not refusal: the person who opens a second session is nearly always the
same person who left the first one behind (a laptop lid closed on a judging screen, a
browser tab on another machine, a terminal lost with its ssh connection). Refusing sends
them to find and close a window they may no longer reach, or to wait for a timeout; taking
over lets them go on at once, and the old window says why it stopped. Nothing is lost
either way: each grade is committed when given. (Before, a second terminal took over, a
second browser was refused with 409, and `grade` ignored the lease.) Two `grade` commands of
one assessor share the lease: a take-over stops a stale view, and a command shows none.

A lead's screens hold no lease (they adjudicate and read; a lead's own grades go through
the judging screen and its lease like anyone's).
"""

from __future__ import annotations

import os
import secrets
import socket
from collections.abc import Callable

from workbench.campaign.database import Database
from workbench.campaign.writing import write_transaction
from workbench.errors import WorkbenchError

POLICY = "take over"  # the newest session wins; the one taken over is told and stops


class SessionEnded(WorkbenchError):
    """The session cannot go on: its assessor was removed, or another session took over.
    Nothing of the write that found it out was saved."""


def removed_message(assessor: str) -> str:
    return (f"{assessor} was removed from this campaign: judging stops here "
            "(nothing more is saved)")


def taken_message(assessor: str, holder: str = "") -> str:
    """The notice of the session taken over (`holder`: where the newer one runs, shown only
    where it gives nothing of the server away)."""
    where = f" ({holder})" if holder else ""
    return (f"another judging session for {assessor} took over{where}: this one "
            "stops (nothing more is saved here)")


def took_over_message(assessor: str, holder: str = "") -> str:
    """The notice of the session that took over."""
    where = f" ({holder})" if holder else ""
    return f"took over {assessor}'s judging from another session{where}, which stops"


class JudgingLease:
    """One session's hold on an assessor's judging. `holder` says where the session runs
    (a host and pid, "a browser (workbench serve)", "workbench grade"); `show_holder`
    False keeps the other session's holder out of this one's messages (a browser: no
    server host names or pids)."""

    def __init__(self, db: Database, assessor: str, *, holder: str = "",
                 show_holder: bool = True, shared: bool = False) -> None:
        self.db = db
        # `shared`: sessions of this same holder share the lease (`workbench grade`: each
        # grade names its item, no view goes stale, so two commands never stop each other)
        self.shared = shared
        self.assessor = assessor
        self.token = secrets.token_hex(16)
        self.holder = holder or f"{socket.gethostname()} pid {os.getpid()}"
        self.show_holder = show_holder
        self.claimed = False

    def claim(self, *, on_wait: Callable[[], None] | None = None) -> str:
        """Take the assessor's lease (the session that held it stops at its next write or
        poll); returns where that session ran, or ""."""
        from workbench.store.external_ids import assessor_id
        from workbench.store.judging_sessions import take_lease
        from workbench.store.models import utcnow

        with write_transaction(self.db, on_wait=on_wait) as s:
            aid = assessor_id(s, self.assessor)
            if aid is None:
                raise SessionEnded(removed_message(self.assessor))
            before = take_lease(s, aid, self.token, self.holder, utcnow())
        self.claimed = True
        return before.holder if before is not None and before.token != self.token else ""

    def guard(self, session) -> int:
        """(inside a write transaction) The assessor's id, or SessionEnded when the
        assessor is gone or another session holds the lease: the write is not made."""
        from workbench.store.external_ids import assessor_id

        aid = assessor_id(session, self.assessor)
        if aid is None:
            raise SessionEnded(removed_message(self.assessor))
        ended = self._ended(session, aid)
        if ended:
            raise SessionEnded(ended)
        return aid

    def ended(self, session, aid: int | None) -> str:
        """(inside a read) Why this session stops ("" while it holds the lease, or before
        it claimed one)."""
        if aid is None:
            return removed_message(self.assessor)
        return self._ended(session, aid) if self.claimed else ""

    def _ended(self, session, aid: int) -> str:
        from workbench.store.judging_sessions import lease_of

        lease = lease_of(session, aid)
        if self.shared and (lease is None or lease.holder == self.holder):
            return ""
        if lease is None or lease.token != self.token:
            holder = lease.holder if lease is not None and self.show_holder else ""
            return taken_message(self.assessor, holder)
        return ""

    def release(self) -> None:
        """Give the lease back (the session closes); a newer session's lease stays."""
        if not self.claimed:
            return
        from workbench.store.external_ids import assessor_id
        from workbench.store.judging_sessions import drop_lease

        with write_transaction(self.db) as s:
            aid = assessor_id(s, self.assessor)
            if aid is not None:
                drop_lease(s, aid, self.token)
        self.claimed = False

    def took_over(self, before: str) -> str:
        """The notice for this session when its claim took the lease from `before`."""
        return took_over_message(self.assessor, before if self.show_holder else "") if before else ""


class CommandLease:
    """`workbench grade`'s session: the lease taken for the command's run (an open judging
    screen of the same assessor stops with the notice) and given back at its end; a grade
    after a judging screen took over stops the command. Two `grade` commands of one
    assessor share the lease (each grade names its item: nothing they show goes stale).
    `notice(text)` tells the user what was taken over. An assessor that does not exist yet
    holds no lease: nobody judges under it (its first grade creates it)."""

    HOLDER = "workbench grade"

    def __init__(self, db: Database, assessor: str,
                 notice: Callable[[str], None] = lambda text: None) -> None:
        self.lease = JudgingLease(db, assessor.strip(), holder=self.HOLDER, shared=True)
        self.notice = notice

    def __enter__(self) -> "CommandLease":
        from workbench.store.external_ids import assessor_id

        with self.lease.db.read() as s:
            exists = assessor_id(s, self.lease.assessor) is not None
        if exists:
            from workbench.errors import is_driver_error

            try:
                before = self.lease.claim()
            except Exception as exc:  # a database that refuses writes (read-only): each
                if not is_driver_error(exc):  # grade then says why it was not saved
                    raise
                return self
            if before and before != self.HOLDER:
                self.notice(self.lease.took_over(before))
        return self

    @property
    def guard(self):
        """The write guard for record_grade / mark_cant_judge (None: no lease held)."""
        return self.lease.guard if self.lease.claimed else None

    def __exit__(self, *exc) -> None:
        self.lease.release()
