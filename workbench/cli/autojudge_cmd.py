"""`workbench autojudge`: label the pool (or one query, or the top k of the stored runs)
with a model behind any OpenAI-compatible chat-completions endpoint (campaign/machine/).

stdout: one line per stored outcome, printed only after its commit (as `grade --batch`
prints `ok`): `label QUERY DOC GRADE`, `failure QUERY DOC` (an answer with no grade in it,
kept raw) or `error QUERY DOC` (no answer after the retries; a rerun asks again).
stderr: the progress bar (rate, ETA) and the summary. Exit 0 when every chosen item has a
label or a recorded failure; 1 when calls got no answer (run again), or the endpoint
refused (wrong key, model or URL); 130 after Ctrl-C (every label reported is stored).
"""

from __future__ import annotations

import sys
import time

import click

from workbench.cli import db_option, resolve_db, rich_console


@click.command("autojudge")
@click.option("--model", required=True, metavar="NAME", help="The model, as the endpoint names it.")
@click.option("--endpoint", required=True, metavar="URL",
              help="The OpenAI-compatible base URL (called at URL/chat/completions), e.g. "
                   "http://127.0.0.1:8000/v1.")
@click.option("--api-key-env", metavar="VAR", default=None,
              help="The environment variable that holds the API key (sent as a Bearer token; "
                   "never stored, printed or logged).")
@click.option("--assessor", metavar="NAME", default=None,
              help="The machine assessor's name (default: the model's name).")
@click.option("--prompt", "prompt_file", metavar="FILE", type=click.Path(dir_okay=False), default=None,
              help="A prompt template (placeholders {query} {passage} {narrative} {scale} {min} "
                   "{max}); default: the project's 0-3 prompt in UMBRELA's style. The nugget tasks' "
                   "placeholders: docs/nuggets.md#machines.")
@click.option("--concurrency", type=click.IntRange(min=1, max=1024), default=8, show_default=True,
              help="Calls in flight at once.")
@click.option("--query", metavar="Q", default=None, help="Label only this query.")
@click.option("--top-k", "top_k", type=click.IntRange(min=1), default=None, metavar="K",
              help="Label the top K of every stored run instead of the pool.")
@click.option("--dry-run", is_flag=True,
              help="Print the first prompt and the number of calls; call nothing, write nothing.")
@click.option("--timeout", type=click.FloatRange(min=0.001), default=60.0, show_default=True,
              help="Seconds one call may take.")
@click.option("--retries", type=click.IntRange(min=0), default=4, show_default=True,
              help="Retries of a call after a timeout, a lost connection, 429 or 5xx (backoff doubles).")
@click.option("--temperature", type=float, default=0.0, show_default=True)
@click.option("--max-tokens", "max_tokens", type=click.IntRange(min=1), default=64, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--max-failures", "max_failures", type=click.IntRange(min=0), default=5, show_default=True,
              metavar="N", help="Stop after N calls in a row got no answer (a dead endpoint); 0: never.")
@click.option("--samples", type=click.IntRange(min=1), default=1, show_default=True, metavar="N",
              help="Ask N times per item (self-consistency; refused at temperature 0; seed + k for "
                   "sample k). Every sample is stored; the label is their mode, ties to the lower grade.")
@click.option("--offline", is_flag=True,
              help="Call nothing: label a new machine assessor (--assessor NEW) from the stored answers "
                   "of the same calls (model, prompt, parameters); fails naming the first missing one.")
@click.option("--retry-failures", is_flag=True,
              help="Call again for items whose answer held no grade (kept for audit all the same).")
@click.option("--task", type=click.Choice(["grade", "nugget-assign", "nugget-create"]), default="grade",
              show_default=True, help="grade: label the pool; nugget-assign: label the nuggets of the "
                                      "stored answers; nugget-create: draft the nuggets of topics "
                                      "without any (docs/nuggets.md#machines).")
