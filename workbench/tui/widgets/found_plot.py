"""Relevant documents found against judgments made, one line per pooling method."""

from __future__ import annotations

from textual_plotext import PlotextPlot


class FoundPlot(PlotextPlot):
    def draw(self, simulations) -> None:
        plt = self.plt
        plt.clear_data()
        plt.clear_figure()
        for sim in simulations:
            plt.plot([0, *(p.judged for p in sim.points)], [0, *(p.relevant_found for p in sim.points)],
                     label=sim.method, marker="braille")
        plt.title("relevant found by judgments made (simulated on the consensus)")
        plt.xlabel("judgments")
        plt.ylabel("relevant found")
        self.refresh()
