"""workbench: a terminal relevance-judging and scoring workbench.

The public Python API (docs/python-api.md) is re-exported here lazily: `import workbench`
loads nothing else until one of these names is used.
"""

__version__ = "0.1.0"

_API = ("evaluate", "compare", "agreement", "kendall_tau", "tau_ap", "rbo", "Results",
        "PerQueryResults")

__all__ = ["__version__", *_API]


def __getattr__(name: str):
    if name in _API:
        # by name, not `from workbench import api`: every layer imports this package (for
        # __version__), and the import graph would then run from each of them to the API
        # at the top (docs/architecture.md#layers)
        import importlib

        return getattr(importlib.import_module("workbench.api"), name)
    raise AttributeError(f"module 'workbench' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_API))
