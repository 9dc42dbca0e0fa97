"""The recall's per-fact memo on disk, read by a one-shot health run only when needed.

A ``memory health`` after a write elsewhere has what the resolver and the near-duplicate
search read of every unchanged fact in its own state (:mod:`.resolver_inputs`). What it may
still need are a few facts' analysed fields: the written fact's, and its new neighbours'
when the word test judges a new pair. Reading the recall's whole memo (tens of megabytes
at 10k facts) for them costs more than it spares — unless one of them would load a
language resource (the Chinese and Japanese segmenters take seconds to load; an English
fact is analysed in milliseconds). So :func:`attach_on_miss` leaves the memo's path
pending, and :func:`before` attaches it the first time a value not held in memory is asked
for a fact written in those scripts: the memo then answers for every fact whose content an
earlier process analysed. Before that, a value the checker's own state keeps for the fact
(``kept``: the near-duplicate word test's terms of every fact it judged) is handed to the
memo instead, so the memo is read only for a fact no earlier run analysed.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from ..recall.memo import FACT_MEMO, recall_text
from ..store.model import Fact

__all__ = ["attach_on_miss", "before"]

_SEGMENTED = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
"""Scripts whose analysis loads a segmenter (kana, Han)."""
_pending: list[str] = []
_kept: list[Callable[[Fact, str], Any]] = []
_lock = threading.Lock()


@contextmanager
def attach_on_miss(path: str, kept: Callable[[Fact, str], Any] | None = None) -> Iterator[None]:
    """Within the block, :func:`before` attaches the memo at ``path`` on the first miss;
    ``kept(fact, kind)`` (a value the caller keeps, or ``None``) is asked first."""
    with _lock:
        _pending[:] = [path]
        _kept[:] = [kept] if kept is not None else []
    try:
        yield
    finally:
        with _lock:
            _pending.clear()
            _kept.clear()


def before(facts: Iterable[Fact], kind: str) -> None:
    """Call before ``kind`` of ``facts`` is read from :data:`FACT_MEMO`: attaches the pending
    memo when one of them is not held in memory and is written in a segmented script (a
    no-op outside :func:`attach_on_miss`)."""
    if not _pending:
        return
    kept = _kept[0] if _kept else None
    for f in facts:
        # peek reads memory only while no disk layer is attached
        if FACT_MEMO.peek(f, kind):
            continue
        value = kept(f, kind) if kept is not None else None
        if value is not None:
            FACT_MEMO.seed(f, kind, value)
            continue
        if _SEGMENTED.search(recall_text(f)):
            with _lock:
                if _pending:
                    FACT_MEMO.attach(_pending.pop())
            return
