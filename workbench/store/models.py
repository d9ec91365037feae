"""The campaign's tables (docs/architecture.md#data-model). One database = one evaluation campaign.

External ids (`ext_id`, `tag`, `name`) are what users and files use; integer ids are
internal. Every grade change is appended to `judgment_event`, which is never updated.
"""

from __future__ import annotations

from datetime import datetime, timezone

from sqlalchemy import (
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    true,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from workbench.store.kinds import HUMAN

# Named constraints so that Alembic batch migrations can alter them later.
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


# A new campaign's settings: their one owner is workbench/defaults.py (importing nothing, so
# that campaign/settings.py and the commands read them without importing the models).
from workbench.defaults import (  # noqa: E402
    DEFAULT_COMPAT,
    DEFAULT_IDLE_CAP,
    DEFAULT_MEASURES,
    DEFAULT_POOL_DEPTH,
    DEFAULT_THRESHOLD,
)


class Campaign(Base):
    """Campaign-wide settings: a single row with id 1."""

    __tablename__ = "campaign"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200), default="campaign")
    # Grades >= threshold count as relevant for binary measures (trec_eval's -l).
    relevance_threshold: Mapped[int] = mapped_column(Integer, default=DEFAULT_THRESHOLD)
    # Space-separated measure names shown by default (live panel, scoreboard).
    default_measures: Mapped[str] = mapped_column(String(500), default=DEFAULT_MEASURES)
    pool_depth: Mapped[int] = mapped_column(Integer, default=DEFAULT_POOL_DEPTH)
    # Blind (the default): the judging screen shows no per-system number. A lead turns it
    # off for tuning sessions where the people judging own the systems (`workbench campaign`).
    blind: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true())
    # Campaign-wide judging guidelines (`workbench guidelines set FILE`), shown to assessors.
    guidelines: Mapped[str] = mapped_column(Text, default="", server_default="")
    # Seconds spent on one document count up to this cap: time above it is idle time (the
    # assessor left), not judging (`workbench campaign --idle-cap SECONDS`).
    idle_cap_seconds: Mapped[int] = mapped_column(Integer, default=DEFAULT_IDLE_CAP,
                                                  server_default=str(DEFAULT_IDLE_CAP))
    # The trec_eval version whose score order the stored runs follow: 10 compares scores
    # as doubles, 9 as floats (`workbench campaign --compat`; store/run_arrays.resort_runs).
    score_compat: Mapped[int] = mapped_column(Integer, default=DEFAULT_COMPAT,
                                              server_default=str(DEFAULT_COMPAT))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ScaleLevel(Base):
    """One level of the relevance scale, e.g. 0 'Not relevant' ... 3 'Highly relevant'."""

    __tablename__ = "scale_level"

    grade: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    label: Mapped[str] = mapped_column(String(100))
    description: Mapped[str] = mapped_column(Text, default="")


class Query(Base):
    __tablename__ = "query"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    ext_id: Mapped[str] = mapped_column(String(200), unique=True)
    title: Mapped[str] = mapped_column(Text, default="")
    description: Mapped[str] = mapped_column(Text, default="")
    narrative: Mapped[str] = mapped_column(Text, default="")


class Document(Base):
    __tablename__ = "document"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    ext_id: Mapped[str] = mapped_column(String(200), unique=True)
    title: Mapped[str] = mapped_column(Text, default="")
    text: Mapped[str] = mapped_column(Text, default="")
    url: Mapped[str | None] = mapped_column(Text, nullable=True)


class System(Base):
    """A retrieval system, identified by its run tag."""

    __tablename__ = "system"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    tag: Mapped[str] = mapped_column(String(200), unique=True)
    description: Mapped[str] = mapped_column(Text, default="")


