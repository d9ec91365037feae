"""Starting the server: the address, TLS, the clear-text warning, the logs."""

from __future__ import annotations

import ipaddress
import logging
import ssl
import sys

from aiohttp import web

from workbench.campaign.database import Database
from workbench.serve.app_process import db_for_children
from workbench.serve.pool import DEFAULT_SIZE
from workbench.serve.server import RedactingAccessLogger, make_app

CLEAR_TEXT_WARNING = (
    "warning: serving on {host} without --tls-cert/--tls-key: the personal links (and "
    "everything judged) travel in clear text. Use TLS, or a reverse proxy with TLS in "
    "front of a server bound to 127.0.0.1 (docs/serve.md)."
)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def tls_context(cert: str | None, key: str | None) -> ssl.SSLContext | None:
    if cert is None and key is None:
        return None
    if cert is None or key is None:
        from workbench.errors import UsageError

        raise UsageError("--tls-cert and --tls-key go together")
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    return context


def base_url(host: str, port: int, tls: bool) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"{'https' if tls else 'http'}://{shown}:{port}"


def serve(db_url: str | None, *, host: str, port: int, lead: str | None,
          tls_cert: str | None, tls_key: str | None, pool: int = DEFAULT_SIZE,
          echo=print) -> None:
    context = tls_context(tls_cert, tls_key)
    if context is None and not is_loopback(host):
        echo(CLEAR_TEXT_WARNING.format(host=host), file=sys.stderr)
    db = Database.open(db_url, create=False)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    echo(f"workbench serve: {base_url(host, port, context is not None)} on {db.url} "
         f"(links: `workbench serve link --assessor NAME`; Ctrl+C stops)", file=sys.stderr)
    try:
        web.run_app(make_app(db, db_for_children(db_url), lead=lead, pool=pool),
                    host=host, port=port,
                    ssl_context=context, access_log_class=RedactingAccessLogger,
                    print=None)
    finally:
        db.close()
