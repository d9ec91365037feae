"""Internal orderings used by the evaluation: per-group key sorts and the global order."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.metrics.encode import distinct, factorize, pair_keys
from workbench.metrics.ranking import (
    _run_starts,
    _sort_groups,
    _tie_moves,
    _trec_order,
    trec_order,
)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 7), min_size=1, max_size=8), st.randoms(use_true_random=False))
def test_each_query_group_sorted_in_its_place(sizes, rnd):
    """The per-group sort the qrels index orders a run's documents with (qrels_index.py)."""
    groups = list(range(len(sizes)))
    rnd.shuffle(groups)
    q = np.repeat(np.array(groups), sizes)
    # hashes near the top of the 40 bits too (packed sorts must keep every hash bit)
    low = [rnd.choice([rnd.randrange(5), (1 << 40) - 1 - rnd.randrange(3)]) for _ in q]
    keys = (q.astype(np.uint64) << np.uint64(40)) | np.array(low, dtype=np.uint64)
    starts = _run_starts(q)
    hbits = keys & np.uint64((1 << 40) - 1)
    sk, o3 = _sort_groups(hbits, starts, np.diff(np.append(starts, q.size)), keys[starts] - hbits[starts])
    assert sorted(o3.tolist()) == list(range(q.size))
    assert np.array_equal(sk, keys[o3])
    for g in np.unique(q):  # each group sorted, in its place (or all keys sorted)
        assert np.all(np.diff(sk[q[o3] == g].astype(np.int64)) >= 0)


def test_factorize_keeps_strcmp_order_across_word_boundaries():
    values = [b"b", b"a", b"abcdefgh", b"abcdefghi", b"abcdefgh\x01", b"", b"zz" * 9]
    codes, n = factorize(np.array(values, dtype="S18"))
    assert n == len(set(values))
    assert [v for _, v in sorted(zip(codes, values))] == sorted(values)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.sampled_from([b"", b"a", b"b", b"abcdefgh", b"abcdefghi", b"FT1003719",
                                          b"abcdefgh\x01", b"zz" * 9]), max_size=20), min_size=1, max_size=4))
def test_factorize_many_repeated_equals_factorize_many(arrays):
    from workbench.metrics.encode import factorize_many

    parts = [np.array(a, dtype="S") if a else np.empty(0, dtype="S1") for a in arrays]
    plain, n = factorize_many(*parts)
    hashed, m = factorize_many(*parts, repeated=True)
    assert n == m
    assert all(np.array_equal(x, y) for x, y in zip(plain, hashed))


def test_factorize_by_hash_gives_way_to_factorize_on_a_hash_collision(monkeypatch):
    from workbench.metrics import encode

    values = np.array([b"b", b"a", b"c", b"a", b"b"])
    # every value hashes alike: the distinct values cannot be told apart by hash
    monkeypatch.setattr(encode, "hash_bytes", lambda arr: np.zeros(len(arr), dtype=np.uint64))
    assert encode._factorize_by_hash(values) is None
    (codes,), n = encode.factorize_many(values, repeated=True)
    assert n == 3 and codes.tolist() == [1, 0, 2, 0, 1]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.sampled_from([b"a", b"b", b"abcdefghi", b"FT1"])),
                max_size=30), st.booleans())
def test_duplicate_pairs_are_the_later_rows_of_repeated_pairs(rows, collide):
    from workbench.metrics import encode

    q = np.array([r[0] for r in rows], dtype=np.int64)
    d = np.array([r[1] for r in rows], dtype="S9") if rows else np.empty(0, dtype="S1")
    seen, want = set(), []
    for i, r in enumerate(rows):
        if r in seen:
            want.append(i)
        seen.add(r)
    if collide:  # every pair hashes alike: the exact fall back must give the same rows
        real = encode.hash_pairs
        encode.hash_pairs = lambda qc, dn: np.zeros(len(qc), dtype=np.uint64)
    try:
        assert encode.duplicate_pairs(q, d).tolist() == want
    finally:
        if collide:
            encode.hash_pairs = real


def test_pair_keys_do_not_depend_on_string_width():
    q = np.array([0, 1, 2])
    narrow = np.array([b"d1", b"doc-22", b"x"], dtype="S6")
    wide = narrow.astype("S20")
    assert np.array_equal(pair_keys(q, narrow), pair_keys(q, wide))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.binary(max_size=19), st.binary(max_size=19), st.booleans()), max_size=12),
       st.integers(0, 6), st.integers(0, 6))
