"""The job count from the cost model (workbench.evaluation.strategy): predictions as
arithmetic, the default never predicted slower than one process, the usable cores as its
ceiling, -j forcing its number; and the split's row selection."""

from __future__ import annotations

import numpy as np
import pytest

from workbench.evaluation import strategy
from workbench.evaluation.split import _rows_of
from workbench.evaluation.strategy import Costs, plan_for_sizes, predicted_seconds

MB = 1_000_000
C = Costs(start_s=0.01, fixed_s=0.04, run_bytes_s=100 * MB, qrels_bytes_s=200 * MB,
          one_process_cores=1.0, margin=0.2)


def test_predictions_are_the_model_arithmetic():
    # one process: qrels 200 MB at 200 MB/s + run 100 MB at 100 MB/s
    assert predicted_seconds("threads", 1, [100 * MB], 200 * MB, C) == pytest.approx(1 + 1)
    # one process reading ahead in threads keeps 1.5 cores busy when it has 2 or more
    overlapping = Costs(**{**C.__dict__, "one_process_cores": 1.5})
    assert predicted_seconds("threads", 1, [100 * MB], 200 * MB, overlapping, cores=16) == \
        pytest.approx(2 / 1.5)
    assert predicted_seconds("threads", 1, [100 * MB], 200 * MB, overlapping, cores=1) == \
        pytest.approx(2)
    # split in 4: fixed + 4 starts + both files' work shared by 4
    assert predicted_seconds("split", 4, [100 * MB], 200 * MB, C) == pytest.approx(
        0.04 + 4 * 0.01 + (1 + 1) / 4)
    # 3 runs of 50 MB on 2 workers: the parent's qrels, then the busiest worker's 100 MB
    assert predicted_seconds("processes", 2, [50 * MB] * 3, 200 * MB, C) == pytest.approx(
        1 + 0.04 + 2 * 0.01 + 100 * MB / (100 * MB))
    # a big run first: the others fill the second worker
    assert predicted_seconds("processes", 2, [90 * MB, 30 * MB, 30 * MB, 30 * MB], 0, C) == \
        pytest.approx(0.04 + 0.02 + 0.9)


@pytest.fixture
def cores(monkeypatch):
    def set_cores(n):
        monkeypatch.setattr(strategy, "default_jobs", lambda: n)
    return set_cores


def test_small_inputs_stay_in_one_process(cores):
    cores(16)
    assert plan_for_sizes([1 * MB], 1 * MB, None, costs=C).kind == "threads"
    assert plan_for_sizes([1 * MB] * 3, 1 * MB, None, costs=C).kind == "threads"


def test_big_inputs_use_the_best_count(cores):
    cores(16)
    plan = plan_for_sizes([400 * MB], 200 * MB, None, costs=C)
    assert plan.kind == "split"
    # the minimum of fixed + n * start + 5 s / n is at n = sqrt(5 / 0.01) = 22: capped at 16
    assert plan.workers == 16
    cores(4)
    assert plan_for_sizes([400 * MB], 200 * MB, None, costs=C).workers == 4
    cores(16)
    plan = plan_for_sizes([20 * MB] * 96, 1 * MB, None, costs=C)
    assert plan.kind == "processes" and plan.workers == 16  # 6 runs each
    # 100 runs: the busiest worker takes 7 with 15 workers as with 16, so one fork fewer
    assert plan_for_sizes([20 * MB] * 100, 1 * MB, None, costs=C).workers == 15
    # no more workers than runs
    assert plan_for_sizes([200 * MB] * 3, 1 * MB, None, costs=C).workers == 3


def test_the_default_is_never_predicted_slower_than_one_process(cores):
    rng = np.random.default_rng(28)
    for _ in range(300):
        n_cores = int(rng.integers(1, 33))
        cores(n_cores)
        runs = [int(b) for b in rng.integers(1, 400 * MB, size=int(rng.integers(1, 6)))]
        qrels = int(rng.integers(0, 400 * MB))
        plan = plan_for_sizes(runs, qrels, None, costs=C)
        one = predicted_seconds("threads", 1, runs, qrels, C, n_cores)
        assert plan.jobs <= n_cores
        if plan.kind != "threads":
            assert predicted_seconds(plan.kind, plan.workers, runs, qrels, C) <= 0.8 * one
    # and with the shipped constants, whose one process overlaps its reading
    for _ in range(300):
        n_cores = int(rng.integers(1, 33))
        cores(n_cores)
        runs = [int(b) for b in rng.integers(1, 400 * MB, size=int(rng.integers(1, 6)))]
        qrels = int(rng.integers(0, 400 * MB))
        plan = plan_for_sizes(runs, qrels, None)
        one = predicted_seconds("threads", 1, runs, qrels, strategy.COSTS, n_cores)
        if plan.kind != "threads":
            assert predicted_seconds(plan.kind, plan.workers, runs, qrels) <= 0.7 * one


