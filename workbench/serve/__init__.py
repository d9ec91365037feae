"""`workbench serve`: the judging screen in a browser (textual-serve) behind the project's
own token gate. Talks to campaign/ only; see docs/serve.md."""
