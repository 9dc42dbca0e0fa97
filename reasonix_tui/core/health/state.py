"""What a new process starts from: fact keys, findings in a marshal-able form, the store digest.

A one-shot ``memory health`` and the Context Center's first Health run get new fact objects,
so nothing kept by object identity helps them. The checker's disk memo (a sealed,
checksummed, versioned, 0600 file under the cache folder) keeps instead, by **fact key** —
a digest of every field of a fact, so an edit of any of them is a new key:

* the per-fact findings (freshness, recall usage) with the signature they were built for
  (:class:`~.base.FindingMemo`'s disk layer): a fact whose key and signature are the same
  gets its finding decoded, not built;
* the findings about pairs and groups of facts (same subject, overrides, duplicates,
  near-duplicates, topic supersessions), valid for one **store digest** (the fact keys in
  snapshot order): an unchanged store skips the resolver and the pair search.

Findings go to disk as plain tuples (:func:`encode_finding`) and come back equal
(:func:`decode_finding`; identical fixes and fact references are shared objects).
"""

from __future__ import annotations

import hashlib
import marshal
from collections.abc import Iterable
from dataclasses import fields
from operator import attrgetter
from typing import Any

from ..store.model import Fact
from .model import FactRef, Finding, Fix

__all__ = ["fact_key", "store_digest", "encode_finding", "encode_with", "decode_finding", "Decoder"]

_TIMES = frozenset(("created_at", "updated_at", "expires_at", "last_verified_at"))
_PLAIN = attrgetter(*(f.name for f in fields(Fact) if f.name not in _TIMES))
_STAMPS = attrgetter(*sorted(_TIMES))


def fact_key(fact: Fact) -> bytes:
    """A digest of every field of ``fact`` (its text, times, revision, scope, path...)."""
    times = tuple(None if t is None else t.ns for t in _STAMPS(fact))
    # marshal version 0: no back-references and no interning flags, so equal values give equal bytes
    return hashlib.blake2b(marshal.dumps((_PLAIN(fact), times), 0), digest_size=16).digest()


def store_digest(keys: Iterable[bytes], extra: str = "") -> bytes:
    """A digest of a snapshot's fact keys in their order (and ``extra``: settings...)."""
    h = hashlib.blake2b(extra.encode("utf-8", "surrogatepass"), digest_size=20)
    for k in keys:
        h.update(k)
    return h.digest()


def encode_finding(f: Finding) -> tuple[Any, ...]:
    """A marshal-able tuple :func:`decode_finding` turns back into an equal finding."""
    return (
        f.kind,
        f.severity,
        f.title,
        tuple((r.id, r.ref, r.revision, r.scope, r.title, r.path, r.role) for r in f.facts),
        f.evidence,
        tuple((x.action, x.label, x.fact_id, x.path, x.keep_id) for x in f.fixes),
        f.key,
        f.fingerprint,
        f.path,
        f.overlap,
        f.data,
    )


class Decoder:
    """Turns encoded findings back into findings, sharing equal fixes and fact references
    (most findings end with the same ``dismiss`` fix). With ``encoded``, each finding made
    is recorded there by object with the value it came from, so :func:`encode_with` gives
    that value back instead of encoding the finding again."""

    def __init__(self, encoded: dict[int, tuple[Finding, Any]] | None = None) -> None:
        self._refs: dict[tuple[Any, ...], tuple[FactRef, ...]] = {}
        self._fixes: dict[tuple[Any, ...], tuple[Fix, ...]] = {}
        self._encoded = encoded

    def _ref(self, raw: Any) -> tuple[FactRef, ...]:
        refs = self._refs.get(raw)
        if refs is None:
            refs = self._refs[raw] = tuple(FactRef(*r) for r in raw)
        return refs

    def _fix(self, raw: Any) -> tuple[Fix, ...]:
        fixes = self._fixes.get(raw)
        if fixes is None:
            fixes = self._fixes[raw] = tuple(Fix(*x) for x in raw)
        return fixes

    def finding(self, value: Any) -> Finding:
        """The finding ``value`` encodes (``TypeError``/``ValueError`` when it is not one).
        The disk memo is sealed (checksummed) and versioned, so its values are the tuples
        :func:`encode_finding` made: they are taken as they are."""
        kind, severity, title, refs, evidence, fixes, key, fp, path, overlap, data = value
        f = Finding(kind, severity, title, self._ref(refs), evidence, self._fix(fixes), key, fp, path, overlap, data)
        if self._encoded is not None:
            self._encoded[id(f)] = (f, value)
        return f


def encode_with(f: Finding, encoded: dict[int, tuple[Finding, Any]] | None) -> tuple[Any, ...]:
    """:func:`encode_finding` of ``f``, or the value ``encoded`` holds for this very object."""
    if encoded is not None:
        hit = encoded.get(id(f))
        if hit is not None and hit[0] is f:
            value: tuple[Any, ...] = hit[1]
            return value
    return encode_finding(f)


def decode_finding(value: Any, decoder: Decoder | None = None) -> Finding:
    """The finding ``value`` (from :func:`encode_finding`) encodes."""
    return (decoder or Decoder()).finding(value)
