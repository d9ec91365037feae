"""`workbench serve`: the judging screen in a browser, behind personal links.

    workbench serve link --assessor alice        # prints alice's link (only its hash is kept)
    workbench serve                              # http://127.0.0.1:8000
    workbench serve links                        # who has a link, created, last used
    workbench serve revoke --assessor alice      # the link and alice's open session end

The server (aiohttp, textual-serve) is imported only when it runs: `serve link` and the
other subcommands need no extra installed. See docs/serve.md.
"""

from __future__ import annotations

from datetime import datetime

import click

from workbench.cli import checked_name, db_option, echo_table, resolve_db, table_text

DEFAULT_URL = "http://127.0.0.1:8000"


def _open(ctx: click.Context, db: str | None):
    from workbench.campaign.database import Database

    return Database.open(resolve_db(ctx, db), create=False)


def _one(assessor: str | None, lead: str | None) -> None:
    if (assessor is None) == (lead is None):
        raise click.UsageError("give exactly one of --assessor NAME and --lead NAME")


def _who(f):
    f = click.option("--lead", default=None, metavar="NAME", callback=checked_name,
                     help="The campaign lead (the lead's screens).")(f)
    return click.option("--assessor", "-a", default=None, metavar="NAME", callback=checked_name,
                        help="An assessor (their judging screen only).")(f)


@click.group("serve", invoke_without_command=True)
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to bind; 0.0.0.0 without TLS warns (links travel in clear text).")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True)
@click.option("--lead", default=None, metavar="NAME", callback=checked_name,
              help="Also serve the lead's screens, to the links made with `serve link --lead NAME`.")
@click.option("--pool", type=click.IntRange(0, 64), default=4, show_default=True,
              help="Warm app processes kept ready for the next sessions (started before any "
                   "link is opened, bound to a person only after the link is checked); about "
                   "100 MB each. 0 starts each session's app when its link opens.")
@click.option("--tls-cert", type=click.Path(exists=True, dir_okay=False), default=None,
              help="PEM certificate: serve https.")
@click.option("--tls-key", type=click.Path(exists=True, dir_okay=False), default=None,
              help="PEM private key of --tls-cert.")
@db_option
@click.pass_context
def serve(ctx, host, port, lead, pool, tls_cert, tls_key, db) -> None:
    """Serve the judging screen to browsers: each personal link opens one assessor's
    judging screen (blind, as in the terminal). Binds 127.0.0.1 unless told otherwise."""
    if ctx.invoked_subcommand is not None:
        ctx.obj["serve_db"] = db
        return
    if (tls_cert is None) != (tls_key is None):
        raise click.UsageError("--tls-cert and --tls-key go together")
    try:
        from workbench.serve.running import serve as run_server
    except ModuleNotFoundError as exc:
        raise click.UsageError(
            f"`workbench serve` needs the serve extra ({exc.name} is missing): "
            "pip install 'workbench[serve]'") from None
    run_server(resolve_db(ctx, db), host=host, port=port, lead=lead, tls_cert=tls_cert,
               tls_key=tls_key, pool=pool, echo=click.echo)


@serve.command("link")
@_who
@click.option("--url", default=DEFAULT_URL, show_default=True,
              help="The server's address as the assessor's browser reaches it.")
@click.option("--create", is_flag=True,
              help="--assessor NAME is a new assessor: create it (its app gives it the whole "
                   "pool). Without it, once a pool exists, a name that is not an assessor is "
                   "refused with the nearest name.")
@db_option
@click.pass_context
def link(ctx, assessor, lead, url, create, db) -> None:
    """Print a new personal link for an assessor (or the lead). Their older link stops
    working. The link is shown once: only its token's sha256 is stored."""
    from workbench.campaign.access.links import new_link

    _one(assessor, lead)
    base = check_link_base(url)  # before the new link revokes the older one
    token = new_link(_open(ctx, db or ctx.obj.get("serve_db")), assessor=assessor, lead=lead,
                     create=create)
    click.echo(f"{base}/s/{token}")


def check_link_base(url: str) -> str:
    """`serve link --url`: an http(s) address with a host, and maybe a port and a path (a
    reverse proxy's prefix); no user, password, query string or fragment, which would make
    a link that opens nothing. The address without its trailing slash."""
    from urllib.parse import urlsplit

    text = url.strip()
    try:
        parts = urlsplit(text)
        port_ok = parts.port is None or 1 <= parts.port <= 65535
    except ValueError:
        port_ok = False
        parts = None
    why = None
    if parts is None or not port_ok:
        why = "its port is not a number from 1 to 65535"
    elif parts.scheme not in ("http", "https") or not parts.hostname:
        why = "it is not an http:// or https:// address with a host"
    elif "@" in parts.netloc:
        why = "it holds a user or a password"
    elif parts.query or parts.fragment or "?" in text or "#" in text:
        why = "it holds a query string or a fragment (the token goes after /s/)"
    if why is not None:
        raise click.BadParameter(f"{text!r}: {why}", param_hint="--url")
    return text.rstrip("/")


def _when(at: datetime | None) -> str:
    return "-" if at is None else at.strftime("%Y-%m-%d %H:%M:%S")


@serve.command("links")
@db_option
@click.pass_context
def links(ctx, db) -> None:
    """Who has a link: role, name, created, last used, and whether it was revoked (never a
    token)."""
    from workbench.campaign.access.links import links as all_links

    rows = [[row.role, table_text(row.name), _when(row.created_at), _when(row.last_used_at),
             "revoked " + _when(row.revoked_at) if row.revoked_at else "live"]
            for row in all_links(_open(ctx, db or ctx.obj.get("serve_db")))]
    echo_table(("role", "name", "created", "last used", "state"), rows, lambda j, c: False)


@serve.command("revoke")
@_who
@db_option
@click.pass_context
def revoke(ctx, assessor, lead, db) -> None:
    """End a person's link; their open browser session ends at its next message."""
    from workbench.campaign.access.links import revoke as revoke_link

    _one(assessor, lead)
    n = revoke_link(_open(ctx, db or ctx.obj.get("serve_db")), assessor=assessor, lead=lead)
    who = f"assessor {assessor}" if assessor is not None else f"lead {lead}"
    click.echo(f"revoked the link of {who}" if n else f"{who} has no live link", err=True)
