"""The HTML pages: the app's page (textual-serve's terminal, without its Google-fonts link:
nothing is fetched from another host, and the page tells the browser never to send its
address, which holds the token, as a referrer) and the short pages of a refusal."""

from __future__ import annotations

from html import escape

_APP = """<!DOCTYPE html>
<html>
<head>
<meta charset="utf-8">
<meta name="referrer" content="no-referrer">
<title>{title}</title>
<link rel="stylesheet" href="/static/css/xterm.css">
<script src="/static/js/textual.js"></script>
<style>
@font-face {{ font-family: "Roboto Mono"; src: url("/static/fonts/RobotoMono-VariableFont_wght.ttf"); }}
html, body {{ margin: 0; height: 100%; background: #0c181f; }}
#terminal {{ position: absolute; inset: 0; }}
.closed-dialog {{ display: none; }}
body.-closed .closed-dialog {{ display: flex; position: absolute; inset: 0; z-index: 10;
  align-items: center; justify-content: center; color: #eee; background: #0c181f;
  font-family: "Roboto Mono", monospace; }}
</style>
</head>
<body>
<button id="start" type="button" style="display:none" onclick="location.reload()">Start</button>
<div class="closed-dialog"><div class="message">Session ended. Reload the page to start again.</div></div>
<div id="terminal" class="textual-terminal" data-session-websocket-url="{ws_url}" data-font-size="{font_size}"></div>
</body>
</html>
"""

_REFUSAL = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><meta name="referrer" content="no-referrer">
<title>{title}</title></head>
<body style="font-family: sans-serif; margin: 3em;"><h1>{title}</h1><p id="reason">{reason}</p></body></html>
"""


def app_page(ws_url: str, font_size: int = 16, title: str = "workbench") -> str:
    return _APP.format(ws_url=escape(ws_url, quote=True), font_size=int(font_size),
                       title=escape(title))


def refusal_page(title: str, reason: str) -> str:
    return _REFUSAL.format(title=escape(title), reason=escape(reason))
