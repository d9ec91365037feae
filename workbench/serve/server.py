"""The web server: the token gate in front of textual-serve's app sessions.

Routes: `/s/TOKEN` (the app's page), `/ws/TOKEN` (the app's websocket: the only route that
binds an app to a person), `/static/PATH` (textual-serve's own files, from a list made at start-up),
`/download/KEY` (a lead's export, offered by its app under a random single-use key).
Every other path is 404; no route reads the file system with a name from the request.

Order of the checks on `/s/` and `/ws/`: the token (401 when missing or malformed, 403 when
unknown or revoked; a refusal waits the address's throttle delay, a valid token never
waits), then the role the server serves (a lead's link only with `--lead NAME`). Only
then is an app bound
to the person: a warm one from the pool (pool.py), started earlier with the one fixed command
line, which learns the role and name the token maps to, and nothing else, on its stdin
(binding.py).
While a session runs, its link is checked again at every message from the browser: a
revoked link ends the session there. A second browser for the same assessor takes over
(campaign/assessors/lease.py, the one policy of the terminal, the browser and `grade`):
the older window's app says "another judging session ... took over" and saves nothing more.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field

from aiohttp import WSMsgType, web
from aiohttp.abc import AbstractAccessLogger
from textual_serve.download_manager import DownloadManager

from workbench.campaign.access.links import LEAD, Grant, digest, grant_for, mark_used, well_formed
from workbench.campaign.database import Database
from workbench.serve.app_process import WorkbenchAppService
from workbench.serve.assets import package_assets
from workbench.serve.binding import terminal_size
from workbench.serve.log_redaction import TokenFilter, install_token_filter, redact  # noqa: F401
from workbench.serve.page import app_page, page_assets, refusal_page
from workbench.serve.pool import DEFAULT_SIZE, AppPool
from workbench.serve.throttle import Throttle

log = logging.getLogger("workbench.serve")

_HEADERS = {
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
}


class RedactingAccessLogger(AbstractAccessLogger):
    """aiohttp's access log without tokens (and without query strings)."""

    def log(self, request: web.BaseRequest, response: web.StreamResponse, time: float) -> None:
        self.logger.info('%s "%s %s" %s %.3fs', request.remote, request.method,
                         redact(request.path), response.status, time)


def _refuse(status: type[web.HTTPException], title: str, reason: str) -> web.HTTPException:
    return status(text=refusal_page(title, reason), content_type="text/html", headers=_HEADERS)


@dataclass
class Served:
    """What one server holds: the database, who it serves, the open sessions."""

    db: Database
    db_url: str | None
    lead: str | None = None
    throttle: Throttle = field(default_factory=Throttle)
    # every open session, by (role, name, a number of its own): a person may have two for
    # a moment (the newer one takes over; the older one's app stops saving: lease.py)
    sessions: dict[tuple[str, str, int], web.WebSocketResponse] = field(default_factory=dict)
    pool_size: int = DEFAULT_SIZE
    bound: list[int] = field(default_factory=list)  # pids of apps given to a session
    downloads: DownloadManager = field(default_factory=DownloadManager)
    pool: AppPool = field(init=False)

    def __post_init__(self) -> None:
        self.pool = AppPool(self.pool_size, self.db_url, self.downloads)

    async def admit(self, request: web.Request) -> Grant:
        """The grant of the request's token, or an HTTP refusal (nothing started)."""
        token = request.match_info.get("token", "")
        address = request.remote or "?"
        # checked at once: only a refusal waits (throttle.py), a valid link never does
        if not well_formed(token):
            await self.throttle.refused(address)
            log.warning("refused %s: no valid token in the link", address)
            raise _refuse(web.HTTPUnauthorized, "A personal link is needed",
                          "Open the personal link your campaign lead gave you.")
        grant = await asyncio.to_thread(grant_for, self.db, digest(token))
        if grant is None:
            await self.throttle.refused(address)
            log.warning("refused %s: unknown or revoked link", address)
            raise _refuse(web.HTTPForbidden, "This link does not open anything",
                          "The link is unknown or was revoked; ask your campaign lead "
                          "for a new one.")
        if grant.role == LEAD and grant.name != self.lead:
            log.warning("refused %s: a lead's link, and this server serves no lead %s",
                        address, "screens" if self.lead is None else "of that name")
            raise _refuse(web.HTTPForbidden, "This server does not serve the lead's screens",
                          "Start the server with --lead NAME to open the lead's screens.")
        return grant


async def handle_root(request: web.Request) -> web.Response:
    raise _refuse(web.HTTPUnauthorized, "A personal link is needed",
                  "Open the personal link your campaign lead gave you.")


async def handle_page(request: web.Request) -> web.Response:
    served: Served = request.app[SERVED]
    grant = await served.admit(request)  # a second window takes over (assessors/lease.py)
    scheme = "wss" if request.secure or request.headers.get("X-Forwarded-Proto") == "https" else "ws"
    ws_url = f"{scheme}://{request.host}/ws/{request.match_info['token']}"
    try:
        size = max(8, min(int(request.query.get("fontsize", "16")), 48))
    except ValueError:
        size = 16
    return web.Response(text=app_page(ws_url, size), content_type="text/html", headers=_HEADERS)


