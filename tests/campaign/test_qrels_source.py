"""QrelsSource: one value for a qrels source, its spellings and the CLI's three options."""

from __future__ import annotations

import pytest

from workbench.campaign.scoring.sources import MAJORITY, QrelsSource
from workbench.errors import UsageError


@pytest.mark.parametrize("spec, kind, name, label", [
    ("majority", "consensus", "majority", "consensus:majority"),
    ("mean", "consensus", "mean", "consensus:mean"),
    ("adjudicated", "consensus", "adjudicated", "consensus:adjudicated"),
    ("consensus:mean", "consensus", "mean", "consensus:mean"),
    ("assessor:alice", "assessor", "alice", "assessor:alice"),
    ("assessor:a:b", "assessor", "a:b", "assessor:a:b"),  # names may hold a colon
    ("hybrid:gpt-4o", "hybrid", "gpt-4o", "hybrid:gpt-4o"),
    (" hybrid:x ", "hybrid", "x", "hybrid:x"),
])
def test_parse_and_label(spec, kind, name, label):
    source = QrelsSource.parse(spec)
    assert (source.kind, source.name, source.label, str(source)) == (kind, name, label, label)
    assert QrelsSource.parse(source.label) == source  # the label parses back


@pytest.mark.parametrize("spec", ["", "median", "consensus:median", "assessor:", "hybrid:",
                                  "qrels:x", "alice", "adjudicated:x"])
def test_bad_spellings(spec):
    with pytest.raises(UsageError):
        QrelsSource.parse(spec)


def test_of_options():
    assert QrelsSource.of_options() == MAJORITY == QrelsSource.consensus()
    assert QrelsSource.of_options(assessor="bob") == QrelsSource.assessor("bob")
    assert QrelsSource.of_options(consensus="mean") == QrelsSource.consensus("mean")
    assert QrelsSource.of_options(source="hybrid:m") == QrelsSource.hybrid("m")
    for given in ({"source": "mean", "consensus": "mean"}, {"assessor": "a", "source": "mean"},
                  {"assessor": "a", "consensus": "mean"}):
        with pytest.raises(UsageError):
            QrelsSource.of_options(**given)


def test_hashable_menu_values():
    assert len({QrelsSource.hybrid("m"), QrelsSource.hybrid("m"), QrelsSource.assessor("m")}) == 2
