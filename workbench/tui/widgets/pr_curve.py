"""Interpolated precision–recall curves drawn in the terminal (textual-plotext)."""

from __future__ import annotations

from textual_plotext import PlotextPlot

RECALL = [i / 10 for i in range(11)]


class PRCurvePlot(PlotextPlot):
    """One line per system: mean interpolated precision at recall 0.0 … 1.0."""

    def draw(self, curves: dict[str, list[float]], title: str) -> None:
        plt = self.plt
        plt.clear_data()
        plt.clear_figure()
        for system, values in curves.items():
            plt.plot(RECALL, values, label=system, marker="braille")
        plt.title(title)
        plt.xlabel("recall")
        plt.ylabel("interpolated precision")
        plt.xlim(0, 1)
        plt.ylim(0, 1)  # a share: the axis ends at 1.0, not past it
        plt.xticks(RECALL[::2])
        plt.yticks(RECALL[::2])
        self.refresh()
