"""Personal links of `workbench serve` (campaign/access/links.py), on every backend: the
token's size, only its sha256 stored, one live link per person, revoke, list, a removed
assessor's link."""

from __future__ import annotations

import hashlib

import pytest
from sqlalchemy import text

from workbench.campaign.access import links as L
from workbench.campaign.catalog.listing import remove
from workbench.errors import UsageError


def _stored(db) -> list[tuple]:
    with db.engine.connect() as conn:
        return [tuple(r) for r in conn.execute(text(
            "SELECT role, name, token_sha256, last_used_at, revoked_at FROM access_link ORDER BY id"))]


def test_a_token_has_256_bits_and_only_its_sha256_is_stored(db):
    token = L.new_link(db, assessor="alice")
    # token_urlsafe(32): 43 characters of 6 bits each = 256 bits of randomness
    assert len(token) == 43 and L.well_formed(token)
    rows = _stored(db)
    assert rows == [("assessor", "alice", hashlib.sha256(token.encode()).hexdigest(), None, None)]
    with db.engine.connect() as conn:  # the token itself is nowhere in the table
        dump = " ".join(str(v) for r in conn.execute(text("SELECT * FROM access_link")) for v in r)
    assert token not in dump
    grant = L.grant_for(db, L.digest(token))
    assert (grant.role, grant.name) == ("assessor", "alice")


def test_tokens_differ(db):
    assert len({L.new_link(db, assessor=f"a{i}") for i in range(20)}) == 20


def test_a_new_link_revokes_the_older_one(db):
    first = L.new_link(db, assessor="bob")
    second = L.new_link(db, assessor="bob")
    assert L.grant_for(db, L.digest(first)) is None
    assert L.grant_for(db, L.digest(second)).name == "bob"
    listed = L.links(db)
    assert [(x.name, x.revoked_at is not None) for x in listed] == [("bob", True), ("bob", False)]


def test_revoke_and_list_never_show_a_token(db):
    token = L.new_link(db, assessor="carol")
    lead = L.new_link(db, lead="lena")
    L.mark_used(db, L.grant_for(db, L.digest(token)))
    assert L.revoke(db, assessor="carol") == 1
    assert L.revoke(db, assessor="carol") == 0
    assert L.grant_for(db, L.digest(token)) is None
    assert L.grant_for(db, L.digest(lead)).role == "lead"
    listed = {(x.role, x.name): x for x in L.links(db)}
    assert listed[("assessor", "carol")].last_used_at is not None
    assert listed[("assessor", "carol")].revoked_at is not None
    assert listed[("lead", "lena")].last_used_at is None
    assert token not in repr(L.links(db)) and lead not in repr(L.links(db))


def test_a_removed_assessor_link_opens_nothing(db):
    token = L.new_link(db, assessor="dave")
    remove(db, "assessor", "dave", force=True)
    assert L.grant_for(db, L.digest(token)) is None


def test_exactly_one_person(db):
    with pytest.raises(UsageError):
        L.new_link(db)
    with pytest.raises(UsageError):
        L.new_link(db, assessor="a", lead="b")


@pytest.mark.parametrize("token", ["", "short", "x" * 43 + "/", "é" * 43, "a" * 65])
def test_malformed_tokens(token):
    assert not L.well_formed(token)
