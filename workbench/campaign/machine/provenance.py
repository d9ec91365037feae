"""Machine assessors and their provenance: the one place that creates a machine assessor.

A machine assessor's provenance is written once, when it is created. Labels made with
another model or another prompt belong to another assessor: reusing a name with a
different model or prompt is refused (the numbers of one assessor must come from one
configuration, or a calibration would mix two). Endpoints are stored without credentials.
"""

from __future__ import annotations

import hashlib
import json
from urllib.parse import urlsplit, urlunsplit

from workbench import __version__
from workbench.campaign.assessors.roster import known_assessor
from workbench.campaign.database import Database
from workbench.campaign.assessors.roster import get_or_create_assessor
from workbench.campaign.writing import write_transaction
from workbench.errors import NotFoundError, UsageError
from workbench.store.external_ids import assessor_id
from workbench.store.machine import (
    HUMAN,
    MACHINE,
    Provenance,
    assessor_kind,
    assessor_kinds,
    provenance,
    set_machine,
)

__all__ = ["HUMAN", "MACHINE", "Provenance", "assessor_kinds", "clean_endpoint", "dropped_from_endpoint",
           "ensure_machine", "existing_machine", "make_provenance", "prompt_sha256", "read_provenance"]


def prompt_sha256(prompt: str) -> str:
    return hashlib.sha256(prompt.encode("utf-8")).hexdigest() if prompt else ""


def clean_endpoint(url: str) -> str:
    """The endpoint's base URL without user, password, query string or fragment (a key
    pasted into the URL must not be stored, printed or sent), and without a trailing slash:
    the URL that is called and stored. Refused (UsageError) when it is not an http(s) URL
    with a host, or its port is not a number from 1 to 65535."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        port = -1
        parts = None
    if parts is None or port == -1 or port == 0:
        raise UsageError(f"--endpoint: the port of {clean_shown(url)} is not a number from 1 "
                         "to 65535")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(f"--endpoint: {clean_shown(url)} is not an http:// or https:// URL "
                         "with a host")
    host = parts.hostname
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    netloc = host + (f":{port}" if port else "")
    return urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))


def dropped_from_endpoint(url: str) -> list[str]:
    """What clean_endpoint leaves out of `url` that the user typed (said on stderr)."""
    parts = urlsplit(url.strip())
    out = []
    if "@" in parts.netloc:
        out.append("the user and password")
    if parts.query:
        out.append("the query string")
    if parts.fragment:
        out.append("the fragment")
    return out


def clean_shown(url: str) -> str:
    """`url` fit for an error message: nothing before an `@` in its authority, no query."""
    text = url.strip().split("?", 1)[0].split("#", 1)[0]
    scheme, sep, rest = text.partition("://")
    if sep:
        authority, slash, path = rest.partition("/")
        text = scheme + sep + authority.rpartition("@")[2] + slash + path
    return repr(text)


def make_provenance(model: str, *, endpoint: str = "", prompt: str = "",
                    parameters: dict | None = None, origin: str = "autojudge") -> Provenance:
    return Provenance(
        model=model, endpoint=clean_endpoint(endpoint) if endpoint else "", prompt=prompt,
        prompt_sha256=prompt_sha256(prompt),
        parameters=json.dumps(parameters or {}, sort_keys=True), origin=origin,
        version=f"workbench {__version__}",
    )


def existing_machine(session, name: str, wanted: Provenance) -> int | None:
    """The id of the machine assessor `name` when it exists with the configuration
    `wanted`; None when the name is new. Refused (UsageError): a person's name, or a
    machine made with another model or prompt (its labels would mix two configurations).
    Reads only: a dry run checks with it too."""
    aid = assessor_id(session, name.strip())
    if aid is None:
        return None
    if assessor_kind(session, aid) != MACHINE:
        raise UsageError(
            f"assessor {name!r} is a person; name the machine assessor otherwise (--assessor)"
        )
    have = provenance(session, aid)
    if have is not None:
        changed = definition_changes(have, wanted)
        if changed:
            raise UsageError(
                f"machine assessor {name!r} was made with {'; '.join(changed)}; labels made "
                "otherwise need another assessor name (--assessor). A machine is defined by its "
                "model, endpoint, prompt, temperature, max tokens, seed and samples "
                "(concurrency, timeout and retries may change)"
            )
    return aid


DEFINING_PARAMETERS = ("temperature", "max_tokens", "seed", "samples")


def definition(p: Provenance) -> dict:
    """What defines a machine (docs/machine-assessors.md): model, endpoint, prompt sha256,
    temperature, max tokens, seed and number of samples (1 when not recorded)."""
    try:
        params = json.loads(p.parameters or "{}")
    except ValueError:
        params = {}
    out = {"model": p.model, "endpoint": p.endpoint, "prompt sha256": p.prompt_sha256}
    for key in DEFINING_PARAMETERS:
        out[key] = params.get(key, 1 if key == "samples" else None)
    return out


def definition_changes(have: Provenance, wanted: Provenance) -> list[str]:
    """The defining fields in which `wanted` differs from the stored `have`, as
    "temperature 0.0 (now 0.7)". An import that names no endpoint keeps the stored one."""
    a, b = definition(have), definition(wanted)
    if not wanted.endpoint:
        b["endpoint"] = a["endpoint"]
    out = []
    for key, old in a.items():
        new = b[key]
        if old != new:
            shown = (lambda v: (v[:12] or "(none)") if key == "prompt sha256" else repr(v))
            out.append(f"{key} {shown(old)} (now {shown(new)})")
    return out


def ensure_machine(session, name: str, wanted: Provenance) -> int:
    """The id of the machine assessor `name` (see existing_machine), created with `wanted`
    as its provenance when it is new."""
    aid = existing_machine(session, name, wanted)
    if aid is None:
        aid = get_or_create_assessor(session, name, machine=True)
        set_machine(session, aid, wanted)
    elif provenance(session, aid) is None:  # a machine row without provenance: give it one
        set_machine(session, aid, wanted)
    return aid


def create_machine(db: Database, name: str, wanted: Provenance) -> int:
    """`ensure_machine` in its own write transaction."""
    with write_transaction(db) as session:
        return ensure_machine(session, name, wanted)


def read_provenance(db: Database, name: str) -> Provenance:
    with db.read() as session:
        aid = known_assessor(session, name)
        found = provenance(session, aid)
    if found is None:
        raise NotFoundError(f"assessor {name!r} is not a machine assessor")
    return found
