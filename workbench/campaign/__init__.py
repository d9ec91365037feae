"""Use cases on top of the store: import, pooling, judging, qrels, scoring, agreement.

The TUI and the CLI call these; they pass plain records (dataclasses), never ORM rows.
"""
