"""The kinds of `judgment_event` rows: one enum, stored as its plain string value.

`EventKind` is a `StrEnum`, so a member compares equal to the string read back from the
database (`EventKind.SET == "set"`) and is written as that string: the stored values are
the ones every earlier version wrote. Which event a change gets is decided in one place,
campaign/judging/grades.py (`apply_grade`, `mark_item`, `unmark`, `undo_last`); the store
only writes and filters on these values.
"""

from __future__ import annotations

from enum import StrEnum


class EventKind(StrEnum):
    SET = "set"  # a first grade of the item
    CHANGE = "change"  # a new grade over an earlier one
    CLEAR = "clear"  # the grade removed (by `grade --clear`, or by a can't-judge mark)
    UNDO = "undo"  # `u`: reverts the event named in reverts_event_id; never undone in turn
    REPEAT = "repeat"  # the grade (or mark) given at a hidden repeat: the judgment is kept
    NOTE = "note"  # a note written on the item
    ADJUDICATE = "adjudicate"  # the lead's final grade
    CANT_JUDGE = "cant_judge"  # a "can't judge / broken document" mark
    CANT_JUDGE_CLEAR = "cant_judge_clear"  # that mark removed


# Events that change a grade and so can be undone.
GRADE_CHANGES = (EventKind.SET, EventKind.CHANGE, EventKind.CLEAR)
# What `u` steps back through, one event at a time: grades, marks and a repeat's grade.
UNDOABLE_ACTIONS = (*GRADE_CHANGES, EventKind.CANT_JUDGE, EventKind.CANT_JUDGE_CLEAR,
                    EventKind.REPEAT)
# The events that give a grade (pace, drift, agreement on repeats).
GRADE_KINDS = (EventKind.SET, EventKind.CHANGE, EventKind.REPEAT)

__all__ = ["EventKind", "GRADE_CHANGES", "GRADE_KINDS", "UNDOABLE_ACTIONS"]