def _size(request: web.Request, name: str, default: int) -> int:
    try:
        return max(10, min(int(request.query.get(name, default)), 1000))
    except ValueError:
        return default


async def handle_websocket(request: web.Request) -> web.StreamResponse:
    served: Served = request.app[SERVED]
    grant = await served.admit(request)
    websocket = web.WebSocketResponse(heartbeat=15)
    if not websocket.can_prepare(request).ok:  # no Upgrade, no Sec-WebSocket-Key: not one
        raise _refuse(web.HTTPBadRequest, "Not a WebSocket request",
                      "This address takes the judging page's WebSocket only.")
    key = (grant.role, grant.name, id(websocket))
    served.sessions[key] = websocket
    service: WorkbenchAppService | None = None
    try:
        await websocket.prepare(request)
        await asyncio.to_thread(mark_used, served.db, grant)
        service = await served.pool.take()
        await service.bind(grant, _size(request, "width", 80), _size(request, "height", 24),
                           write_bytes=websocket.send_bytes, write_str=websocket.send_str,
                           close=websocket.close)
        served.bound.append(service.pid or 0)
        log.info("session started: %s %s from %s", grant.role, grant.name, request.remote)
        await _relay(served, grant, websocket, service)
    except asyncio.CancelledError:
        pass
    except Exception:
        log.exception("session of %s %s failed", grant.role, grant.name)
    finally:
        if service is not None:
            await service.stop()
        if served.sessions.get(key) is websocket:
            del served.sessions[key]
        if not websocket.closed:
            await websocket.close()
        log.info("session ended: %s %s", grant.role, grant.name)
    return websocket


async def _relay(served: Served, grant: Grant, websocket: web.WebSocketResponse,
                 service: WorkbenchAppService) -> None:
    """Browser messages to the app; the link is checked again before each one is passed on."""
    async for message in websocket:
        if message.type != WSMsgType.TEXT:
            continue
        if await asyncio.to_thread(grant_for, served.db, grant.digest) is None:
            log.info("link revoked: ending the session of %s %s", grant.role, grant.name)
            await websocket.close(code=4003, message=b"link revoked")
            return
        try:
            envelope = message.json()
            kind, data = envelope[0], envelope[1] if len(envelope) > 1 else None
        except (ValueError, TypeError, IndexError, KeyError):
            continue
        if kind == "stdin" and isinstance(data, str):
            await service.send_bytes(data.encode("utf-8"))
        elif kind == "resize" and isinstance(data, dict):
            size = terminal_size(data.get("width"), data.get("height"))  # clamped, or None
            if size is not None:
                await service.set_terminal_size(*size)
        elif kind == "ping":
            await websocket.send_json(["pong", data])
        elif kind == "blur":
            await service.blur()
        elif kind == "focus":
            await service.focus()


SERVED = web.AppKey("served", Served)


def make_app(db: Database, db_url: str | None, *, lead: str | None = None,
             pool: int = DEFAULT_SIZE) -> web.Application:
    """The server; `pool` warm apps wait for sessions (0: each session starts its own)."""
    install_token_filter()
    served = Served(db, db_url, lead, pool_size=pool)
    assets = {**package_assets(), **page_assets()}

    async def handle_static(request: web.Request) -> web.Response:
        found = assets.get(request.match_info["path"])
        if found is None:
            raise web.HTTPNotFound()
        body, kind = found
        return web.Response(body=body, content_type=kind,
                            headers={"Cache-Control": "max-age=3600",
                                     "X-Content-Type-Options": "nosniff"})

    async def handle_download(request: web.Request) -> web.StreamResponse:
        """A lead's export offered by its app (textual-serve's delivery): the key is the
        app's random single-use delivery key; the file never touches the server's disk."""
        try:
            meta = await served.downloads.get_download_metadata(request.match_info["key"])
        except KeyError:
            raise web.HTTPNotFound() from None
        name = "".join(ch for ch in meta.file_name if ch.isalnum() or ch in "._-") or "export"
        response = web.StreamResponse(headers={
            **_HEADERS, "Content-Type": meta.mime_type + (
                f"; charset={meta.encoding}" if meta.encoding else ""),
            "Content-Disposition": f'attachment; filename="{name}"'})
        await response.prepare(request)
        async for chunk in served.downloads.download(request.match_info["key"]):
            await response.write(chunk)
        await response.write_eof()
        return response

    async def close_sessions(app: web.Application) -> None:
        for websocket in list(served.sessions.values()):
            await websocket.close(code=1001, message=b"server shutting down")

    app = web.Application()
    app[SERVED] = served
    app.add_routes([
        web.get("/", handle_root),
        web.get("/s/{token}", handle_page),
        web.get("/ws/{token}", handle_websocket),
        web.get("/static/{path:.+}", handle_static),
        web.get("/download/{key}", handle_download),
    ])
    async def start_pool(app: web.Application) -> None:
        served.pool.fill()

    async def stop_pool(app: web.Application) -> None:
        await served.pool.close()

    app.on_startup.append(start_pool)
    app.on_shutdown.append(close_sessions)
    app.on_cleanup.append(stop_pool)
    return app
