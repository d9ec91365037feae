"""Replay: every call is keyed by the sha256 of (the endpoint's model, the messages, the
parameters, the sample index), and its answer is stored with the key (machine_call.call_key).
`autojudge --offline --assessor NEW` labels a new machine assessor from the stored answers
of the same keys only: it calls nothing, and when one key has no stored answer it fails
before writing anything, naming the first missing key and its item. The grades are read
from the stored answers by the same parser as online, so the new machine's labels equal
the online run's.
"""

from __future__ import annotations

import hashlib
import json

from workbench.campaign.database import Database
from workbench.campaign.machine.client import CallResult
from workbench.errors import UsageError

SAMPLE = 0  # one sample per item (self-consistency samples would number 0..N-1)


def messages(prompt: str) -> list[dict]:
    """The chat messages of one call (as the client sends them)."""
    return [{"role": "user", "content": prompt}]


def call_key(model: str, prompt: str, parameters: dict, sample: int = SAMPLE) -> str:
    """sha256 (hex) of the canonical JSON of (model, messages, parameters, sample index)."""
    text = json.dumps({"model": model, "messages": messages(prompt), "parameters": parameters,
                       "sample": sample}, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class ReplayClient:
    """Stands in for ChatClient: answers from `answers` (key -> (outcome, raw, error)),
    never from the network."""

    def __init__(self, model: str, parameters: dict, answers: dict[str, tuple[str, str, str]],
                 sample: int = SAMPLE) -> None:
        self.model, self.parameters, self.answers, self.sample = model, parameters, answers, sample

    async def __aenter__(self) -> "ReplayClient":
        return self

    async def __aexit__(self, *exc) -> None:
        return None

    async def ask(self, prompt: str, worker: int = 0) -> CallResult:
        key = call_key(self.model, prompt, self.parameters, self.sample)
        found = self.answers.get(key)
        if found is None:  # checked before the run: not reached
            raise UsageError(f"--offline: no stored answer for call {key}")
        _outcome, raw, _error = found
        return CallResult(True, raw, raw, "", 0, 0.0)


def replay_client(db: Database, request, plan):
    """The replay client for `plan` (one per sample with --samples), after checking that
    every call has a stored answer (UsageError naming the first missing key, in the plan's
    order, otherwise)."""
    from workbench.campaign.machine.autojudge import TEXT_CHUNK, _items
    from workbench.campaign.machine.prompts import render
    from workbench.store.machine import answers_by_key

    n = request.samples
    parameters = [request.sample_parameters(k) if n > 1 else request.parameters() for k in range(n)]
    keys: list[tuple[str, str, str]] = []
    for start in range(0, plan.calls, TEXT_CHUNK):
        for item, _q, _d in _items(db, plan, start, min(start + TEXT_CHUNK, plan.calls)):
            prompt = render(request.template, plan.levels, item)
            for k in range(n):
                keys.append((call_key(request.model, prompt, parameters[k], k), item.query, item.document))
    with db.read() as s:
        answers = answers_by_key(s, [k for k, _, _ in keys])
    for key, query, document in keys:
        if key not in answers:
            raise UsageError(f"--offline: no stored answer for call {key} (query {query!r}, document "
                             f"{document!r}); replay needs the same model, prompt and parameters "
                             "as the online run, and calls nothing")
    clients = [ReplayClient(request.model, parameters[k], answers, k) for k in range(n)]
    return clients[0] if n == 1 else clients