def test_one_usable_core_means_one_process_whatever_the_size(cores):
    cores(1)
    free = Costs(start_s=0.0, fixed_s=0.0)
    assert plan_for_sizes([10**10], 10**10, None, costs=free).jobs == 1
    assert plan_for_sizes([10**10] * 8, 0, None, costs=free).jobs == 1


def test_an_explicit_count_is_used_as_given(cores):
    cores(2)
    assert plan_for_sizes([10], 10, 5, costs=C) == strategy.Plan("split", 5)
    assert plan_for_sizes([10] * 3, 10, 5, costs=C) == strategy.Plan("processes", 3)
    assert plan_for_sizes([10**10] * 3, 10, 1, costs=C).kind == "threads"
    assert plan_for_sizes([10**10], 10, 4, split_ok=False, costs=C).kind == "threads"


def test_arrays_are_priced_per_row(cores):
    cores(8)
    assert strategy.plan_for_arrays([1_000] * 4, None).kind == "threads"
    assert strategy.plan_for_arrays([5_000_000] * 4, None).kind == "processes"
    assert strategy.plan_for_arrays([5_000_000], None).kind == "threads"  # nothing to split


@pytest.mark.parametrize("owned, sizes, rows", [
    ([False, True, True, False], [2, 3, 1, 4], slice(2, 6)),  # one stretch: a slice
    ([True, False, True], [2, 3, 1], [0, 1, 5]),
    ([False, True, False, True, True], [1, 2, 3, 1, 2], [1, 2, 6, 7, 8]),
    ([False, False], [3, 4], None),
    ([True], [5], slice(0, 5)),
])
def test_a_process_takes_the_rows_of_its_groups(owned, sizes, rows):
    got = _rows_of(np.array(owned), np.array(sizes))
    if isinstance(rows, list):
        assert got.tolist() == rows
    else:
        assert got == rows


# the issue's workloads, in bytes as bench/scaling_bench.py writes them
SMALL = ([38 * MB], 19 * MB)  # 0.95 M run lines, 0.9 M qrels lines
LARGE = ([390 * MB], 200 * MB)  # 9.5 M run lines, 9 M qrels lines
MANY = ([2 * MB] * 100, 2 * MB)  # 100 runs x 50 queries x 1 000


@pytest.mark.parametrize("n_cores, workload, kind, least, most", [
    # measured on 2 cores, whole processes, one process against 2 workers: the lent machine
    # pinned to 2 cores (taskset -c 0,1) took 0.63 / 0.56 s for the small run, 1.32 / 1.03 s
    # for the 100 runs, 3.18 / 2.17 s for the large run; the 2-core development machine
    # 0.26 / 0.23 s and 0.71 / 0.49 s (docs/performance.md)
    # the small run was 10 % slower in 2 pieces at a load of 0.8 and 28 %
    # slower at a load of 12: on 2 cores it stays in one process (predicted saving 15 %)
    (2, SMALL, "threads", 1, 1), (2, MANY, "processes", 2, 2), (2, LARGE, "split", 2, 2),
    # on 16: the large run 0.80-0.85 s in 16 pieces against 2.25-2.69 s; 100 runs 0.50-0.59 s
    # in 15-16 workers against 1.10-1.13 s; the small run 0.45-0.49 s in 8-16 pieces against
    # 0.59 s (0.63-0.72 against 0.77 in another lease)
    (16, LARGE, "split", 12, 16), (16, MANY, "processes", 8, 16), (16, SMALL, "split", 4, 16),
    (1, LARGE, "threads", 1, 1),
])
def test_the_shipped_model_on_the_issue_workloads(cores, n_cores, workload, kind, least, most):
    cores(n_cores)
    plan = plan_for_sizes(*workload, None)
    assert plan.kind == kind and least <= plan.jobs <= most


def test_the_issue_run_stays_in_one_process_on_2_cores(cores, monkeypatch):
    """The 1 M-line run of bench/eval_bench.py (1 000 queries x 1 000: 38.8 MB
    of run text, 18.2 MB of qrels) with 2 usable cores: predicted 15 % faster in 2 pieces,
    measured 10-28 % slower on a shared machine. Workers only where the model predicts 30 %
    or more; the run three times that size (predicted 35 %) is split."""
    monkeypatch.setattr(strategy, "can_fork", lambda: True)
    cores(2)
    run, qrels = 38_790_739, 18_207_463
    one = predicted_seconds("threads", 1, [run], qrels, strategy.COSTS, 2)
    assert 1 - predicted_seconds("split", 2, [run], qrels) / one == pytest.approx(0.145, abs=0.01)
    assert plan_for_sizes([run], qrels, None) == strategy.THREADS
    assert plan_for_sizes([3 * run], 3 * qrels, None) == strategy.Plan("split", 2)
    assert strategy.COSTS.margin == 0.3
