"""Sub-commands beyond ``measure`` (bounds, guide, verify, figures, experiment)."""

from __future__ import annotations

COMMANDS: dict = {}


def add_parsers(sub) -> None:
    """Register the other sub-commands on the ``seprank`` parser."""
