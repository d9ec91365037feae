"""Judge panels: their definitions (name, aggregate, members in order)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    from sqlalchemy.orm import Session


@dataclass(frozen=True)
class PanelDefinition:
    name: str
    aggregate: str
    members: tuple[str, ...]
    member_ids: tuple[int, ...]


def add_panel(s: Session, name: str, aggregate: str, member_ids: Sequence[int]) -> None:
    from workbench.store.models import Panel, PanelMember

    panel = Panel(name=name, aggregate=aggregate)
    s.add(panel)
    s.flush()
    s.add_all([PanelMember(panel_id=panel.id, assessor_id=int(a), position=k) for k, a in enumerate(member_ids)])


def panel_exists(s: Session, name: str) -> bool:
    from sqlalchemy import select

    from workbench.store.models import Panel

    return s.execute(select(Panel.id).where(Panel.name == name)).first() is not None


def panel_definitions(s: Session, name: str | None = None) -> list[PanelDefinition]:
    """Every panel by name (or the one named), with its members in the order given."""
    from sqlalchemy import select

    from workbench.store.models import Assessor, Panel, PanelMember

    stmt = (select(Panel.name, Panel.aggregate, Assessor.name, Assessor.id)
            .join(PanelMember, PanelMember.panel_id == Panel.id)
            .join(Assessor, Assessor.id == PanelMember.assessor_id)
            .order_by(Panel.name, PanelMember.position))
    if name is not None:
        stmt = stmt.where(Panel.name == name)
    out: dict[str, tuple[str, list[str], list[int]]] = {}
    for pname, agg, member, mid in s.execute(stmt).all():
        entry = out.setdefault(pname, (agg, [], []))
        entry[1].append(member)
        entry[2].append(int(mid))
    return [PanelDefinition(n, a, tuple(m), tuple(i)) for n, (a, m, i) in out.items()]


def panel_members(conn, name: str) -> tuple[str, tuple[int, ...]] | None:
    """(aggregate, member assessor ids in order) of the panel named, or None; on a plain
    connection or Reader (store.dbapi), as the nugget labels are read."""
    from workbench.store.dbapi import as_reader

    rows = as_reader(conn).rows(
        "SELECT p.aggregate, m.assessor_id FROM panel p JOIN panel_member m ON m.panel_id = p.id "
        "WHERE p.name = :name ORDER BY m.position", {"name": name})
    if not rows:
        return None
    return str(rows[0][0]), tuple(int(r[1]) for r in rows)
