from sqlalchemy import func, select

from workbench.campaign.judging.grades import record_grade, undo_last
from workbench.store.models import Document, Judgment, JudgmentEvent, Query


def test_grade_and_undo_roundtrip(db):
    with db.write.begin() as s:
        s.add_all([Query(ext_id="q1"), Document(ext_id="d1")])
    assert record_grade(db, "ann", "q1", "d1", 2).kind == "set"
    assert record_grade(db, "ann", "q1", "d1", 3).old_grade == 2
    undo = undo_last(db, "ann")
    assert (undo.old_grade, undo.new_grade) == (3, 2)
    with db.read() as s:
        assert s.scalar(select(Judgment.grade)) == 2
        assert s.scalar(select(func.count()).select_from(JudgmentEvent)) == 3
