"""Build ``reasonix_tui/core/lang/data/oewn-related.txt.gz``, the English word relations the
recall channel *related* reads (:mod:`reasonix_tui.core.lang.lexicon`), from the YAML
source of Open English WordNet (CC BY 4.0; see ``reasonix_tui/core/lang/data/README.md``).

    git clone https://github.com/globalwordnet/english-wordnet
    git -C english-wordnet checkout 2025-edition
    python scripts/build_lexicon.py english-wordnet

Only what the channel needs is kept. For every single-word, lower-case lemma, from its
first :data:`FIRST_SENSES` senses per part of speech (WordNet lists a lemma's senses most
frequent first, so the first ones are what the word usually means):

* ``s`` — the other single-word members of those synsets (synonyms: invoice / bill);
* ``d`` — the lemmas its derivation links point to (pay → payment, payout);
* ``f`` — for an irregular form (paid, kept, ran), its lemma; the form also carries the
  lemma's relations;
* ``h`` — one step up or down: the members of those synsets' hypernyms, and the lemmas whose
  own first senses have one of those synsets as hypernym (secret / password).

A relation counts only between first senses of both words (the synset, the derivation's
target sense, the hypernym are among the other word's first senses too).

A pair is kept only when both words are in common use (``wordfreq`` Zipf ≥
:data:`MIN_ZIPF`) and their matching keys (:func:`reasonix_tui.core.lang.en_key`) differ.
Each related word carries the cosine of the two words in the shipped meaning model
(``wordllama``), rounded to two decimals.

Line format (sorted by word, UTF-8): ``word<TAB>word/r/cos word/r/cos …`` (one related
word per matching key, the closest relation kept) with ``r`` one of
``f``, ``s``, ``d``, ``h``; a word's key is its :func:`en_key`. The first line is a header naming
the source and its release.
"""

from __future__ import annotations

import argparse
import gzip
import sys
from collections import defaultdict
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from reasonix_tui.core.lang import embed, en_key  # noqa: E402
from reasonix_tui.core.lang.english import FUNCTION_WORDS  # noqa: E402

OUT = ROOT / "reasonix_tui" / "core" / "lang" / "data" / "oewn-related.txt.gz"
RELEASE = "Open English WordNet 2025-edition"
FIRST_SENSES = 3
"""Senses per part of speech read for a lemma (the most frequent first)."""
MIN_ZIPF = 2.5
"""Both words of a pair at least this common (wordfreq's English Zipf scale)."""
MAX_HYPERNYM_MEMBERS = 3
"""Members of a hypernym synset taken (its first ones: the usual name of the broader idea)."""
RANK = {"f": 0, "s": 1, "d": 2, "h": 3}


def _load(path: Path) -> dict:
    with path.open(encoding="utf-8") as fh:
        return yaml.load(fh, Loader=yaml.CSafeLoader) or {}


def _plain(lemma: str) -> bool:
    return lemma.isascii() and lemma.isalpha() and lemma.islower() and len(lemma) >= 3 and lemma not in FUNCTION_WORDS


def build(source: Path) -> list[str]:
    from wordfreq import zipf_frequency

    yaml_dir = source / "src" / "yaml"
    synsets: dict[str, dict] = {}
    for f in sorted(yaml_dir.glob("*.yaml")):
        if f.name.split(".")[0] in ("noun", "verb", "adj", "adv"):
            synsets.update(_load(f))
    entries: dict[str, dict] = {}
    for f in sorted(yaml_dir.glob("entries-*.yaml")):
        entries.update(_load(f))
    sense_lemma: dict[str, str] = {}
    for lemma, by_pos in entries.items():
        for body in by_pos.values():
            for sense in body.get("sense", []):
                sense_lemma[sense["id"]] = lemma
    first: dict[str, list[dict]] = {}  # lemma → its first senses (all parts of speech)
    for lemma, by_pos in entries.items():
        if _plain(lemma):
            first[lemma] = [s for body in by_pos.values() for s in body.get("sense", [])[:FIRST_SENSES]]
    common = {w for w in first if zipf_frequency(w, "en") >= MIN_ZIPF}
    pairs: dict[str, dict[str, str]] = defaultdict(dict)

    def add(a: str, b: str, rel: str) -> None:
        if a == b or a not in common or b not in common:
            return
        for x, y in ((a, b), (b, a)):
            old = pairs[x].get(y)
            if old is None or RANK[rel] < RANK[old]:
                pairs[x][y] = rel

    first_ids = {lemma: {s["synset"] for s in senses} for lemma, senses in first.items()}
    first_senses = {s["id"] for senses in first.values() for s in senses}
    for lemma in common:
        for sense in first[lemma]:
            syn = synsets.get(sense["synset"], {})
            for m in syn.get("members", []):
                if sense["synset"] in first_ids.get(m, ()):
                    add(lemma, m, "s")
            for target in sense.get("derivation", []):
                other = sense_lemma.get(target)
                if other and target in first_senses:
                    add(lemma, other, "d")
            for hyper in syn.get("hypernym", []):
                for m in synsets.get(hyper, {}).get("members", [])[:MAX_HYPERNYM_MEMBERS]:
                    if hyper in first_ids.get(m, ()):
                        add(lemma, m, "h")
    words = sorted(pairs)
    vectors = dict(zip(words, embed(words)))
    table: dict[str, dict[str, tuple[str, str, float]]] = defaultdict(dict)  # word → related key → entry
    for a in words:
        ka = en_key(a)
        for b, rel in pairs[a].items():
            kb = en_key(b)
            if kb == ka or b in FUNCTION_WORDS:
                continue
            cos = float(vectors[a] @ vectors[b])
            old = table[a].get(kb)
            if old is None or (RANK[rel], -cos) < (RANK[old[1]], -old[2]):
                table[a][kb] = (b, rel, cos)
    # an irregular form (paid, kept, ran) reaches its lemma and, through it, the lemma's relations
    for lemma in words:
        for body in entries.get(lemma, {}).values():
            for form in body.get("form", []):
                if not _plain(form) or en_key(form) == en_key(lemma):
                    continue
                cos = float(embed([form])[0] @ vectors[lemma])
                own = table.get(form, {})
                table[form] = {**table[lemma], **own, en_key(lemma): (lemma, "f", cos)}
    by_key = table
    lines = [f"# {RELEASE} (CC BY 4.0), first {FIRST_SENSES} senses, Zipf >= {MIN_ZIPF}"]
    for key in sorted(by_key):
        rels = sorted(by_key[key].values(), key=lambda t: (RANK[t[1]], -t[2], t[0]))
        lines.append(key + "\t" + " ".join(f"{w}/{r}/{c:.2f}" for w, r, c in rels))
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("source", type=Path, help="a checkout of globalwordnet/english-wordnet at 2025-edition")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    lines = build(args.source)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    data = ("\n".join(lines) + "\n").encode("utf-8")
    with open(args.out, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, compresslevel=9) as fh:
        fh.write(data)
    print(f"{len(lines) - 1} keys, {len(data):,} bytes, {args.out.stat().st_size:,} gzipped → {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
