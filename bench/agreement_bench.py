"""Agreement on a million labels: ours vs the reference packages, side by side.

    .venv/bin/python bench/agreement_bench.py [--labels 1000000] [--repeat 3]

Cohen's kappa on labels/2 items x 2 raters (scikit-learn `cohen_kappa_score`), Fleiss' kappa
and Krippendorff's alpha on labels/5 items x 5 raters (statsmodels `fleiss_kappa` after
`aggregate_raters`; the `krippendorff` package, which takes raters x items with NaN), 10 %
of the labels missing for alpha. Best of `--repeat` runs; values checked equal.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np


def best(fn, repeat: int) -> tuple[float, object]:
    times, value = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - start)
    return min(times), value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--labels", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    import krippendorff
    from sklearn.metrics import cohen_kappa_score
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    from workbench.metrics import agreement as ag

    rng = np.random.default_rng(0)
    truth2 = rng.integers(0, 4, args.labels // 2)
    pair = np.where(rng.random((truth2.size, 2)) < 0.7, truth2[:, None], rng.integers(0, 4, (truth2.size, 2)))
    truth5 = rng.integers(0, 4, args.labels // 5)
    many = np.where(rng.random((truth5.size, 5)) < 0.7, truth5[:, None], rng.integers(0, 4, (truth5.size, 5)))
    sparse = many.astype(float)
    sparse[rng.random(sparse.shape) < 0.1] = np.nan

    cases = [
        ("Cohen's kappa", f"{truth2.size} x 2",
         lambda: ag.cohen_kappa(pair[:, 0], pair[:, 1]),
         "sklearn cohen_kappa_score", lambda: cohen_kappa_score(pair[:, 0], pair[:, 1])),
        ("weighted kappa (quadratic)", f"{truth2.size} x 2",
         lambda: ag.weighted_kappa(pair[:, 0], pair[:, 1], "quadratic"),
         "sklearn cohen_kappa_score(weights=quadratic)",
         lambda: cohen_kappa_score(pair[:, 0], pair[:, 1], weights="quadratic")),
        ("all pair coefficients", f"{truth2.size} x 2",
         lambda: ag.pair_agreement(pair[:, 0], pair[:, 1]).cohen_kappa, None, None),
        ("Fleiss' kappa", f"{truth5.size} x 5",
         lambda: ag.fleiss_kappa(many),
         "statsmodels fleiss_kappa(aggregate_raters)", lambda: fleiss_kappa(aggregate_raters(many)[0])),
        ("Krippendorff alpha nominal", f"{truth5.size} x 5, 10% missing",
         lambda: ag.krippendorff_alpha(sparse, "nominal"),
         "krippendorff.alpha", lambda: krippendorff.alpha(sparse.T, level_of_measurement="nominal")),
        ("Krippendorff alpha ordinal", f"{truth5.size} x 5, 10% missing",
         lambda: ag.krippendorff_alpha(sparse, "ordinal"),
         "krippendorff.alpha", lambda: krippendorff.alpha(sparse.T, level_of_measurement="ordinal")),
        ("Krippendorff alpha interval", f"{truth5.size} x 5, 10% missing",
         lambda: ag.krippendorff_alpha(sparse, "interval"),
         "krippendorff.alpha", lambda: krippendorff.alpha(sparse.T, level_of_measurement="interval")),
    ]
    print(f"{args.labels} labels, best of {args.repeat}\n")
    header = f"{'coefficient':30} {'shape':24} {'ours s':>8} {'reference':44} {'ref s':>8} {'ref/ours':>8}  value"
    print(header)
    print("-" * len(header))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, shape, ours, ref_name, ref in cases:
            t_ours, v_ours = best(ours, args.repeat)
            if ref is None:
                print(f"{name:30} {shape:24} {t_ours:8.3f} {'-':44} {'-':>8} {'-':>8}  {v_ours:.6f}")
                continue
            t_ref, v_ref = best(ref, args.repeat)
            same = "equal" if np.isclose(v_ours, v_ref, atol=1e-9) else f"DIFFERS ({v_ref:.6f})"
            print(f"{name:30} {shape:24} {t_ours:8.3f} {ref_name:44} {t_ref:8.3f} "
                  f"{t_ref / t_ours:8.1f}  {v_ours:.6f} {same}")
    _correlation_and_tests(args.repeat)


def _correlation_and_tests(repeat: int) -> None:
    """For scale: Kendall's tau on long lists and the randomization test's default size."""
    import scipy.stats as ss

    from workbench.metrics import correlation as corr
    from workbench.metrics import significance as sig

    rng = np.random.default_rng(1)
    x = rng.random(100_000)
    y = x + rng.random(100_000)
    a = rng.random(50)
    b = a - 0.02 + rng.normal(0, 0.1, 50)
    print()
    for name, ours, ref in (
        ("Kendall tau-b, 100 000 items", lambda: corr.kendall_tau(x, y),
         lambda: ss.kendalltau(x, y).statistic),
        ("randomization test, 50 q x 10 000", lambda: sig.randomization_test(a, b).p_value,
         lambda: ss.permutation_test((a, b), lambda u, v, axis: np.mean(u - v, axis=axis),
                                     permutation_type="samples", n_resamples=10_000,
                                     vectorized=True, random_state=0).pvalue),
    ):
        t_ours, v_ours = best(ours, repeat)
        t_ref, v_ref = best(ref, repeat)
        print(f"{name:36} ours {t_ours:7.3f} s  scipy {t_ref:7.3f} s  ref/ours {t_ref / t_ours:5.1f}"
              f"  values {v_ours:.4f} / {v_ref:.4f}")


if __name__ == "__main__":
    main()
