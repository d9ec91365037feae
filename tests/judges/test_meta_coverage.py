"""Does `meta`'s bootstrap interval over topics cover the truth? 20 systems, topics drawn
50 at a time from a population of 200, three machines of known noise: the percentile
interval of Kendall's tau-b (meta's interval, 1 000 resamples) must cover the tau-b on the
whole population in at least 90% of 200 seeded repetitions (nominal 95%).
docs/meta-evaluation.md reports the observed figure."""

from __future__ import annotations

import numpy as np

from workbench.metrics import correlation as corr
from workbench.metrics.meta_evaluation import meta_evaluate

SYSTEMS, POPULATION, TOPICS, REPS, RESAMPLES = 20, 200, 50, 200, 1000
NOISE = (0.05, 0.15, 0.3)  # per-topic noise of each machine (and half of it per system)


def coverage() -> np.ndarray:
    rng = np.random.default_rng(34)
    quality = rng.normal(0.4, 0.1, SYSTEMS)
    truth = np.clip(quality[:, None] + rng.normal(0, 0.15, (SYSTEMS, POPULATION)), 0, 1)
    machines = [truth + rng.normal(0, s, (SYSTEMS, POPULATION)) + rng.normal(0, s / 2, (SYSTEMS, 1))
                for s in NOISE]
    population = [corr.kendall_tau(truth.mean(1), m.mean(1), tie_tol=corr.MEAN_TIE_TOL) for m in machines]
    names = [f"s{i:02d}" for i in range(SYSTEMS)]
    present = np.ones((SYSTEMS, TOPICS), dtype=bool)
    covered = np.zeros(len(NOISE))
    for rep in range(REPS):
        topics = rng.choice(POPULATION, TOPICS, replace=False)
        res = meta_evaluate(names, (truth[:, topics], present),
                            [(f"m{k}", (m[:, topics], present)) for k, m in enumerate(machines)],
                            correlations=["kendall_tau_b"], resamples=RESAMPLES, seed=rep)
        for k, j in enumerate(res.judges):
            lo, hi = j.intervals["kendall_tau_b"]
            covered[k] += lo <= population[k] <= hi
    return covered / REPS


def test_percentile_interval_covers_the_population_tau():
    observed = coverage()
    print(f"observed coverage of the nominal 95% percentile interval: {observed.round(3).tolist()}")
    assert (observed >= 0.90).all()


if __name__ == "__main__":
    print(coverage())
