"""Readers and writers of the answers domain's files (docs/nuggets.md#file-formats), pure:
errors are InputError(file, line, reason).

- answers: TREC RAG 2024 (`run_id`, `topic_id`, `references`, `answer: [{text,
  citations: [int]}]`, citations zero-based indexes into `references`) and TREC RAG 2025
  (`metadata.run_id`, `metadata.narrative_id`, citations indexes or segment ids);
- nuggets: nuggetizer's create output `{qid, query, nuggets: [{text, importance}]}`;
- assignments: nuggetizer's assign output `{qid, run_id, nuggets: [{text, importance,
  assignment}]}`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field

from workbench.errors import InputError
from workbench.formats.textlines import iter_lines

IMPORTANCE = ("vital", "okay")
LABELS = {"support": 2, "partial_support": 1, "not_support": 0}
LABEL_NAMES = {v: k for k, v in LABELS.items()}


@dataclass
class AnswerRecord:
    line: int
    run: str
    topic: str
    sentences: list  # [{"text", "citations": [int index]}]
    references: list
    shape: str  # rag24 | rag25
    cites_by_id: bool
    meta: dict = field(default_factory=dict)

    @property
    def length(self) -> int:
        return sum(len(s["text"].split()) for s in self.sentences)


@dataclass
class NuggetRecord:
    line: int
    qid: str
    query: str | None
    nuggets: list  # [(text, importance, label name or None)]
    run: str | None = None
    extra: dict = field(default_factory=dict)


def _records(path: str) -> Iterator[tuple[int, dict]]:
    for number, text in iter_lines(path):
        if not text.strip():
            continue
        try:
            record = json.loads(text)
        except ValueError as exc:
            raise InputError(path, number, f"not a JSON line ({exc.msg})") from None
        if not isinstance(record, dict):
            raise InputError(path, number, "expected a JSON object")
        yield number, record


def _id(path, line, value, what: str) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int)) or str(value).strip() == "":
        raise InputError(path, line, f"{what} must be a non-empty string or number")
    return str(value).strip()


def read_answers(path: str) -> list[AnswerRecord]:
    """Every answer record of a TREC RAG 2024 or 2025 JSONL file."""
    out = []
    for line, record in _records(path):
        meta = {k: v for k, v in record.items() if k not in ("answer", "references")}
        if isinstance(record.get("metadata"), dict) and "run_id" in record["metadata"]:
            shape = "rag25"
            md = record["metadata"]
            run = _id(path, line, md.get("run_id"), "metadata.run_id")
            topic = _id(path, line, md.get("narrative_id", md.get("topic_id")), "metadata.narrative_id")
        elif "run_id" in record and "topic_id" in record:
            shape = "rag24"
            run = _id(path, line, record["run_id"], "run_id")
            topic = _id(path, line, record["topic_id"], "topic_id")
        else:
            raise InputError(path, line, "not a TREC RAG answer record: expected run_id, topic_id "
                             "and answer (2024) or metadata.run_id, metadata.narrative_id (2025)")
        refs = record.get("references", [])
        if not isinstance(refs, list) or not all(isinstance(r, str) for r in refs):
            raise InputError(path, line, "references must be a list of segment ids (strings)")
        answer = record.get("answer")
        if not isinstance(answer, list):
            raise InputError(path, line, "answer must be a list of {text, citations}")
        position = {r: i for i, r in reversed(list(enumerate(refs)))}
        sentences, kinds = [], set()
        for k, sentence in enumerate(answer):
            if not isinstance(sentence, dict):
                raise InputError(path, line, f"answer sentence {k} is not an object")
            text = sentence.get("text")
            if not isinstance(text, str) or not text.strip():
                raise InputError(path, line, f"answer sentence {k} has no text")
            cites = sentence.get("citations", [])
            if not isinstance(cites, list):
                raise InputError(path, line, f"answer sentence {k}: citations must be a list")
            indexes = []
            for c in cites:
                if isinstance(c, int) and not isinstance(c, bool):
                    if not 0 <= c < len(refs):
                        raise InputError(path, line, f"answer sentence {k}: citation {c} is outside "
                                         f"references (0..{len(refs) - 1})")
                    indexes.append(c)
                    kinds.add("index")
                elif isinstance(c, str) and shape == "rag25":
                    if c not in position:
                        raise InputError(path, line, f"answer sentence {k}: citation {c!r} is not in references")
                    indexes.append(position[c])
                    kinds.add("id")
                else:
                    raise InputError(path, line, f"answer sentence {k}: citation {c!r} is not an index"
                                     + (" or a segment id" if shape == "rag25" else ""))
            sentences.append({"text": text, "citations": indexes})
        if len(kinds) > 1:
            raise InputError(path, line, "citations mix indexes and segment ids")
        out.append(AnswerRecord(line, run, topic, sentences, refs, shape, kinds == {"id"}, meta))
    return out


def answer_record(shape: str, cites_by_id: bool, meta: dict, sentences: list, references: list) -> dict:
    """The file's record of a stored answer (read_answers' inverse)."""
    answer = [{"text": s["text"], "citations": [references[c] for c in s["citations"]]
               if cites_by_id else list(s["citations"])} for s in sentences]
    return {**meta, "references": list(references), "answer": answer}


def _nugget_list(path, line, record, with_label: bool) -> list:
    items = record.get("nuggets")
    if not isinstance(items, list):
        raise InputError(path, line, "nuggets must be a list of {text, importance}")
    try:  # the common case in one comprehension (900 000 nuggets: 1.5 s less than a loop)
        out = [(n["text"], n.get("importance", "okay"), n.get("assignment") if with_label else None)
               for n in items]
    except (TypeError, KeyError, AttributeError):
        out = None
    if out is None or not all(type(t) is str and t.strip() and imp in IMPORTANCE for t, imp, _ in out):
        for k, n in enumerate(items):
            if not isinstance(n, dict) or not isinstance(n.get("text"), str) or not n["text"].strip():
                raise InputError(path, line, f"nugget {k} has no text")
            if n.get("importance", "okay") not in IMPORTANCE:
                raise InputError(path, line, f"nugget {k}: importance {n.get('importance')!r} is not vital or okay")
    if len({t for t, _, _ in out}) != len(out):
        raise InputError(path, line, "the same nugget text twice in one record")
    return out


def read_nuggets(path: str) -> list[NuggetRecord]:
    """nuggetizer's create output: one topic's nuggets per line."""
    out = []
    for line, record in _records(path):
        if "qid" not in record or "nuggets" not in record:
            raise InputError(path, line, "not a nugget record: expected qid and nuggets")
        if "run_id" in record:
            raise InputError(path, line, "this is an assignment record (it has run_id): "
                             "use `import assignments`")
        query = record.get("query")
        out.append(NuggetRecord(line, _id(path, line, record["qid"], "qid"),
                                query if isinstance(query, str) else None,
                                _nugget_list(path, line, record, False)))
    return out


def read_assignments(path: str) -> list[NuggetRecord]:
    """nuggetizer's assign output: one (topic, run) per line. A label other than support,
    partial_support, not_support is kept as given (the caller decides: an error for a
    person, a recorded failure for a machine)."""
    out = []
    for line, record in _records(path):
        if "qid" not in record or "run_id" not in record or "nuggets" not in record:
            raise InputError(path, line, "not an assignment record: expected qid, run_id and nuggets")
        query = record.get("query")
        extra = {k: v for k, v in record.items() if k not in ("qid", "run_id", "query", "nuggets")}
        out.append(NuggetRecord(line, _id(path, line, record["qid"], "qid"),
                                query if isinstance(query, str) else None,
                                _nugget_list(path, line, record, True),
                                run=_id(path, line, record["run_id"], "run_id"), extra=extra))
    return out


def write_jsonl(out, records) -> None:
    for record in records:
        out.write(json.dumps(record, ensure_ascii=False) + "\n")
