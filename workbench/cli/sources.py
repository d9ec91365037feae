"""The qrels source a command's options name (`--source SPEC`, `--assessor NAME`,
`--consensus METHOD`), as one `QrelsSource`; a bad combination is a usage error (exit 2)."""

from __future__ import annotations

import click


def qrels_source(*, source: str | None = None, assessor: str | None = None,
                 consensus: str | None = None):
    from workbench.campaign.scoring.sources import QrelsSource
    from workbench.errors import UsageError

    try:
        return QrelsSource.of_options(source=source, assessor=assessor, consensus=consensus)
    except UsageError as exc:
        raise click.UsageError(str(exc)) from None
