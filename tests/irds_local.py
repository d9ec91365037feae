"""Local ir_datasets datasets for the offline tests (never a download).

`register(tmp_path)` writes a small TREC collection under tmp_path and registers, in this
process's ir_datasets registry:
- ``workbench-test/trec``: built from ir_datasets' formats over the local files: TREC
  topics with three fields (title, description, narrative; `default_text()` is the
  title), qrels with `qrels_defs` (0-2) and graded and negative grades, TSV documents;
- ``workbench-test/simple``: ir_datasets' `create_dataset` (one-field queries, no
  qrels_defs) over the same qrels;
- ``workbench-test/absent``: qrels expected at a path that does not exist, as a dataset
  not downloaded.
"""

from __future__ import annotations

from pathlib import Path

TOPICS = """<top>
<num> Number: 101
<title> solar power
<desc> Description:
How do solar panels make electricity?
<narr> Narrative:
Documents on photovoltaics are relevant.
</top>

<top>
<num> Number: 102
<title> tidal energy
<desc> Description:
Power from the tides.
<narr> Narrative:
Tidal barrages and turbines.
</top>
"""
QRELS = """101 0 d1 2
101 0 d2 1
101 0 d3 0
101 0 d4 -1
102 0 d5 1
102 0 d6 0
102 0 d2 -1
"""
DOCS = {"d1": "Photovoltaic cells turn sunlight into current.",
        "d2": "Panels on roofs.", "d3": "Wind farms.", "d4": "A page about nothing.",
        "d5": "Tidal turbines in the Severn.", "d6": "Coal.", "d7": "Never judged."}
QRELS_DEFS = {0: "not relevant", 1: "relevant", 2: "highly relevant"}
RUN = """101 Q0 d1 1 3.0 sys
101 Q0 d4 2 2.5 sys
101 Q0 d2 3 2.0 sys
101 Q0 d7 4 1.0 sys
102 Q0 d6 1 2.0 sys
102 Q0 d5 2 1.0 sys
"""


def register(tmp_path: Path) -> dict[str, Path]:
    import ir_datasets
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.formats import TrecQrels, TrecQueries, TsvDocs
    from ir_datasets.util import LocalDownload

    files = {"topics": tmp_path / "topics.txt", "qrels": tmp_path / "qrels.txt",
             "docs": tmp_path / "docs.tsv", "run": tmp_path / "sys.run"}
    files["topics"].write_text(TOPICS)
    files["qrels"].write_text(QRELS)
    files["docs"].write_text("".join(f"{k}\t{v}\n" for k, v in DOCS.items()))
    files["run"].write_text(RUN)
    datasets = {
        "workbench-test/trec": Dataset(
            TrecQueries(LocalDownload(files["topics"]), namespace="test", lang="en"),
            TrecQrels(LocalDownload(files["qrels"]), QRELS_DEFS),
            TsvDocs(LocalDownload(files["docs"]), namespace="test", lang="en")),
        "workbench-test/simple": ir_datasets.create_dataset(
            docs_tsv=str(files["docs"]), queries_tsv=str(_tsv_queries(tmp_path)),
            qrels_trec=str(files["qrels"])),
        "workbench-test/absent": Dataset(
            TrecQrels(LocalDownload(tmp_path / "not-downloaded" / "qrels", mkdir=False), QRELS_DEFS)),
    }
    for name, ds in datasets.items():
        ir_datasets.registry._registered.pop(name, None)
        ir_datasets.registry.register(name, ds)
    return files


def _tsv_queries(tmp_path: Path) -> Path:
    path = tmp_path / "queries.tsv"
    path.write_text("101\tsolar power\n102\ttidal energy\n")
    return path
