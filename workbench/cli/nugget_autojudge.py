"""`workbench autojudge --task nugget-assign|nugget-create` (campaign/answers/machine_nuggets.py)."""

from __future__ import annotations

import os

import click

from workbench.cli import resolve_db


def autojudge_nuggets(ctx, db, task: str, *, model, endpoint, api_key_env, assessor, prompt_file,
                      concurrency, dry_run, timeout, retries, temperature, seed, max_tokens) -> None:
    from workbench.campaign.answers import machine_nuggets as mn
    from workbench.campaign.database import Database
    from workbench.errors import UsageError, WorkbenchError
    from workbench.visible import visible

    template = None
    if prompt_file is not None:
        from workbench.cli.autojudge_cmd import read_prompt

        template = read_prompt(prompt_file, check=False)
        mn.check_nugget_template(template, task, prompt_file)
    request = mn.NuggetRequest(model=model, endpoint=endpoint, assessor=assessor, api_key_env=api_key_env,
                               concurrency=concurrency, timeout=timeout, retries=retries,
                               temperature=temperature, max_tokens=max_tokens, seed=seed, template=template)
    key = None
    if api_key_env is not None and not dry_run:
        key = os.environ.get(api_key_env)
        if not key:
            raise UsageError(f"the environment variable {api_key_env} (--api-key-env) is not set")
    database = Database.open(resolve_db(ctx, db), create=False)
    try:
        if task == "nugget-assign":
            plan = mn.plan_assign(database, request)
            prompts = [c.prompt for c in plan]
        else:
            plan = mn.plan_create(database, request)
            prompts = [p for _, p in plan]
        if dry_run:
            click.echo(f"# {len(plan)} calls to {endpoint.rstrip('/')}/chat/completions ({task}) as {request.name}")
            if prompts:
                click.echo("# the first prompt:")
                click.echo(visible(prompts[0]))
            return
        from workbench.campaign.machine.client import require_httpx

        require_httpx()
        if task == "nugget-assign":
            summary = mn.run_assign(database, request, plan, api_key=key)
            said = f"{request.name}: {summary.labels} labels, {summary.failures} failures"
        else:
            summary = mn.run_create(database, request, plan, api_key=key)
            said = f"{request.name}: {summary.labels} nuggets drafted, {summary.failures} answers without a list"
    finally:
        database.close()
    for line in summary.lines:
        click.echo(line)
    click.echo(f"{said}, {summary.errors} calls without an answer", err=True)
    if summary.errors:
        raise WorkbenchError(f"{summary.errors} calls got no answer; run again to retry them")
