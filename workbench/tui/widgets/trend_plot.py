"""An assessor's trend over their grades drawn in the terminal (textual-plotext), like the
P–R curves: one line per assessor, or one assessor's single values as dots under their
line."""

from __future__ import annotations

from textual_plotext import PlotextPlot


class TrendPlot(PlotextPlot):
    def draw(self, lines: dict[str, tuple[list, list]], title: str, ylabel: str, *,
             points: tuple[list, list] | None = None, ylim: tuple[float, float] | None = None) -> None:
        """`lines`: name -> (grade numbers, values); `points`: single values drawn as dots."""
        self.shown = lines  # what is drawn, for tests and a reader of the widget
        plt = self.plt
        plt.clear_data()
        plt.clear_figure()
        if points is not None and len(points[0]):
            plt.scatter(points[0], points[1], marker="dot", color="gray")
        for name, (x, y) in lines.items():
            if len(x):
                plt.plot(x, y, label=name, marker="braille")
        last = max([int(max(x)) for x, _ in lines.values() if len(x)] + [1])
        plt.xticks(sorted({int(round(1 + (last - 1) * i / 4)) for i in range(5)}))
        plt.title(title)
        plt.xlabel("grade number (in the order given)")
        plt.ylabel(ylabel)
        if ylim is not None:
            plt.ylim(*ylim)
            low, high = ylim
            plt.yticks([low + (high - low) * i / 5 for i in range(6)])
        self.refresh()
