"""workbench: a terminal relevance-judging and scoring workbench."""

__version__ = "0.1.0"
