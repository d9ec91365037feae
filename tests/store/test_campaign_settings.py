"""The campaign's settings row: blind by default, kept blind by the 0002 upgrade, changed
by `workbench campaign` (on every backend under test)."""

from __future__ import annotations

from sqlalchemy import text

from workbench.campaign.database import Database
from workbench.campaign.settings import campaign_settings, set_blind
from workbench.cli import main
from workbench.store.engine import make_engine
from workbench.store.schema import downgrade, head_revision, upgrade


def test_a_new_campaign_is_blind(db):
    settings = campaign_settings(db)
    assert settings.blind is True
    assert (settings.name, settings.relevance_threshold, settings.pool_depth) == ("campaign", 1, 10)


def test_upgrading_an_0001_campaign_keeps_it_blind(db_url):
    engine = make_engine(db_url)
    upgrade(engine, "0001")
    with engine.begin() as conn:
        conn.execute(text("UPDATE campaign SET name = 'trec8' WHERE id = 1"))
    upgrade(engine)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT name, blind FROM campaign")).all() == [("trec8", True)]
    downgrade(engine, "0001")
    with engine.connect() as conn:
        assert conn.execute(text("SELECT name FROM campaign")).all() == [("trec8",)]
    upgrade(engine)
    engine.dispose()
    db = Database.open(db_url)
    try:
        assert campaign_settings(db).blind is True
        assert set_blind(db, False).blind is False
        assert campaign_settings(db).name == "trec8"
    finally:
        db.close()
    assert head_revision() >= "0002"


def test_campaign_command_shows_and_changes_blindness(db_url, capsys):
    assert main(["init", "--db", db_url]) == 0
    capsys.readouterr()
    assert main(["campaign", "--db", db_url]) == 0
    out = capsys.readouterr().out
    assert "judging: blind (no per-system scores while judging)" in out
    assert main(["campaign", "--db", db_url, "--not-blind", "--name", "tuning week"]) == 0
    out = capsys.readouterr().out
    assert "name: tuning week\n" in out and "judging: NOT blind" in out
    db = Database.open(db_url)
    try:
        assert campaign_settings(db).blind is False
    finally:
        db.close()
    assert main(["campaign", "--db", db_url, "--blind"]) == 0
    assert "judging: blind" in capsys.readouterr().out
    assert main(["campaign", "--db", db_url, "--name", "  "]) == 2  # checked before any write
