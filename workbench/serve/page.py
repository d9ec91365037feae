"""The HTML pages: the app's page (textual-serve's terminal, without its Google-fonts link:
nothing is fetched from another host, and the page tells the browser never to send its
address, which holds the token, as a referrer) and the short pages of a refusal.

The token never leaves as a Referer: the page says `no-referrer` (header, meta tag, and
`referrerpolicy` on each of its links), and no request is made from the page's own CSS:
Chromium sent `Referer: .../s/TOKEN` with an inline `@font-face` in spite of the policy, so
the font is declared in a stylesheet of its own (PAGE_CSS, served at /static/PAGE_CSS_PATH),
whose requests name the stylesheet, never the page.

The app's page is laid out at the device's width (the viewport meta: without it a phone
draws the page 980 px wide and shrinks it, 16 px text shown at 6 px; at 390 CSS px the
terminal is 40 columns and the judging screen takes its narrow layout) and puts the
keyboard's focus in the terminal as soon as it is made, so that the first digit grades
without a click first (the terminal's own code leaves the focus on the page's body)."""

from __future__ import annotations

from html import escape

_APP = """<!DOCTYPE html>
<html>
<head>
<meta charset="utf-8">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<link rel="stylesheet" href="/static/css/xterm.css" referrerpolicy="no-referrer">
<link rel="stylesheet" href="/static/{page_css}" referrerpolicy="no-referrer">
<script src="/static/js/textual.js" referrerpolicy="no-referrer"></script>
<style>
html, body {{ margin: 0; height: 100%; background: #0c181f; }}
#terminal {{ position: absolute; inset: 0; touch-action: manipulation; }}
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
<script>
window.addEventListener("load", function () {{
  var keys = document.querySelector("#terminal textarea");
  if (keys) {{ keys.focus({{preventScroll: true}}); }}
}});
</script>
</body>
</html>
"""

PAGE_CSS_PATH = "workbench/page.css"
PAGE_CSS = """\
@font-face { font-family: "Roboto Mono"; src: url("../fonts/RobotoMono-VariableFont_wght.ttf"); }
"""

_REFUSAL = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><meta name="referrer" content="no-referrer">
<title>{title}</title></head>
<body style="font-family: sans-serif; margin: 3em;"><h1>{title}</h1><p id="reason">{reason}</p></body></html>
"""


def app_page(ws_url: str, font_size: int = 16, title: str = "workbench") -> str:
    return _APP.format(ws_url=escape(ws_url, quote=True), font_size=int(font_size),
                       title=escape(title), page_css=PAGE_CSS_PATH)


def page_assets() -> dict[str, tuple[bytes, str]]:
    """The page's own static files (beside textual-serve's)."""
    return {PAGE_CSS_PATH: (PAGE_CSS.encode("utf-8"), "text/css")}


def refusal_page(title: str, reason: str) -> str:
    return _REFUSAL.format(title=escape(title), reason=escape(reason))
