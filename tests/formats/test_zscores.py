"""formats.zscores: trec_eval's -Z file; bad lines name file:line."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from workbench.errors import InputError
from workbench.formats.zscores import read_zscores

DATA = Path(__file__).resolve().parents[1] / "data" / "trec_eval_quicktest"


def test_reads_trec_evals_quicktest_file():
    z = read_zscores(DATA / "zscores_file")
    assert len(z.table) == 3 * 95
    assert z.table[("301", "num_rel_ret")] == (131.2568, 105.1758)
    mean, sd = z.lookup(["301", "302", "999"], "map")
    assert mean[:2].tolist() == [0.1212, z.table[("302", "map")][0]]
    assert math.isnan(mean[2]) and math.isnan(sd[2])


@pytest.mark.parametrize("text, line, reason", [
    ("1 map 0.1 0.2\n1 P_5 0.1\n", 2, "expected 4 columns"),
    ("1 map 0.1 0.2 extra\n", 1, "expected 4 columns"),
    ("1 map 0.1 x\n", 1, "must be numbers"),
    ("1 map nan 0.1\n", 1, "must be finite"),
    ("1 map 0.1 0.2\n\n1 map 0.3 0.4\n", 3, "given twice"),
])
def test_bad_lines_name_file_and_line(tmp_path, text, line, reason):
    p = tmp_path / "z.txt"
    p.write_text(text)
    with pytest.raises(InputError) as err:
        read_zscores(p)
    assert err.value.line == line and reason in err.value.reason
    assert str(err.value).startswith(f"{p}:{line}: ")
