"""Readers and writers of the files the workbench exchanges (pure: no database).

- ``workbench.formats.trec``: TREC qrels and run files (``read_qrels``, ``read_run``,
  ``write_qrels``, ``write_run``; containers ``Qrels`` and ``Run`` of numpy arrays).
- topics, documents and judgment files: see the other modules of this package.

Every reader raises ``workbench.errors.InputError(path, line, reason)`` on bad input.
Modules are imported explicitly (``from workbench.formats.trec import read_run``); this
package imports nothing, so that ``workbench eval`` stays light.
"""
