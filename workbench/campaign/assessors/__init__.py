"""Assessors: people, machines and judge panels (a panel's labels are derived from its
members' labels when read; docs/meta-evaluation.md#panels).

- `roster.py`: who the assessors are (with kinds), the people of a consensus, the one rule
  for a name a user typed (the nearest name for a typo, creation on purpose, no judging as
  a machine);
- `visibility.py`: what each audience (assessor screen, browser, assessor commands, lead)
  may see of an item, a grade, a label or an answer;
- `lease.py`: one judging session per assessor, the newest takes over with a notice;
- `panels.py`: judge panels."""
