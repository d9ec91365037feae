"""Running `workbench --db URL ...` in-process for the CLI tests."""

from __future__ import annotations

from click.testing import CliRunner

from workbench.cli import cli


def run(url, *args, env=None):
    """The click Result of `workbench --db URL ARGS...` (exceptions kept, not printed)."""
    return CliRunner().invoke(cli, ["--db", url, *args], env=env)


def cli_ok(url, *args, env=None) -> str:
    """Its stdout; the command must succeed."""
    result = run(url, *args, env=env)
    assert result.exit_code == 0, result.output
    return result.stdout
