"""What kind of file is this? Catching `import docs topics.tsv` before it imports nonsense.

The readers accept several layouts each, and some layouts overlap: a two-column TSV is a
valid topic file and a valid document file, and a JSON line with `title` and `text` reads
as a topic whose text is ignored. `guess_kind` looks at the first records and names the
kind they look like, with the reason; `check_kind` refuses a file whose guess is another
kind than the one asked for. A file that could be either stays accepted: the guess is only
made on clear evidence.

Evidence, in order:
- TREC SGML: `<DOC>` is documents, `<top>`/`<topic` is topics.
- Whitespace columns: `qid Q0 docno rank score tag` (6 fields, numeric rank and score) is a
  run; `qid iter docno grade` (4 fields, integer grade) is qrels.
- JSON lines: topic keys (`description`, `narrative`, `query`, `qid`, `topic_id`) say topics;
  document keys (`contents`, `body`, `url`, `docno`, `doc_id`, `pid`), or `text` beside
  `title`, say documents.
- TSV: a header naming `qid`/`query_id`/`topic_id` says topics, `docno`/`doc_id`/`pid` says
  documents.
- TSV with 4 columns: a URL (or nothing) in the second is documents (id, url, title, text),
  anything else topics (qid, title, description, narrative).
- Two columns, or JSON with only an id and a text: a median text of at least 25 words is
  documents (a query is a few words). Short texts say nothing: titles are documents too.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass

from workbench.errors import InputError
from workbench.formats.textlines import iter_lines

KINDS = ("queries", "documents", "run", "qrels")
_SAMPLE_LINES = 200
_SAMPLE_BLOCK = 1 << 16  # bytes per read while sampling (200 run lines are ~8 KB)
_TOPIC_KEYS = {"description", "desc", "narrative", "narr", "query", "qid", "query_id", "topic_id"}
_DOC_KEYS = {"contents", "body", "url", "docno", "doc_id", "docid", "pid"}
_TOPIC_HEADER = {"qid", "query_id", "topic_id"}
_DOC_HEADER = {"docno", "doc_id", "docid", "pid"}
_DOC_WORDS = 25
COMMAND = {"queries": "import queries", "documents": "import docs", "run": "import run",
           "qrels": "import qrels"}


@dataclass(frozen=True)
class Guess:
    kind: str  # one of KINDS
    reason: str
    line: int


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _sample(path: str) -> list[tuple[int, str]]:
    lines = []
    for number, line in iter_lines(path, _SAMPLE_BLOCK):
        if line.strip():
            lines.append((number, line))
        if len(lines) >= _SAMPLE_LINES:
            break
    return lines


def _long_texts(texts: list[str], line: int, what: str) -> Guess | None:
    """Documents when the texts are long (a query is a few words); short texts say
    nothing: a collection of titles or tweets is still documents."""
    import statistics  # (on use: it and its imports cost every `import` 6 ms)

    if texts and (words := statistics.median(len(t.split()) for t in texts)) >= _DOC_WORDS:
        return Guess("documents", f"{what} of {words:g} words (median)", line)
    return None


def guess_kind(path: str | os.PathLike) -> Guess | None:
    """The kind the first records of `path` clearly look like, or None (see the module)."""
    name = os.fspath(path)
    lines = _sample(name)
    if not lines:
        return None
    first_no, first = lines[0]
    head = first.lstrip().lower()
    if head.startswith("<doc"):
        return Guess("documents", "TREC <DOC> records", first_no)
    if head.startswith("<top") or head.startswith("<topic"):
        return Guess("queries", "TREC <top> topic records", first_no)
    if head.startswith("{"):
        return _guess_jsonl(lines)
    rows = [line.split() for _, line in lines]
    if all(len(f) == 6 and _is_number(f[3]) and _is_number(f[4]) for f in rows):
        return Guess("run", "6 columns `qid Q0 docno rank score tag`", first_no)
    if all(len(f) == 4 and f[3].lstrip("-").isdigit() for f in rows):
        return Guess("qrels", "4 columns `qid iter docno grade`", first_no)
    if "\t" not in first:
        return None
    cols = first.split("\t")
    label = cols[0].strip().lower()
    if label in _TOPIC_HEADER:
        return Guess("queries", f"a TSV header starting with {cols[0].strip()!r}", first_no)
    if label in _DOC_HEADER:
        return Guess("documents", f"a TSV header starting with {cols[0].strip()!r}", first_no)
    if all(len(line.split("\t")) == 4 for _, line in lines):
        urls = [line.split("\t")[1].strip() for _, line in lines]
        if all(u == "" or "://" in u or u.startswith("www.") for u in urls):
            return Guess("documents", "4 TSV columns with a URL second: id, url, title, text", first_no)
        return Guess("queries", "4 TSV columns without a URL second: qid, title, description, "
                     "narrative", first_no)
    if all(len(line.split("\t")) == 2 for _, line in lines):
        return _long_texts([line.split("\t")[1] for _, line in lines], first_no, "TSV texts")
    return None


def _guess_jsonl(lines: list[tuple[int, str]]) -> Guess | None:
    import json

    keys: set[str] = set()
    texts = []
    for _, line in lines:
        try:
            obj = json.loads(line)
        except (ValueError, RecursionError):
            break  # the reader will say where and why
        if not isinstance(obj, dict):
            break
        keys |= {str(k).lower() for k in obj}
        text = obj.get("text")
        if isinstance(text, str):
            texts.append(text)
    line = lines[0][0]
    if keys & _TOPIC_KEYS:
        return Guess("queries", f"JSON keys {', '.join(sorted(keys & _TOPIC_KEYS))}", line)
    if keys & _DOC_KEYS:
        return Guess("documents", f"JSON keys {', '.join(sorted(keys & _DOC_KEYS))}", line)
    if {"title", "text"} <= keys:
        return Guess("documents", "JSON keys title and text (a query has no text beside its title)", line)
    return _long_texts(texts, line, "JSON texts")


def check_kind(path: str | os.PathLike, expected: str) -> None:
    """Refuse a file that clearly looks like another kind than `expected` (one of KINDS):
    InputError naming the file, the line, what it looks like and the command for it. Only
    regular files are looked at (reading a pipe here would consume it)."""
    name = os.fspath(path)
    try:
        if not stat.S_ISREG(os.stat(name).st_mode):
            return
    except OSError:
        return  # the reader reports a missing or unreadable file
    guess = guess_kind(name)
    if guess is None or guess.kind == expected:
        return
    raise InputError(
        name, guess.line,
        f"this looks like {_a(guess.kind)}, not {_a(expected)} ({guess.reason}); "
        f"use `workbench {COMMAND[guess.kind]}`",
    )


def _a(kind: str) -> str:
    """A kind as a phrase: "a run", "a qrels file", but "documents", "queries"."""
    return {"run": "a run", "qrels": "a qrels file"}.get(kind, kind)
