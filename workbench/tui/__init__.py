"""The Textual app (docs/architecture.md#layers): screens/ and widgets/ one per file, styles in app.tcss.

It talks only to `workbench.campaign`; database work runs in thread workers that post the
messages of `messages.py`, and the screens apply them (attributes down, messages up).
"""
