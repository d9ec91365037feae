"""`workbench eval` in worker processes (-j N) prints byte for byte what the serial path prints."""

from __future__ import annotations

import os
import random

import pytest

from workbench.cli import main
from workbench.formats.trec import query_cuts


def _write(tmp_path, nq=30, runs=3, seed=7):
    rng = random.Random(seed)
    qrels = []
    for q in range(1, nq + 1):
        for d in rng.sample(range(60), 25):
            qrels.append(f"{q} 0 d{d} {rng.choice([-1, 0, 0, 1, 2, 3])}")
    qp = tmp_path / "qrels"
    qp.write_text("\n".join(qrels) + "\n")
    paths = []
    for s in range(runs):
        lines = []
        # query 3 missing from every run (a warning), query 999 unknown to the qrels
        for q in [q for q in range(1, nq + 1) if q != 3] + [999]:
            for r, d in enumerate(rng.sample(range(80), 40), 1):
                score = rng.choice([1.0, 2.0, 0.5]) if s == 0 else round(rng.random(), 3)
                lines.append(f"{q} Q0 d{d} {r} {score} sys{s}")
        p = tmp_path / f"run{s}"
        p.write_text("\n".join(lines) + "\n")
        paths.append(p)
    return qp, paths


def _run(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def _same_but_jobs(parallel, serial, jobs: int) -> None:
    """The same exit code, output and warnings, except that JSON's settings.jobs says how
    many processes did the work."""
    if serial[1].startswith("{"):
        import json

        s, p = json.loads(serial[1]), json.loads(parallel[1])
        assert (s["settings"].pop("jobs"), p["settings"].pop("jobs")) == (1, jobs)
        assert (parallel[0], p, parallel[2]) == (serial[0], s, serial[2])
        return
    assert parallel == serial


@pytest.mark.parametrize("extra", [
    ["-q", "--format", "trec"],
    ["-q", "-c", "-m", "official", "-m", "iprec_at_recall", "--format", "trec"],
    ["-q", "--bounds", "-m", "map", "-m", "ndcg_cut.5", "--format", "csv"],
    ["-q", "--ties", "input", "-M", "10", "-l", "2", "--format", "json"],
])
def test_processes_print_what_the_serial_path_prints(tmp_path, capsys, extra):
    qp, runs = _write(tmp_path)
    serial = _run(capsys, "eval", qp, *runs, *extra, "-j", "1")
    parallel = _run(capsys, "eval", qp, *runs, *extra, "-j", "2")
    assert serial[0] == 0
    assert len(serial[1].splitlines()) > 100
    assert ("missing from the run" in serial[2]) == ("-c" not in extra)
    _same_but_jobs(parallel, serial, 2)


def test_processes_report_the_first_bad_run_in_order(tmp_path, capsys):
    qp, runs = _write(tmp_path, runs=3)
    bad = runs[1].read_text().splitlines()
    bad.insert(5, bad[2])  # a duplicate document on line 6
    runs[1].write_text("\n".join(bad) + "\n")
    runs[2].write_text("1 Q0 x 1 oops t\n")
    serial = _run(capsys, "eval", qp, *runs, "-j", "1")
    parallel = _run(capsys, "eval", qp, *runs, "-j", "2")
    assert serial[0] == 1
    assert f"{runs[1]}:6: duplicate document" in serial[2]
    assert parallel == serial


# ----------------------------------------------------------------------------- one run in pieces


@pytest.mark.parametrize("extra", [
    ["-q", "--format", "trec"],
    ["-q", "-c", "-m", "official", "-m", "iprec_at_recall", "--format", "trec"],
    ["-q", "--ties", "rank", "-M", "7", "--format", "json"],
])
@pytest.mark.parametrize("jobs", ["2", "3"])
def test_one_run_in_pieces_prints_what_the_serial_path_prints(tmp_path, capsys, extra, jobs):
    qp, (run,) = _write(tmp_path, runs=1)
    assert len(query_cuts(run, int(jobs))) == int(jobs) + 1  # really cut
    serial = _run(capsys, "eval", qp, run, *extra, "-j", "1")
    parallel = _run(capsys, "eval", qp, run, *extra, "-j", jobs)
    assert serial[0] == 0 and len(serial[1]) > 1000
    _same_but_jobs(parallel, serial, int(jobs))


def test_a_query_in_two_pieces_falls_back_to_the_serial_result(tmp_path, capsys):
    qp, (run,) = _write(tmp_path, runs=1)
    lines = run.read_text().splitlines()
    lines.append("1 Q0 d79x 41 -5 sys0")  # query 1 again at the very end of the file
    run.write_text("\n".join(lines) + "\n")
    serial = _run(capsys, "eval", qp, run, "-q", "-j", "1")
    parallel = _run(capsys, "eval", qp, run, "-q", "-j", "2")
    assert "num_ret               \t1\t41" in serial[1]
    assert parallel == serial


@pytest.mark.parametrize("bad", ["{q} Q0 x 1 oops t", "{dup}", "{q} Q0 x 1"])
def test_errors_in_a_later_piece_name_the_file_line(tmp_path, capsys, bad):
    qp, (run,) = _write(tmp_path, runs=1)
    lines = run.read_text().splitlines()
    at = len(lines) - 60  # query 30, in the last piece
    lines.insert(at, bad.format(q=lines[at].split()[0], dup=lines[at - 1]))
    run.write_text("\n".join(lines) + "\n")
    serial = _run(capsys, "eval", qp, run, "-j", "1")
    parallel = _run(capsys, "eval", qp, run, "-j", "2")
    assert serial[0] == 1
    assert f"{run}:{at + 1}: " in serial[2]
    assert parallel == serial


def test_query_cuts_fall_on_query_changes(tmp_path):
    _, (run,) = _write(tmp_path, runs=1)
    data = run.read_bytes()
    cuts = query_cuts(run, 4)
    assert cuts[0] == 0 and cuts[-1] == len(data) and cuts == sorted(set(cuts)) and len(cuts) == 5
    for c in cuts[1:-1]:
        before = data[:c].splitlines()[-1].split()[0]
        after = data[c:].split(b"\n", 1)[0].split()[0]
        assert data[c - 1:c] == b"\n" and before != after
    # a file of one query cannot be cut
    one = tmp_path / "one"
    one.write_text("".join(f"7 Q0 d{i} {i} 1.0 t\n" for i in range(500)))
    assert query_cuts(one, 2) == [0, one.stat().st_size]


def test_query_cuts_look_past_the_first_64_kb_up_to_the_probe(tmp_path):
    """The cut-finder reads 64 KB at a time: a query whose lines run past that is still
    cut at its end, within `probe` bytes, and not beyond."""
    run = tmp_path / "run"
    head = "".join(f"1 Q0 doc{i:06d} {i} 1.0 tag\n" for i in range(6000))  # 162 KB
    tail = "".join(f"2 Q0 doc{i:06d} {i} 1.0 tag\n" for i in range(10))
    run.write_text(head + tail)
    size = run.stat().st_size
    assert query_cuts(run, 2) == [0, len(head), size]
    assert query_cuts(run, 2, probe=1 << 16) == [0, size]  # no change within 64 KB
    assert query_cuts(run, 2, probe=len(head)) == [0, len(head), size]


@pytest.mark.parametrize("threads", [1, 2])
def test_pieces_and_chunks_keep_line_numbers(tmp_path, threads):
    from workbench.errors import InputError
    from workbench.formats.trec import read_run

    lines = [f"q{i // 50} Q0 doc{i} {i} {1.0 / (i + 1)!r} t\n" for i in range(500)]
    lines[100] = "# a comment line\n"
    lines[101] = "\n"
    p = tmp_path / "r"
    p.write_text("".join(lines))
    whole = read_run(p, chunk_bytes=64, threads=threads)
    assert whole.line.tolist() == [n for n in range(1, 501) if n not in (101, 102)]
    cuts = query_cuts(p, 2)
    first = read_run(p, chunk_bytes=64, threads=threads, byte_range=(cuts[0], cuts[1]))
    second = read_run(p, chunk_bytes=64, threads=threads, byte_range=(cuts[1], cuts[2]))
    assert first.docno.tolist() + second.docno.tolist() == whole.docno.tolist()
    offset = first.line[-1]  # the pieces count lines from their own start
    assert (second.line + offset).tolist() == whole.line[len(first):].tolist()
    lines[433] = "q1 Q0 broken 1\n"
    p.write_text("".join(lines))
    with pytest.raises(InputError) as err:
        read_run(p, chunk_bytes=64, threads=threads)
    assert err.value.line == 434


# ----------------------------------------------------------------------------- evaluation.split:
# qrels and run both read in pieces by several processes


# trec_eval's every family (relstring's text included) and two parameters of the old ones
SPLIT_MEASURES = ["all_trec", "iprec_at_recall", "ndcg_cut.5"]


def _split_eval(qp, run, jobs=2, **kw):
    from workbench.evaluation.split import evaluate_split, run_cuts
    from workbench.metrics.measures import parse_measures

    ms = parse_measures(SPLIT_MEASURES)
    cuts = run_cuts(run, jobs)
    assert cuts is not None and len(cuts) == jobs + 1
    opts = dict(rel_level=1, ties="trec_eval", max_depth=None, complete=False, compat=10)
    opts.update(kw)
    result = evaluate_split(str(qp), str(run), cuts, ms, **opts)
    return None if result is None else result[0]  # (evaluation, first tag)


def _serial_eval(qp, run, **kw):
    from workbench.formats.trec import read_qrels, read_run
    from workbench.metrics.evaluate import evaluate
    from workbench.metrics.measures import parse_measures

    q, r = read_qrels(qp), read_run(run, keep_rank=True)
    opts = dict(rel_level=1, ties="trec_eval", max_depth=None, complete=False, compat=10)
    opts.update(kw)
    return evaluate(q.qid, q.docno, q.rel, r.qid, r.docno, r.score,
                    parse_measures(SPLIT_MEASURES),
                    run_rank=r.rank, tag=r.tag, **opts)


def _same(a, b):
    assert a.qids == b.qids and a.missing == b.missing and a.tag == b.tag
    assert a.measures == b.measures
    for m in a.measures:
        assert a.per_query[m].tolist() == b.per_query[m].tolist(), m.label
        assert a.summary[m] == b.summary[m], m.label


@pytest.mark.parametrize("qrels_order", ["file", "bytes", "reversed", "scattered"])
@pytest.mark.parametrize("jobs", [2, 3])
def test_split_reads_both_files_in_pieces_whatever_the_qrels_order(tmp_path, qrels_order, jobs):
    qp, (run,) = _write(tmp_path, runs=1, nq=40)
    lines = qp.read_text().splitlines()
    if qrels_order == "bytes":  # "1", "10", "11", ... as `sort` leaves a qrels file
        lines.sort(key=lambda s: s.split()[0].encode())
    elif qrels_order == "reversed":
        lines.reverse()
    elif qrels_order == "scattered":  # no query's rows together
        random.Random(3).shuffle(lines)
    # a qrels-only query, split over both halves of the file, and one with no relevant doc
    lines.insert(5, "500 0 only1 2")
    lines.append("500 0 only2 1")
    lines.append("501 0 zero 0")
    qp.write_text("\n".join(lines) + "\n")
    for complete in (False, True):
        split = _split_eval(qp, run, jobs, complete=complete)
        assert split is not None  # really evaluated in pieces, no fallback
        _same(split, _serial_eval(qp, run, complete=complete))
    assert "500" in split.qids and "500" in _split_eval(qp, run, jobs).missing


@pytest.mark.parametrize("opts", [
    dict(ties="rank", max_depth=7), dict(ties="input", rel_level=2), dict(compat=9),
    dict(judged_only=True, num_docs=1000), dict(complete=True, rel_level=2),
])
def test_split_options_give_the_serial_numbers(tmp_path, opts):
    qp, (run,) = _write(tmp_path, runs=1, nq=30)
    _same(_split_eval(qp, run, 2, **opts), _serial_eval(qp, run, **opts))


@pytest.mark.parametrize("trouble", ["qrels duplicate", "qrels bad line", "query in two pieces",
                                     "child fails"])
def test_split_gives_up_and_the_command_reports_as_one_process(tmp_path, capsys, monkeypatch,
                                                               trouble):
    import workbench.evaluation.split as es

    qp, (run,) = _write(tmp_path, runs=1, nq=30)
    lines = qp.read_text().splitlines()
    if trouble == "qrels duplicate":  # the two rows fall in different qrels pieces
        lines.append(lines[3])
    elif trouble == "qrels bad line":
        lines.insert(len(lines) - 10, "7 0 docx notanumber")
    elif trouble == "query in two pieces":
        run.write_text(run.read_text() + "1 Q0 d79x 41 -5 sys0\n")
    else:
        real = es.Piece.evaluate

        def dies(self):
            if self.k == 1:
                os._exit(3)
            return real(self)

        monkeypatch.setattr(es.Piece, "evaluate", dies)
    qp.write_text("\n".join(lines) + "\n")
    assert _split_eval(qp, run, 2) is None
    serial = _run(capsys, "eval", qp, run, "-q", "-j", "1")
    parallel = _run(capsys, "eval", qp, run, "-q", "-j", "2")
    assert parallel == serial
    if trouble.startswith("qrels"):
        assert serial[0] == 1 and f"{qp}:" in serial[2]
    else:
        assert serial[0] == 0


def test_split_leaves_no_scratch_files(tmp_path, monkeypatch):
    import workbench.evaluation.split as es

    made = []
    real = es.scratch_dir

    def scratch(need):
        made.append(real(need))
        return made[-1]

    monkeypatch.setattr(es, "scratch_dir", scratch)
    qp, (run,) = _write(tmp_path, runs=1)
    assert _split_eval(qp, run, 2) is not None
    lines = qp.read_text().splitlines()
    qp.write_text("\n".join(lines + ["1 0 d1 x"]) + "\n")
    assert _split_eval(qp, run, 2) is None
    assert len(made) == 2 and not any(os.path.exists(d) for d in made)


def test_line_cuts_fall_at_line_starts(tmp_path):
    from workbench.evaluation.split import line_cuts

    p = tmp_path / "f"
    data = b"".join(b"%d 0 d%d 1\n" % (i, i) for i in range(1000))
    p.write_bytes(data)
    for parts in (1, 2, 3, 7):
        cuts = line_cuts(p, parts)
        assert cuts[0] == 0 and cuts[-1] == len(data) and len(cuts) == parts + 1
        assert all(data[c - 1:c] == b"\n" for c in cuts[1:-1])
    p.write_bytes(b"one long line without end" * 10)
    assert line_cuts(p, 3) == [0, p.stat().st_size]


def test_split_with_a_tiny_crlf_qrels_file_with_comments(tmp_path):
    qp, (run,) = _write(tmp_path, runs=1, nq=12)
    qp.write_bytes(b"\xef\xbb\xbf# judged by hand\r\n4 0 d1 2\r\n\r\n# more\r\n7 0 d2 1\r\n")
    for jobs in (2, 3):
        split = _split_eval(qp, run, jobs)
        assert split is not None and split.qids == ("4", "7")
        _same(split, _serial_eval(qp, run))


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_runid_is_the_last_lines_tag_as_in_trec_eval(tmp_path, capsys, jobs):
    # trec_eval (get_trec_results.c) keeps "the run_id field of the last line"
    qp, (run,) = _write(tmp_path, runs=1)
    lines = run.read_text().splitlines()
    half = len(lines) // 2
    lines = lines[:half] + [line.rsplit(" ", 1)[0] + " later" for line in lines[half:]]
    run.write_text("\n".join(lines) + "\n")
    code, out, _ = _run(capsys, "eval", qp, run, "-m", "runid", "-m", "map", "-j", jobs)
    assert code == 0 and out.splitlines()[0] == f"{'runid':<22}\tall\tlater"


def test_run_columns_after_the_tag_change_nothing(tmp_path, capsys):
    qp, (run,) = _write(tmp_path, runs=1)
    extra = tmp_path / "extra.run"
    extra.write_text("".join(f"{line} more stuff\n" for line in run.read_text().splitlines()))
    code, out, _ = _run(capsys, "eval", qp, run, "-q", "-j", "1")
    assert code == 0 and len(out) > 1000
    for jobs in ("1", "2"):
        assert _run(capsys, "eval", qp, extra, "-q", "-j", jobs)[:2] == (code, out)


@pytest.mark.parametrize("jobs", ["1", "2", "3"])
def test_cr_line_ends_evaluate_as_lf_ones_in_one_piece_or_several(tmp_path, capsys, jobs):
    """A lone \\r ends a line in the eval readers too, in every piece of a
    split read (the second half of this run ends its lines with \\r, the first with \\n)."""
    qp, (run,) = _write(tmp_path, runs=1)
    expected = _run(capsys, "eval", qp, run, "-q", "--format", "trec", "-j", "1")
    assert expected[0] == 0 and len(expected[1]) > 1000
    lines = run.read_bytes().splitlines()
    half = len(lines) // 2
    mixed = tmp_path / "mixed.run"
    mixed.write_bytes(b"\n".join(lines[:half]) + b"\n" + b"\r".join(lines[half:]) + b"\r")
    if jobs == "3":
        assert len(query_cuts(mixed, 3)) > 2  # really read in pieces
    cr_qrels = tmp_path / "cr.qrels"
    cr_qrels.write_bytes(qp.read_bytes().replace(b"\n", b"\r"))
    got = _run(capsys, "eval", cr_qrels, mixed, "-q", "--format", "trec", "-j", jobs)
    assert got[:2] == expected[:2] and got[2] == expected[2].replace(str(run), str(mixed))