def test_same_bytes_is_string_equality_at_any_widths(pairs, extra_a, extra_b):
    from workbench.metrics.encode import same_bytes

    left = [x.rstrip(b"\0") for x, _, _ in pairs]
    right = [x if same else y.rstrip(b"\0") for x, (_, y, same) in zip(left, pairs)]
    wa = max([len(x) for x in left] + [1]) + extra_a
    wb = max([len(y) for y in right] + [1]) + extra_b
    a = np.array(left, dtype=f"S{wa}")
    b = np.array(right, dtype=f"S{wb}")
    assert same_bytes(a, b).tolist() == [x == y for x, y in zip(left, right)]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(max_size=27).map(lambda b: b.rstrip(b"\0")), min_size=1, max_size=9),
       st.integers(0, 9))
def test_hash_bytes_depends_on_the_string_only(values, extra):
    """Words are read in place with over-reads masked off; the last rows from a padded
    copy: any width and any row count hash each string alike."""
    from workbench.metrics.encode import hash_bytes

    width = max(len(v) for v in values) or 1
    a = hash_bytes(np.array(values, dtype=f"S{width}"))
    b = hash_bytes(np.array(values, dtype=f"S{width + extra}"))
    c = np.array([hash_bytes(np.array([v], dtype=f"S{width}"))[0] for v in values])
    assert np.array_equal(a, b) and np.array_equal(a, c)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-3, 3), max_size=12), st.sampled_from(["i8", "f8", "S2"]))
def test_distinct_is_np_unique(values, dtype):
    a = np.array(values, dtype=np.int64).astype(dtype)
    assert np.array_equal(distinct(a), np.unique(a))
    assert distinct(a).dtype == a.dtype


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(1, 6), min_size=1, max_size=6), st.randoms(use_true_random=False),
       st.sampled_from([9, 10]))
def test_rank_order_tie_moves_give_trec_order(sizes, rnd, compat):
    """Rows already in rank order: moving only the tied rows (what the evaluation does)
    gives trec_eval's order, as the full sort does; scores tie as doubles, or only as
    floats (compat 9), or not at all."""
    q = np.repeat(np.arange(len(sizes)), sizes)
    pool = [1.0, 0.5, 0.5 + 2.0 ** -40, 0.25, -0.0, 0.0]  # 0.5 + 2**-40 is 0.5 as a float
    score = np.concatenate([sorted((rnd.choice(pool) for _ in range(k)), reverse=True)
                            for k in sizes])
    docno = np.array([rnd.choice([b"a", b"b", b"c", b"d", b"e"]) + str(i).encode()
                      for i in range(q.size)])
    starts = _run_starts(q)
    moved = _tie_moves(score, docno, starts, compat)
    assert moved is not None  # in rank order at either precision
    rows = np.arange(q.size)
    rows[moved[0]] = moved[1]
    expected = trec_order(q, score, docno, compat=compat)
    assert np.array_equal(rows, expected)
    full = _trec_order(q, score, docno, None, compat)
    assert np.array_equal(np.arange(q.size) if full is None else full, expected)


def test_tie_moves_refuse_rows_out_of_rank_order():
    q = np.zeros(3, dtype=np.int64)
    docno = np.array([b"a", b"b", b"c"])
    assert _tie_moves(np.array([1.0, 2.0, 0.0]), docno, _run_starts(q), 10) is None
    # equal as floats, so in rank order for trec_eval 9 only; b before a there
    score = np.array([0.5, 0.5 + 2.0 ** -40, 0.0])
    assert _tie_moves(score, docno, _run_starts(q), 10) is None
    rows, src = _tie_moves(score, docno, _run_starts(q), 9)
    assert rows.tolist() == [0, 1] and src.tolist() == [1, 0]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(1, 9), min_size=1, max_size=7), st.randoms(use_true_random=False),
       st.sampled_from([9, 10]))
def test_rows_out_of_rank_order_sorted_in_their_groups_give_trec_order(sizes, rnd, compat):
    """Each query's rows contiguous but not in rank order (a run file written in any
    order): the sort within each group (equal sizes: one 2-D sort; unequal: padded) gives
    every query trec_eval's order, as the one sort of all rows by (query, score) does;
    queries in any order; scores tied as doubles, as floats only, or not; -inf among them."""
    groups = list(range(len(sizes)))
    rnd.shuffle(groups)
    q = np.repeat(np.array(groups), sizes)
    pool = [1.0, 0.5, 0.5 + 2.0 ** -40, 0.25, -0.0, 0.0, -np.inf, 3.5]
    score = np.array([rnd.choice(pool) for _ in q])
    docno = np.array([rnd.choice([b"a", b"b", b"c"]) + str(i).encode() for i in range(q.size)])
    starts = _run_starts(q)
    got = _trec_order(q, score, docno, starts, compat, sort=True)
    got = np.arange(q.size) if got is None else got  # one row: nothing to order
    assert sorted(got.tolist()) == list(range(q.size))
    assert _run_starts(q[got]).size == len(sizes)  # each query's rows still together
    want = trec_order(q, score, docno, compat=compat)  # queries by id, rows in trec order
    for g in groups:
        assert got[q[got] == g].tolist() == want[q[want] == g].tolist()
