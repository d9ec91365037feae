"""Plots to files (`--plot FILE.png|svg|pdf`, the optional extra `[plots]`): matplotlib on
its headless Agg backend, imported on first use only.

Each function takes plain numbers (what the command's JSON output holds) and writes one
figure with a title, labelled axes and, per series, a line style and marker of its own
(`STYLES`), so that it reads in greyscale. The figure is returned after it is saved (the
tests read its artists back). Beside `evaluation` and `planning` in the layers: it may use
`formats` and `metrics`, never the store.
"""

from workbench.plots.figures import (
    FORMATS,
    STYLES,
    means_with_intervals,
    precision_recall,
    sorted_differences,
)

__all__ = ["FORMATS", "STYLES", "means_with_intervals", "precision_recall", "sorted_differences"]
