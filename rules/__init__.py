"""The rule catalog (DESIGN §4). Codes are stable: add rules, never renumber."""

from __future__ import annotations

from rules.base import Rule
from rules.rmq001_fixed_instance_name import FixedInstanceName
from rules.rmq002_tag_case_drift import TagCaseDrift
from rules.rmq003_broadcasting_retry import BroadcastingRetry

ALL_RULES: list[type[Rule]] = [FixedInstanceName, TagCaseDrift, BroadcastingRetry]

_BY_CODE = {rule.CODE: rule for rule in ALL_RULES}


def rule_by_code(code: str) -> type[Rule] | None:
    """The rule class with this code (case-insensitive), or None."""
    return _BY_CODE.get(code.strip().upper())


__all__ = ["ALL_RULES", "rule_by_code", "Rule"]
