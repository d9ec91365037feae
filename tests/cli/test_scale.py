"""The relevance scale: set at init or with `workbench scale` before the first grade,
enforced when grading, frozen afterwards."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from workbench.campaign.scale import parse_scale
from workbench.cli import cli, main
from workbench.errors import UsageError


def ok(url, *args) -> str:
    result = CliRunner().invoke(cli, ["--db", url, *args])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_parse_scale_specs_and_presets():
    assert parse_scale("binary") == [(0, "Not relevant", ""), (1, "Relevant", "")]
    assert [g for g, _, _ in parse_scale("0-4")] == [0, 1, 2, 3, 4]
    assert parse_scale("1=Related, 0=Not relevant") == [(0, "Not relevant", ""), (1, "Related", "")]
    for bad in ("0=a,0=b", "0=a,2=b", "0=a", "x=a,1=b", "0=,1=b", "0 a,1=b"):
        with pytest.raises(UsageError):
            parse_scale(bad)


def test_scale_at_init_then_grades_on_it_then_frozen(db_url, tmp_path, capsys):
    out = ok(db_url, "init", "--scale", "0=Not relevant,1=Related,2=Relevant,3=Highly relevant")
    assert out.splitlines()[1:] == ["0  Not relevant", "1  Related", "2  Relevant", "3  Highly relevant"]
    assert ok(db_url, "scale", "0-4").splitlines()[-1] == "4  Perfect"
    assert ok(db_url, "scale").splitlines()[-1] == "4  Perfect"
    (tmp_path / "q.tsv").write_text("q1\tcats\n")
    (tmp_path / "d.tsv").write_text("d1\ta page about cats\n")
    ok(db_url, "import", "queries", str(tmp_path / "q.tsv"))
    ok(db_url, "import", "docs", str(tmp_path / "d.tsv"))
    assert main(["--db", db_url, "grade", "--assessor", "ann", "q1", "d1", "5"]) == 1
    assert "not on the campaign scale" in capsys.readouterr().err
    ok(db_url, "grade", "--assessor", "ann", "q1", "d1", "4")
    assert main(["--db", db_url, "scale", "binary"]) == 2
    assert "grades have been given" in capsys.readouterr().err
    assert main(["--db", db_url, "init", "--scale", "0=a"]) == 2  # refused before anything


@pytest.mark.parametrize("spec", ["0=no,²=yes", "0=no,١=yes", "0=no,１=yes"])
def test_a_non_ascii_digit_in_a_scale_is_a_usage_error(db_url, spec, capsys):
    """`²` passed str.isdigit() and then int() raised a ValueError traceback."""
    assert main(["--db", db_url, "init", "--scale", spec]) == 2
    assert "bad scale level" in capsys.readouterr().err


def test_a_scale_has_no_more_levels_than_judging_keys(db_url, capsys):
    """A 12-level scale was accepted, but only the keys 0-9 grade."""
    twelve = ",".join(f"{g}=level {g}" for g in range(12))
    assert main(["--db", db_url, "init", "--scale", twelve]) == 2
    assert "at most 10 levels" in capsys.readouterr().err
    assert [g for g, _, _ in parse_scale(",".join(f"{g}=l{g}" for g in range(10)))] == list(range(10))
