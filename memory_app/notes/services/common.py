"""What the memory services share: the millisecond comparison of BSON dates. (Store
errors need no guard here: the stores classify them, as outage or bug, themselves.)"""

from __future__ import annotations

from datetime import datetime
from typing import Any


def same_time(a: Any, b: Any) -> bool:
    """BSON dates keep milliseconds: compare at that precision."""
    if not isinstance(a, datetime) or not isinstance(b, datetime):
        return False
    return abs((a.replace(tzinfo=None) - b.replace(tzinfo=None)).total_seconds()) < 0.001
