"""Assessors: people, machines and judge panels (a panel's labels are derived from its
members' labels when read; docs/meta-evaluation.md#panels)."""
