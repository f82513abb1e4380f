"""The vector index's change-stream thread: collects the ``_id`` of every changed note
(the follower re-reads them), or asks for a full reload on a drop or an invalidate."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from .errors import StoreError, StoreUnavailable

if TYPE_CHECKING:
    from .vectors import VectorIndex

log = logging.getLogger(__name__)


def watch(index: VectorIndex) -> None:
    source = index._source
    assert source is not None
    token = None
    while not index._stop.is_set():
        try:
            with source.watch_changes(resume_after=token) as stream:
                index._stream_live.set()
                index._stream_tried.set()
                while stream.alive and not index._stop.is_set():
                    change = stream.try_next()
                    if change is None:
                        continue
                    token = stream.resume_token
                    key = (change.get("documentKey") or {}).get("_id")
                    if key is None:  # a drop or an invalidate: read everything again
                        with index._lock:
                            index._reload_needed = True
                    else:
                        index.objects_changed([key])
                if not stream.alive:  # invalidated (collection dropped): stop following
                    break
        except StoreUnavailable:  # down for now: the diff covers the gap, then retry
            index._stream_live.clear()
            index._stream_tried.set()
            index._stop.wait(2.0)
            continue
        except StoreError as e:  # no change streams on this server: diff instead
            log.info("vector index: no change stream (%s); diffing ids instead", e)
            break
        except Exception:  # a bug in here must not kill the process, only the stream
            log.exception("vector index: change stream stopped")
            break
    index._stream_live.clear()
    index._stream_tried.set()