class RunArrays(Base):
    """A system's results as arrays, in trec_eval 10's order (query, score desc as double,
    docno desc): the one stored copy of a run (store/run_arrays.py). Since revision 0005
    there is no row per result: runs do not change after import, and every reader wants
    them whole, as arrays."""

    __tablename__ = "run_arrays"

    system_id: Mapped[int] = mapped_column(
        ForeignKey("system.id", ondelete="CASCADE"), primary_key=True
    )
    encoding: Mapped[int] = mapped_column(Integer)
    # A 40-bit digest of the arrays: a reader that kept the runs in memory compares the sum
    # over all systems (runs_token) to know whether any run changed since.
    generation: Mapped[int] = mapped_column(BigInteger)
    n_rows: Mapped[int] = mapped_column(Integer)
    query_ids: Mapped[bytes] = mapped_column(LargeBinary)  # int32 little-endian
    document_ids: Mapped[bytes] = mapped_column(LargeBinary)  # int32 little-endian
    scores: Mapped[bytes] = mapped_column(LargeBinary)  # float64 little-endian


class Assessor(Base):
    """A person (`human`, the default) or a model (`machine`, with its `MachineProvenance`)."""

    __tablename__ = "assessor"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    kind: Mapped[str] = mapped_column(String(10), default=HUMAN, server_default=HUMAN)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class MachineProvenance(Base):
    """How a machine assessor's labels were made: one row per machine assessor, written
    when it is created and never changed (another prompt or model is another assessor).

    `endpoint` is the base URL without credentials ('' for imported labels); `prompt` is
    the full template and `prompt_sha256` its digest ('' when none was given); `parameters`
    is JSON (temperature, max_tokens, seed, ...); `origin` says where the labels came from
    (`autojudge`, or `import FILE`); `version` is the workbench version that made them.
    No API key is ever stored."""

    __tablename__ = "machine_provenance"

    assessor_id: Mapped[int] = mapped_column(
        ForeignKey("assessor.id", ondelete="CASCADE"), primary_key=True
    )
    model: Mapped[str] = mapped_column(String(200))
    endpoint: Mapped[str] = mapped_column(Text, default="")
    prompt: Mapped[str] = mapped_column(Text, default="")
    prompt_sha256: Mapped[str] = mapped_column(String(64), default="")
    parameters: Mapped[str] = mapped_column(Text, default="{}")
    origin: Mapped[str] = mapped_column(Text, default="autojudge")
    version: Mapped[str] = mapped_column(String(50), default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class MachineCall(Base):
    """Every call a machine assessor made, kept for audit (`export judgments --history`):
    the raw answer and its outcome, `label` (the grade it gave, also written as a judgment)
    or `failure` (no grade in the answer, or the call failed: `error` says why, `raw` keeps
    what came back). Append-only."""

    __tablename__ = "machine_call"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    assessor_id: Mapped[int] = mapped_column(ForeignKey("assessor.id", ondelete="CASCADE"))
    query_id: Mapped[int] = mapped_column(ForeignKey("query.id", ondelete="CASCADE"))
    document_id: Mapped[int] = mapped_column(ForeignKey("document.id", ondelete="CASCADE"))
    outcome: Mapped[str] = mapped_column(String(10))
    grade: Mapped[int | None] = mapped_column(Integer, nullable=True)
    raw: Mapped[str] = mapped_column(Text, default="")
    error: Mapped[str] = mapped_column(Text, default="")
    attempts: Mapped[int] = mapped_column(Integer, default=1)
    seconds: Mapped[float] = mapped_column(Float, default=0.0)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    # sha256 of (model, messages, parameters, sample index): what `autojudge --offline`
    # replays by (campaign/machine/replay.py); None for calls made before it was kept
    call_key: Mapped[str | None] = mapped_column(String(64), nullable=True)
    sample: Mapped[int | None] = mapped_column(Integer, nullable=True)  # 0..N-1 with --samples N

    __table_args__ = (
        Index("ix_machine_call_item", "assessor_id", "query_id", "document_id"),
        Index("ix_machine_call_call_key", "call_key"),
    )


class Judgment(Base):
    """An assessor's current grade for a (query, document)."""

    __tablename__ = "judgment"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    query_id: Mapped[int] = mapped_column(ForeignKey("query.id", ondelete="CASCADE"))
    document_id: Mapped[int] = mapped_column(ForeignKey("document.id", ondelete="CASCADE"))
    assessor_id: Mapped[int] = mapped_column(ForeignKey("assessor.id", ondelete="CASCADE"))
    grade: Mapped[int] = mapped_column(Integer)
    note: Mapped[str] = mapped_column(Text, default="")
    seconds: Mapped[float] = mapped_column(Float, default=0.0)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    __table_args__ = (
        UniqueConstraint("query_id", "document_id", "assessor_id"),
        Index("ix_judgment_assessor_query", "assessor_id", "query_id"),
    )


class JudgmentEvent(Base):
    """Append-only history of every change: set, change, clear, note, repeat, adjudicate.

    `old_grade`/`new_grade` are NULL where there was or is no grade. A `repeat` event is a
    second, blind grade of an already judged document (self-consistency); it does not change
    the judgment. An `adjudicate` event is a lead's final grade (see `Adjudication`).
    """

    __tablename__ = "judgment_event"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    query_id: Mapped[int] = mapped_column(ForeignKey("query.id", ondelete="CASCADE"))
    document_id: Mapped[int] = mapped_column(ForeignKey("document.id", ondelete="CASCADE"))
    assessor_id: Mapped[int] = mapped_column(ForeignKey("assessor.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(20))
    old_grade: Mapped[int | None] = mapped_column(Integer, nullable=True)
    new_grade: Mapped[int | None] = mapped_column(Integer, nullable=True)
    note: Mapped[str] = mapped_column(Text, default="")
    seconds: Mapped[float] = mapped_column(Float, default=0.0)
    # For an undo: the id of the event it reverts.
    reverts_event_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    __table_args__ = (
        Index("ix_judgment_event_item", "query_id", "document_id", "assessor_id"),
        Index("ix_judgment_event_assessor", "assessor_id", "id"),
    )


class Adjudication(Base):
    """A lead's final grade for a (query, document), used by the 'adjudicated' qrels."""

    __tablename__ = "adjudication"

    query_id: Mapped[int] = mapped_column(
        ForeignKey("query.id", ondelete="CASCADE"), primary_key=True
    )
    document_id: Mapped[int] = mapped_column(
        ForeignKey("document.id", ondelete="CASCADE"), primary_key=True
    )
    grade: Mapped[int] = mapped_column(Integer)
    adjudicator_id: Mapped[int] = mapped_column(ForeignKey("assessor.id", ondelete="CASCADE"))
    note: Mapped[str] = mapped_column(Text, default="")
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class CantJudge(Base):
    """An assessor's "can't judge / broken document" mark on a (query, document): its own
    state, not a grade (no qrels, no measure sees it). It settles the document in that
    assessor's queue. The current marks live here; every mark and unmark is also appended
    to `judgment_event` (kinds `cant_judge`, `cant_judge_clear`), so the history is kept."""

    __tablename__ = "cant_judge"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    query_id: Mapped[int] = mapped_column(ForeignKey("query.id", ondelete="CASCADE"))
    document_id: Mapped[int] = mapped_column(ForeignKey("document.id", ondelete="CASCADE"))
    assessor_id: Mapped[int] = mapped_column(ForeignKey("assessor.id", ondelete="CASCADE"))
    reason: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    __table_args__ = (
        UniqueConstraint("query_id", "document_id", "assessor_id"),
        Index("ix_cant_judge_assessor_query", "assessor_id", "query_id"),
    )


class JudgingLease(Base):
    """The one open judging session of an assessor (campaign/judging/session.py): the
    newest screen (terminal or browser) holds it; every write of a session checks it holds
    it, so an older screen cannot overwrite or undo the newer one's work. Removing the
    assessor removes it."""

    __tablename__ = "judging_session"

    assessor_id: Mapped[int] = mapped_column(
        ForeignKey("assessor.id", ondelete="CASCADE"), primary_key=True
    )
    token: Mapped[str] = mapped_column(String(64))
    holder: Mapped[str] = mapped_column(String(200), default="")  # where: "host pid 123"
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class AccessLink(Base):
    """A personal link of `workbench serve`: who it opens the app for (an assessor's judging
    screen, or the lead's screens) and the sha256 of its token; the token itself is never
    stored. A revoked link stays listed (`revoked_at`) and opens nothing."""

    __tablename__ = "access_link"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    role: Mapped[str] = mapped_column(String(16))  # 'assessor' | 'lead'
    name: Mapped[str] = mapped_column(String(200))
    assessor_id: Mapped[int | None] = mapped_column(
        ForeignKey("assessor.id", ondelete="CASCADE"), nullable=True
    )
    token_sha256: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    last_used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)

    __table_args__ = (Index("ix_access_link_role_name", "role", "name"),)


class Leaderboard(Base):
    """An imported leaderboard (`workbench import leaderboard`, the source
    `leaderboard:NAME`): values of measures per run and topic from a file, not from the
    campaign's judgments."""

    __tablename__ = "leaderboard"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    format: Mapped[str] = mapped_column(String(16))
    source_file: Mapped[str] = mapped_column(String(1000), default="")
    imported_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class LeaderboardValue(Base):
    """One value of a leaderboard: run, topic (`all` = the run's summary), measure."""

    __tablename__ = "leaderboard_value"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    leaderboard_id: Mapped[int] = mapped_column(ForeignKey("leaderboard.id", ondelete="CASCADE"))
    run: Mapped[str] = mapped_column(String(200))
    topic: Mapped[str] = mapped_column(String(200))
    measure: Mapped[str] = mapped_column(String(100))
    value: Mapped[float] = mapped_column(Float)

    __table_args__ = (UniqueConstraint("leaderboard_id", "run", "topic", "measure"),)


class Panel(Base):
    """A judge panel (`workbench panel create`): a virtual machine assessor whose labels
    are derived, when read, from its members' stored labels (never stored themselves)."""

    __tablename__ = "panel"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    aggregate: Mapped[str] = mapped_column(String(16))  # majority | median | mean | dawid-skene
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class PanelMember(Base):
    __tablename__ = "panel_member"

    panel_id: Mapped[int] = mapped_column(ForeignKey("panel.id", ondelete="CASCADE"), primary_key=True)
    assessor_id: Mapped[int] = mapped_column(ForeignKey("assessor.id", ondelete="CASCADE"), primary_key=True)
    position: Mapped[int] = mapped_column(Integer, default=0)


class PoolEntry(Base):
    """A (query, document) pair in the judging pool; `best_rank` is its best rank in any run."""

    __tablename__ = "pool_entry"

    query_id: Mapped[int] = mapped_column(
        ForeignKey("query.id", ondelete="CASCADE"), primary_key=True
    )
    document_id: Mapped[int] = mapped_column(
        ForeignKey("document.id", ondelete="CASCADE"), primary_key=True
    )
    best_rank: Mapped[int] = mapped_column(Integer, default=0)


class PoolPlan(Base):
    """How the campaign pools (`workbench pool --method`): a single row with id 1.

    `method` is depth, mtf or bandit; `depth` cuts the runs (None: whole runs, for the
    adaptive methods); `budget` caps the pooled documents over all queries (None: no cap);
    `seed` makes the adaptive choices and the queues reproducible; `overlap` and `repeat`
    are the assignment's split and hidden-repeat shares, applied as an adaptive queue grows."""

    __tablename__ = "pool_plan"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    method: Mapped[str] = mapped_column(String(20), default="depth", server_default="depth")
    depth: Mapped[int | None] = mapped_column(Integer, nullable=True)
    budget: Mapped[int | None] = mapped_column(Integer, nullable=True)
    seed: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    overlap: Mapped[float | None] = mapped_column(Float, nullable=True)
    repeat: Mapped[float] = mapped_column(Float, default=0.0, server_default="0")


class Assignment(Base):
    """An item in an assessor's queue, in the order shown (`position`, per query).

    `repeat` marks a hidden second showing of an already assigned document.
    """

    __tablename__ = "assignment"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    assessor_id: Mapped[int] = mapped_column(ForeignKey("assessor.id", ondelete="CASCADE"))
    query_id: Mapped[int] = mapped_column(ForeignKey("query.id", ondelete="CASCADE"))
    document_id: Mapped[int] = mapped_column(ForeignKey("document.id", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(Integer)
    repeat: Mapped[bool] = mapped_column(Boolean, default=False)

    __table_args__ = (
        UniqueConstraint("assessor_id", "query_id", "position"),
        Index("ix_assignment_assessor_query", "assessor_id", "query_id", "position"),
    )


class EventArchive(Base):
    """The judgment events of a removed query or assessor, kept by external names (the
    rows they pointed to are gone). `removed` says what was removed: `query 401`,
    `assessor bob`."""

    __tablename__ = "event_archive"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    query: Mapped[str] = mapped_column(String(200))
    document: Mapped[str] = mapped_column(String(200))
    assessor: Mapped[str] = mapped_column(String(200))
    kind: Mapped[str] = mapped_column(String(20))
    old_grade: Mapped[int | None] = mapped_column(Integer, nullable=True)
    new_grade: Mapped[int | None] = mapped_column(Integer, nullable=True)
    note: Mapped[str] = mapped_column(Text, default="")
    seconds: Mapped[float] = mapped_column(Float, default=0.0)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    removed: Mapped[str] = mapped_column(String(250))
    removed_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ValidationItem(Base):
    """An item that `pool --validate MACHINE` chose for people to judge, so that the
    machine's labels can be checked (`workbench calibrate`). `strategy` is stratified or
    disagreement; `stratum` the machine's grade when sampled; `inclusion_probability` the
    chance the stratified design had of choosing the item (None for a disagreement sample,
    which is no probability sample). The assessors' queues hold the item like any other:
    nothing here is ever shown to them."""

    __tablename__ = "validation_item"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    machine_id: Mapped[int] = mapped_column(ForeignKey("assessor.id", ondelete="CASCADE"))
    query_id: Mapped[int] = mapped_column(ForeignKey("query.id", ondelete="CASCADE"))
    document_id: Mapped[int] = mapped_column(ForeignKey("document.id", ondelete="CASCADE"))
    strategy: Mapped[str] = mapped_column(String(20))
    stratum: Mapped[int | None] = mapped_column(Integer, nullable=True)
    inclusion_probability: Mapped[float | None] = mapped_column(Float, nullable=True)
    seed: Mapped[int] = mapped_column(BigInteger, default=0)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    __table_args__ = (
        UniqueConstraint("machine_id", "query_id", "document_id"),
    )


# --- generated answers and their nuggets (docs/nuggets.md) -------------------------------


class Answer(Base):
    """A system's generated answer to a topic: stored once, never edited (`import answers`).

    `sentences` is JSON, in order: `[{"text": str, "citations": [int]}]`, each citation a
    zero-based index into `refs` (JSON list of segment or document ids, as the file gave
    them). `length` is the answer's length in words. `shape` is the file shape it came in
    (`rag24`, `rag25`), `cites_by_id` whether the file cited by segment id, and `meta` the
    record's other fields (JSON), so that `export answers` writes the record back."""

    __tablename__ = "answer"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    system_id: Mapped[int] = mapped_column(ForeignKey("system.id", ondelete="CASCADE"))
    query_id: Mapped[int] = mapped_column(ForeignKey("query.id", ondelete="CASCADE"))
    sentences: Mapped[str] = mapped_column(Text)
    refs: Mapped[str] = mapped_column(Text, default="[]")
    length: Mapped[int] = mapped_column(Integer, default=0)
    shape: Mapped[str] = mapped_column(String(10), default="rag24")
    cites_by_id: Mapped[bool] = mapped_column(Boolean, default=False)
    meta: Mapped[str] = mapped_column(Text, default="{}")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    __table_args__ = (UniqueConstraint("system_id", "query_id"),)


class NuggetBank(Base):
    """A topic's nugget bank: frozen, it refuses edits and new nuggets."""

    __tablename__ = "nugget_bank"

    query_id: Mapped[int] = mapped_column(
        ForeignKey("query.id", ondelete="CASCADE"), primary_key=True
    )
    frozen: Mapped[bool] = mapped_column(Boolean, default=False)
    frozen_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class Nugget(Base):
    """An atomic fact a good answer to the topic holds. `importance` is vital or okay;
    `position` its order in the bank; `origin` human, machine or edited (a person changed a
    machine's nugget); `machine_id` the machine assessor (with its MachineProvenance) that
    wrote it; `sources` the documents it came from (JSON list of ids)."""

    __tablename__ = "nugget"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    query_id: Mapped[int] = mapped_column(ForeignKey("query.id", ondelete="CASCADE"))
    text: Mapped[str] = mapped_column(Text)
    importance: Mapped[str] = mapped_column(String(10), default="okay")
    position: Mapped[int] = mapped_column(Integer)
    origin: Mapped[str] = mapped_column(String(10), default=HUMAN)
    machine_id: Mapped[int | None] = mapped_column(
        ForeignKey("assessor.id", ondelete="SET NULL"), nullable=True
    )
    sources: Mapped[str] = mapped_column(Text, default="[]")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    __table_args__ = (Index("ix_nugget_query_position", "query_id", "position"),)


class NuggetAssignment(Base):
    """An assessor's current label of a nugget in a system's answer to the topic: `label`
    2 support, 1 partial_support, 0 not_support (the keys of the assignment screen)."""

    __tablename__ = "nugget_assignment"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    query_id: Mapped[int] = mapped_column(ForeignKey("query.id", ondelete="CASCADE"))
    system_id: Mapped[int] = mapped_column(ForeignKey("system.id", ondelete="CASCADE"))
    nugget_id: Mapped[int] = mapped_column(ForeignKey("nugget.id", ondelete="CASCADE"))
    assessor_id: Mapped[int] = mapped_column(ForeignKey("assessor.id", ondelete="CASCADE"))
    label: Mapped[int] = mapped_column(Integer)
    note: Mapped[str] = mapped_column(Text, default="")
    seconds: Mapped[float] = mapped_column(Float, default=0.0)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    __table_args__ = (
        UniqueConstraint("nugget_id", "system_id", "assessor_id"),
        Index("ix_nugget_assignment_assessor", "assessor_id", "query_id", "system_id"),
    )


class NuggetEvent(Base):
    """Append-only history of every nugget assignment change, as `judgment_event` is for
    grades: kinds set, change, clear, note, undo (`reverts_event_id`), and `failure` (a
    machine's answer that held no label for the nugget: never a label; `note` says why)."""

    __tablename__ = "nugget_event"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    query_id: Mapped[int] = mapped_column(ForeignKey("query.id", ondelete="CASCADE"))
    system_id: Mapped[int] = mapped_column(ForeignKey("system.id", ondelete="CASCADE"))
    nugget_id: Mapped[int] = mapped_column(ForeignKey("nugget.id", ondelete="CASCADE"))
    assessor_id: Mapped[int] = mapped_column(ForeignKey("assessor.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(20))
    old_label: Mapped[int | None] = mapped_column(Integer, nullable=True)
    new_label: Mapped[int | None] = mapped_column(Integer, nullable=True)
    note: Mapped[str] = mapped_column(Text, default="")
    seconds: Mapped[float] = mapped_column(Float, default=0.0)
    reverts_event_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    __table_args__ = (
        Index("ix_nugget_event_item", "nugget_id", "system_id", "assessor_id"),
        Index("ix_nugget_event_assessor", "assessor_id", "id"),
    )


class NuggetEventArchive(Base):
    """The nugget events of a removed run, kept by external names (`removed`: `run TAG`)."""

    __tablename__ = "nugget_event_archive"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    query: Mapped[str] = mapped_column(String(200))
    run: Mapped[str] = mapped_column(String(200))
    nugget: Mapped[str] = mapped_column(Text)
    assessor: Mapped[str] = mapped_column(String(200))
    kind: Mapped[str] = mapped_column(String(20))
    old_label: Mapped[int | None] = mapped_column(Integer, nullable=True)
    new_label: Mapped[int | None] = mapped_column(Integer, nullable=True)
    note: Mapped[str] = mapped_column(Text, default="")
    seconds: Mapped[float] = mapped_column(Float, default=0.0)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    removed: Mapped[str] = mapped_column(String(250))
    removed_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class AnswerQueue(Base):
    """An answer in an assessor's queue of answers to label (`pool --answers`), in the
    order shown (`position`, over all topics)."""

    __tablename__ = "answer_queue"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    assessor_id: Mapped[int] = mapped_column(ForeignKey("assessor.id", ondelete="CASCADE"))
    answer_id: Mapped[int] = mapped_column(ForeignKey("answer.id", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(Integer)

    __table_args__ = (
        UniqueConstraint("assessor_id", "answer_id"),
        Index("ix_answer_queue_assessor_position", "assessor_id", "position"),
    )