@db_option
@click.pass_context
def autojudge(ctx, model, endpoint, api_key_env, assessor, prompt_file, concurrency, query,
              top_k, dry_run, timeout, retries, temperature, max_tokens, seed, max_failures,
              samples, offline, retry_failures, task, db):
    """Label the pool with a model: a machine assessor (default name: the model's) whose
    provenance (model, endpoint, prompt and its sha256, parameters, version) is stored.
    Every label is committed as it arrives; a rerun continues where the last one stopped.
    See docs/machine-assessors.md."""
    if task != "grade":
        from workbench.cli.nugget_autojudge import autojudge_nuggets

        autojudge_nuggets(ctx, db, task, model=model, endpoint=endpoint, api_key_env=api_key_env,
                          assessor=assessor, prompt_file=prompt_file, concurrency=concurrency,
                          dry_run=dry_run, timeout=timeout, retries=retries, temperature=temperature,
                          seed=seed, max_tokens=max_tokens if max_tokens != 64 else 512)
        return
    from workbench.campaign.database import Database
    from workbench.campaign.machine import autojudge as aj
    from workbench.campaign.machine.prompts import DEFAULT_TEMPLATE
    from workbench.errors import WorkbenchError

    template = DEFAULT_TEMPLATE if prompt_file is None else read_prompt(prompt_file)
    request = aj.Request(
        model=model, endpoint=endpoint, assessor=assessor, template=template,
        api_key_env=api_key_env, concurrency=concurrency, query=query, top_k=top_k,
        timeout=timeout, retries=retries, temperature=temperature, max_tokens=max_tokens,
        seed=seed, retry_failures=retry_failures, max_failures=max_failures, offline=offline,
        samples=samples,
    )
    if offline and not assessor:
        raise click.UsageError("--offline labels a new machine assessor: name it with --assessor NEW")
    database = Database.open(resolve_db(ctx, db), create=False)
    try:
        plan = aj.make_plan(database, request)  # refuses a bad endpoint URL first
        from workbench.campaign.machine.provenance import clean_endpoint, dropped_from_endpoint

        called = clean_endpoint(endpoint)  # the URL called, stored and shown: no credentials
        dropped = dropped_from_endpoint(endpoint)
        if dropped:
            click.echo(f"note: {' and '.join(dropped)} of --endpoint are not sent, stored or "
                       f"shown (a key goes in --api-key-env); calling {called}/chat/completions",
                       err=True)
        if dry_run:
            prompt = aj.first_prompt(database, request, plan)
            click.echo(f"# {plan.calls} calls to {called}/chat/completions for "
                       f"{plan.chosen} items ({plan.settled} already done) as {plan.assessor}")
            if prompt is not None:
                from workbench.visible import visible

                click.echo("# the first prompt:")
                click.echo(visible(prompt))  # it quotes imported text: made harmless, as on screens
            return
        client = None
        if offline:
            from workbench.campaign.machine.replay import replay_client

            client = replay_client(database, request, plan)  # every answer stored, or nothing written
        else:
            if api_key_env is not None:
                aj.api_key(request)  # a missing variable is said before anything is written
            from workbench.campaign.machine.client import require_httpx

            require_httpx()
        bar = _Bar(plan.calls, plan.assessor)
        summary = aj.run(database, request, plan, on_stored=bar.stored, client=client)
        bar.close()
    finally:
        database.close()
    said = (f"{plan.assessor}: {summary.labels} labels, {summary.failures} answers without a "
            f"grade, {summary.errors} calls without an answer; {plan.settled} items were done before")
    click.echo(said, err=True)
    if not summary.created:
        click.echo(f"no call was answered: machine assessor {plan.assessor} was not created",
                   err=True)
    if summary.stopped:
        raise WorkbenchError(summary.stopped)
    if summary.interrupted:
        click.echo("interrupted: every label reported is stored; run again to continue", err=True)
        ctx.exit(130)
    if summary.errors:
        raise WorkbenchError(f"{summary.errors} calls got no answer; run again to retry them")


def read_prompt(path: str, *, check: bool = True) -> str:
    """The prompt file's text (UTF-8); `check`: it must hold {query} and {passage}."""
    from workbench.campaign.machine.prompts import check_template
    from workbench.errors import InputError

    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except UnicodeDecodeError:
        raise InputError(path, None, "the prompt is not UTF-8 text") from None
    except OSError as exc:
        raise InputError(path, None, f"cannot read: {exc.strerror}") from None
    if check:
        check_template(text, path)
    return text


class _Bar:
    """The progress on stderr: a rich bar with rate and ETA on a terminal; elsewhere a
    plain line every few seconds. Each stored outcome is also printed on stdout."""

    EVERY_S = 5.0

    def __init__(self, total: int, name: str) -> None:
        self.total, self.done, self.name = total, 0, name
        self.start = self.last = time.monotonic()
        self.bar = None
        if sys.stderr.isatty():
            from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TaskProgressColumn,
                                       TextColumn, TimeRemainingColumn)

            # the description is the machine's name: data, never markup ("[/x]" crashed it)
            self.bar = Progress(TextColumn("{task.description}", markup=False), BarColumn(),
                                MofNCompleteColumn(), TaskProgressColumn(),
                                TextColumn("{task.fields[rate]}", markup=False),
                                TextColumn("ETA"), TimeRemainingColumn(),
                                console=rich_console(stderr=True), transient=True,
                                # reports on a terminal go above the bar; into a pipe or a file, to stdout
                                redirect_stdout=sys.stdout.isatty(), redirect_stderr=False)
            self.task = self.bar.add_task(name, total=total, rate="")
            self.bar.start()

    def stored(self, stored) -> None:
        extra = f" {stored.grade}" if stored.grade is not None else ""
        sys.stdout.write(f"{stored.outcome} {stored.query} {stored.document}{extra}\n")
        sys.stdout.flush()  # on disk, then said
        self.done += 1
        now = time.monotonic()
        rate = self.done / max(now - self.start, 1e-9)
        if self.bar is not None:
            self.bar.update(self.task, completed=self.done, rate=f"{rate:.1f}/s")
        elif now - self.last >= self.EVERY_S:
            self.last = now
            eta = (self.total - self.done) / rate if rate > 0 else float("nan")
            sys.stderr.write(f"autojudge {self.name}: {self.done}/{self.total} "
                             f"({100 * self.done / self.total:.0f}%), {rate:.1f}/s, ETA {eta:.0f} s\n")

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
