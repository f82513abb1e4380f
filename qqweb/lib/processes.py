"""Which process holds a claim (a review pair's verdict, an action's undo), and whether it
is known to be gone: a claim names its process as ``host:pid``; on this host a pid that
no longer runs is a request whose worker was killed, whose claim the next request may
take over at once. Another host's process is never known gone: its claim is waited for
(or expires, where the claim has an expiry)."""

from __future__ import annotations

import os
import socket


def this_process() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def process_gone(process: str) -> bool:
    """Is ``process`` (``host:pid``) known to be gone: on this host, its pid runs no more?"""
    host, _, pid = process.rpartition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)  # signal 0: only asks whether the pid exists
    except ProcessLookupError:
        return True
    except PermissionError:  # another user's live process
        return False
    return False
