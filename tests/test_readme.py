"""Every command in the README runs as written, from a fresh clone.

The README's ```sh and ```console blocks are extracted in order (in a console block the
lines that start with `$ `) and run as one shell script, in a temporary copy of the
repository (the files git tracks, plus new ones not ignored), with `set -e`: the first
command that fails fails the test, named with its README line.

Skipped, and only these (each is replaced by `:` so the numbering stays):
- `make demo` and `make test`: they create a virtualenv, install from the network, open the
  TUI or run this very suite;
- commands that open the TUI interactively: bare `workbench [--db X]`, `workbench judge`,
  `workbench demo`;
- the PostgreSQL section's commands with the placeholder `user@host` and its
  `.venv/bin/pip install` line: they need a server and an account of your own;
- `autojudge` against a real model endpoint (`--endpoint https://...`): it needs the network
  and an API key;
- `workbench serve` itself (not `serve link/links/revoke`): a server that runs until it is
  stopped (tests/serve/ start it and drive it in a browser).

`. .venv/bin/activate` finds, in the copy, a small activate script that puts the running
interpreter's `workbench` on PATH (what `make demo` would have installed).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^```(\w*)\s*$")
TUI_COMMANDS = {"judge", "demo"}


def readme_commands(text: str) -> list[tuple[int, str]]:
    """(README line number, command) of every ```sh and ```console block, in order."""
    out: list[tuple[int, str]] = []
    lang = None
    pending: tuple[int, str] | None = None
    for number, line in enumerate(text.splitlines(), 1):
        fence = FENCE.match(line)
        if fence:
            lang = None if lang is not None else fence.group(1) or ""
            continue
        if lang == "sh":
            command = line.strip()
        elif lang == "console" and line.startswith("$ "):
            command = line[2:].strip()
        else:
            continue
        if pending is not None:  # a continued line
            command = pending[1] + " " + command
            number = pending[0]
            pending = None
        if command.endswith("\\"):
            pending = (number, command[:-1].rstrip())
            continue
        if command and not command.startswith("#"):
            out.append((number, command))
    return out


def skip_reason(command: str) -> str | None:
    """Why a README command is not run here, or None."""
    words = shlex.split(command, comments=True)
    if not words:
        return None
    if words[0] == "make" and words[1:] in (["demo"], ["test"]):
        return "make demo / make test"
    if "user@host" in command or words[0].endswith("pip"):
        return "PostgreSQL placeholder"
    if "autojudge" in words and any(w.startswith("https://") for w in words):
        return "a model endpoint"
    if words[0] == "workbench":
        rest = words[1:]
        while rest and rest[0] == "--db":
            rest = rest[2:]
        if not rest or rest[0] in TUI_COMMANDS:
            return "opens the TUI"
        if rest[0] == "serve" and (len(rest) == 1 or rest[1].startswith("-")):
            return "runs a server"
    return None


def test_the_readme_lists_the_commands_it_shows():
    commands = readme_commands((REPO / "README.md").read_text(encoding="utf-8"))
    run = [c for _, c in commands if skip_reason(c) is None]
    skipped = [c for _, c in commands if skip_reason(c) is not None]
    assert len(run) >= 30, run
    # the TUI and make lines are the only ones left out (plus the PostgreSQL placeholders)
    assert {skip_reason(c) for c in skipped} <= {"make demo / make test", "opens the TUI",
                                                "PostgreSQL placeholder", "a model endpoint",
                                                "runs a server"}
    assert any("examples/" in c for c in run)


def _files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


def _not_ignored(names: set[str]) -> list[str]:
    """Of `names` (paths in the repository), the ones its .gitignore does not ignore."""
    if not names:
        return []
    done = subprocess.run(["git", "check-ignore", "--no-index", "--stdin", "-z"], cwd=REPO,
                          input="\0".join(sorted(names)) + "\0", capture_output=True, text=True)
    ignored = set(filter(None, done.stdout.split("\0")))
    return sorted(names - ignored)


def _fresh_copy(dest: Path) -> None:
    """The files a fresh clone has (git's tracked and new unignored files)."""
    try:
        listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=REPO,
                                check=True, capture_output=True).stdout.decode().split("\0")
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    for name in filter(None, listed):
        source = REPO / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)


@pytest.mark.slow
def test_every_readme_command_runs_as_written(tmp_path):
    clone = tmp_path / "clone"
    _fresh_copy(clone)
    cloned = _files(clone)
    bindir = Path(sys.executable).parent
    assert (bindir / "workbench").exists(), "the workbench command is not installed beside python"
    activate = clone / ".venv" / "bin" / "activate"
    activate.parent.mkdir(parents=True)
    activate.write_text(f'export PATH={shlex.quote(str(bindir))}:"$PATH"\n')

    lines = ["set -e"]
    for number, command in readme_commands((clone / "README.md").read_text(encoding="utf-8")):
        if skip_reason(command) is not None:
            lines.append(f": skipped README:{number}")
            continue
        lines.append(f"echo {shlex.quote(f'### README:{number}: {command}')} >&2")
        lines.append(command)
    env = {k: v for k, v in os.environ.items() if not k.startswith("WORKBENCH_")}
    env["PYTHONPATH"] = str(clone)  # this checkout's code, not an installed one
    env["PATH"] = f"{bindir}:{env.get('PATH', '/usr/bin:/bin')}"
    done = subprocess.run(["bash", "-c", "\n".join(lines)], cwd=clone, env=env,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=600)
    last = [line for line in done.stderr.splitlines() if line.startswith("### README:")]
    assert done.returncode == 0, (
        f"failed at {last[-1] if last else 'the start'}\n{done.stderr[-3000:]}")
    assert "Traceback" not in done.stderr
    # What the commands write (the databases, qrels.txt, scores.tex, ...) is ignored by git:
    # following the README leaves `git status` clean.
    assert _not_ignored(_files(clone) - cloned) == []
