"""`workbench eval irds:ID RUN`: a dataset's qrels in place of a file, offline, on local
ir_datasets datasets (tests/irds_local.py) under a temporary IR_DATASETS_HOME."""

from __future__ import annotations

import json
import socket

import pytest

from workbench.cli import main

pytest.importorskip("ir_datasets")


@pytest.fixture
def local(tmp_path, monkeypatch):
    from tests.irds_local import register

    monkeypatch.setenv("IR_DATASETS_HOME", str(tmp_path / "irds-home"))

    def no_network(*a, **k):
        raise OSError("network is switched off in this test")

    monkeypatch.setattr(socket, "socket", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    return register(tmp_path)


def _json(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)["runs"][0]


@pytest.mark.parametrize("ds", ["workbench-test/trec", "workbench-test/simple"])
def test_eval_on_a_dataset_equals_eval_on_its_qrels_file(capsys, local, ds):
    ms = ["-m", "map", "-m", "P.2", "-m", "ndcg", "-m", "num_rel", "-m", "relstring.4"]
    want = _json(capsys, "eval", local["qrels"], local["run"], "-q", "--format", "json", *ms)
    got = _json(capsys, "eval", f"irds:{ds}", local["run"], "-q", "--format", "json", *ms)
    assert got["summary"] == want["summary"] and got["per_query"] == want["per_query"]
    # d4 is -1 (in the pool, unjudged: "."), d7 not in the qrels ("-")
    assert want["per_query"]["101"]["relstring.4"] == "2.1-"
    code = main(["eval", f"irds:{ds}", str(local["run"]), "-m", "map"])
    trec = capsys.readouterr().out
    main(["eval", str(local["qrels"]), str(local["run"]), "-m", "map"])
    assert code == 0 and trec == capsys.readouterr().out


def test_a_dataset_not_downloaded_is_one_clear_line(capsys, local):
    code = main(["eval", "irds:workbench-test/absent", str(local["run"]), "-m", "map"])
    _, err = capsys.readouterr()
    assert code == 1
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "irds:workbench-test/absent" in lines[0] and "IR_DATASETS_HOME" in lines[0]
    assert str(local["run"].parent / "irds-home") in lines[0]
    code = main(["eval", "irds:no/such-dataset", str(local["run"])])
    _, err = capsys.readouterr()
    assert code == 2 and "no such ir_datasets dataset" in err and len(err.strip().splitlines()) == 1


def test_import_dataset_command(capsys, local, tmp_path):
    db = tmp_path / "c.sqlite"
    code = main(["import", "dataset", "workbench-test/trec", "--db", str(db), "-a", "nist"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert out.startswith("imported irds:workbench-test/trec: 2 queries (2 new, 0 updated); "
                          "6 documents (6 new, 0 updated); 7 judgments by 'nist' for 2 queries")
    assert "2 of them negative" in out and "scale set from the dataset: 0=not relevant" in out
    code = main(["import", "dataset", "workbench-test/absent", "--db", str(db)])
    _, err = capsys.readouterr()
    assert code == 1 and len(err.strip().splitlines()) == 1 and "IR_DATASETS_HOME" in err


def test_the_python_api_reads_datasets(local):
    import ir_datasets

    import workbench

    ms = ["map", "P.2", "ndcg", "relstring.4"]
    want = workbench.evaluate(local["qrels"], local["run"], ms, per_query=True)
    by_name = workbench.evaluate("irds:workbench-test/trec", local["run"], ms, per_query=True)
    by_iter = workbench.evaluate(ir_datasets.load("workbench-test/trec").qrels_iter(),
                                 local["run"], ms, per_query=True)
    assert dict(by_name) == dict(want) == dict(by_iter)
    assert dict(by_name.all) == dict(want.all) == dict(by_iter.all)


def test_an_imported_dataset_scores_as_eval_on_the_dataset(capsys, local, tmp_path):
    """The stored grades of `import dataset`, negative ones included, give `score` the
    values `eval irds:ID` gives (the unjudged measures read the negative grades)."""
    db = tmp_path / "s.sqlite"
    assert main(["import", "dataset", "workbench-test/trec", "--db", str(db), "-a", "nist"]) == 0
    assert main(["import", "run", str(local["run"]), "--db", str(db)]) == 0
    capsys.readouterr()
    measures = ["infAP", "bpref", "num_rel", "num_rel_ret", "num_nonrel_judged_ret", "map", "P_2"]
    want = _json(capsys, "eval", "irds:workbench-test/trec", local["run"], "--format", "json",
                 *sum((["-m", m] for m in measures), []))["summary"]
    code = main(["score", "--db", str(db), "--source", "assessor:nist", "--format", "json",
                 *sum((["-m", m] for m in measures), [])])
    out, err = capsys.readouterr()
    assert code == 0, err
    (system,) = json.loads(out)["systems"]
    for m in measures:
        assert system["mean"][m] == pytest.approx(want[m], abs=1e-12), m
    assert want["num_rel"] == 3 and system["mean"]["infAP"] != pytest.approx(system["mean"]["map"])
