"""History search benchmark: 100k records of realistic session files.

Prints, in one run:

* cold index time (first search: list, parse, tokenize, build postings), and the first
  search of a later one-shot process that starts from the disk cache;
* warm query latency (median / p95) of the inverted index, including the per-query
  re-listing of the session directory and the mtime/size check of every file;
* the cost of an incremental update (one session grows by a turn; one is rewritten);
* baselines: Reasonix's own algorithm (re-read and score every document per call), and a
  warm full scan (BM25 over every document, no postings);
* SQLite FTS5 over the same pre-tokenized documents (candidate retrieval only: FTS5's
  bm25() is not Reasonix's formula, so exact scores would still need a re-score);
* a check that the index's scores equal ``BM25Index`` on the same selection.

Usage: ``python benchmarks/history_bench.py [--records 100000] [--sessions 500] [--queries 60]``
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from reasonix_tui.core.bm25 import BM25Index  # noqa: E402
from reasonix_tui.core.compat.tokenize import query_terms, tokens  # noqa: E402
from reasonix_tui.core.sessions.history import HistoryIndex
from reasonix_tui.core.sessions.history_docs import DEFAULT_KINDS, extract_documents
from reasonix_tui.core.sessions.history_options import HistoryOptions
from reasonix_tui.core.sessions.transcripts import read_reasonix_session  # noqa: E402

CODE_WORDS = (
    "func return import package struct interface error nil context string bytes json yaml toml "
    "config session memory recall history index search score token cache prefix stable build "
    "test fixture assert pytest textual widget pane modal approval store fact revision archive "
    "docker compose kubectl deploy staging production migration schema postgres sqlite redis "
    "lint format mypy ruff black commit branch rebase merge review pull request pipeline ci"
).split()
CJK = "数据库迁移缓存前缀稳定记忆检索会话历史项目全局归档配置测试部署分支提交评审界面布局按钮页面设计交互"
TOOLS = ("bash", "read_file", "edit_file", "write_file", "grep", "list_dir")


def _vocab(rng: random.Random, n: int) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    out = set(CODE_WORDS)
    while len(out) < n:
        out.add("".join(rng.choice(letters) for _ in range(rng.randint(3, 10))))
    return sorted(out)


class Corpus:
    """Zipf-ish text generator."""

    def __init__(self, seed: int = 7) -> None:
        self.rng = random.Random(seed)
        self.words = _vocab(self.rng, 20000)
        weights = [1.0 / (i + 1) ** 1.05 for i in range(len(self.words))]
        total = sum(weights)
        self.cum = []
        acc = 0.0
        for w in weights:
            acc += w / total
            self.cum.append(acc)

    def word(self) -> str:
        import bisect

        return self.words[min(bisect.bisect_left(self.cum, self.rng.random()), len(self.words) - 1)]

    def sentence(self, n: int) -> str:
        parts = [self.word() for _ in range(n)]
        if self.rng.random() < 0.15:
            i = self.rng.randrange(len(CJK) - 6)
            parts.insert(self.rng.randrange(len(parts) + 1), CJK[i : i + self.rng.randint(2, 6)])
        if self.rng.random() < 0.1:
            parts.append(f"ERR-{self.rng.randint(1000, 9999)}")
        return " ".join(parts)

    def paragraph(self, sentences: int, words: int) -> str:
        return ". ".join(self.sentence(self.rng.randint(words // 2, words)) for _ in range(sentences)) + "."


def build_home(root: Path, records: int, sessions: int, corpus: Corpus) -> tuple[Path, int]:
    """Write ``sessions`` Reasonix session files totalling about ``records`` documents."""
    sdir = root / "sessions"
    sdir.mkdir(parents=True)
    per = max(records // sessions, 4)
    total = 0
    rng = corpus.rng
    for s in range(sessions):
        path = sdir / f"20250101-{s:06d}.000000000-deepseek-chat.jsonl"
        lines = ['{"schema_version":1}']
        docs = 0
        call = 0
        while docs < per:
            lines.append(
                json.dumps(
                    {
                        "role": "user",
                        "origin": "user",
                        "content": corpus.paragraph(1, 18),
                        "createdAt": 1735689600000 + docs,
                    },
                    ensure_ascii=False,
                )
            )
            docs += 1
            for _ in range(rng.randint(1, 3)):
                tool = rng.choice(TOOLS)
                call += 1
                args = json.dumps(
                    {
                        "cmd"
                        if tool == "bash"
                        else "path": f"{corpus.word()} {corpus.word()} ./{corpus.word()}/{corpus.word()}.py"
                    }
                )
                lines.append(
                    json.dumps(
                        {
                            "role": "assistant",
                            "content": corpus.paragraph(1, 12),
                            "tool_calls": [{"id": f"c{call}", "name": tool, "arguments": args}],
                        },
                        ensure_ascii=False,
                    )
                )
                docs += 2
                out = corpus.paragraph(rng.randint(2, 6), 14)
                if rng.random() < 0.12:
                    out = "error: " + out
                lines.append(
                    json.dumps(
                        {"role": "tool", "tool_call_id": f"c{call}", "name": tool, "content": out}, ensure_ascii=False
                    )
                )
                docs += 2 if out.startswith("error:") else 1
            lines.append(json.dumps({"role": "assistant", "content": corpus.paragraph(2, 20)}, ensure_ascii=False))
            docs += 1
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        total += docs
    return sdir, total


def timed(fn, *args, **kwargs):
    t = time.perf_counter()
    out = fn(*args, **kwargs)
    return time.perf_counter() - t, out


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    k = min(len(values) - 1, max(0, math.ceil(p / 100 * len(values)) - 1))
    return values[k]


def reasonix_full_scan(sdir: Path, query: str) -> int:
    """Reasonix ``Searcher.Search``: load every file, extract, tokenize, score everything."""
    terms = query_terms(query)
    docs = []
    for p in sorted(sdir.glob("*.jsonl")):
        t = read_reasonix_session(p)
        for d in extract_documents(t.messages):
            if d.kind in DEFAULT_KINDS:
                toks = tokens(d.text)
                if toks:
                    docs.append(toks)
    idx = BM25Index(docs)
    return sum(1 for _ in idx.search(terms))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=100_000)
    ap.add_argument("--sessions", type=int, default=500)
    ap.add_argument("--queries", type=int, default=60)
    ap.add_argument("--no-baseline", action="store_true", help="skip the slow per-call full-scan baseline")
    a = ap.parse_args()

    corpus = Corpus()
    with tempfile.TemporaryDirectory(prefix="history-bench-") as tmp:
        root = Path(tmp)
        t_build, (sdir, written) = timed(build_home, root, a.records, a.sessions, corpus)
        size_mb = sum(p.stat().st_size for p in sdir.glob("*.jsonl")) / 1e6
        print(
            f"corpus: {a.sessions} session files, {written} records (all kinds), {size_mb:.1f} MB, written in {t_build:.1f}s"
        )

        index = HistoryIndex(HistoryOptions(session_dir=str(sdir)))
        t_cold, res = timed(index.search, "migration schema")
        print(
            f"cold index + first query: {t_cold * 1000:.0f} ms ({index.document_count} documents indexed, "
            f"{index.term_count} terms)"
        )

        # A one-shot process (``reasonix-tui history search``) keeps a disk cache: the
        # next process starts from it and reads only changed session files.
        cache_file = root / "history-cache.marshal"
        writer = HistoryIndex(HistoryOptions(session_dir=str(sdir)))
        writer.enable_disk_cache(cache_file)
        writer.search("migration schema")
        t_save, _ = timed(writer.save_disk_cache)
        reader = HistoryIndex(HistoryOptions(session_dir=str(sdir)))
        t_disk, res_disk = timed(lambda: (reader.enable_disk_cache(cache_file), reader.search("migration schema"))[1])
        same = [(h.session_path, h.message_index, h.score) for h in res_disk.hits] == [
            (h.session_path, h.message_index, h.score) for h in res.hits
        ]
        print(
            f"next process, from the disk cache: {t_disk * 1000:.0f} ms (cache {cache_file.stat().st_size / 1e6:.0f} MB, "
            f"written in {t_save * 1000:.0f} ms; same hits: {same})"
        )

        rng = random.Random(11)
        queries = []
        for i in range(a.queries):
            r = i % 6
            if r == 0:
                queries.append(corpus.words[rng.randrange(2000, 20000)])  # rare word
            elif r == 1:
                queries.append(" ".join(rng.sample(CODE_WORDS, 3)))  # common code words
            elif r == 2:
                queries.append(f"ERR-{rng.randint(1000, 9999)}")  # ticket-like id
            elif r == 3:
                j = rng.randrange(len(CJK) - 4)
                queries.append(CJK[j : j + 4])  # CJK bigrams
            elif r == 4:
                queries.append(corpus.sentence(6))  # long natural query
            else:
                queries.append(corpus.words[0] + " " + corpus.words[1])  # the most common words
        lat = []
        kinds_lat = []
        for q in queries:
            dt, _ = timed(index.search, q)
            lat.append(dt)
            dt, _ = timed(index.search, q, "", ["tool_output"], "bash")
            kinds_lat.append(dt)
        print(
            f"warm query (default kinds), {len(lat)} queries: median {statistics.median(lat) * 1000:.2f} ms, "
            f"p95 {pct(lat, 95) * 1000:.2f} ms, max {max(lat) * 1000:.2f} ms"
        )
        print(
            f"warm query (kind=tool_output, tool_name=bash): median {statistics.median(kinds_lat) * 1000:.2f} ms, "
            f"p95 {pct(kinds_lat, 95) * 1000:.2f} ms"
        )

        # The per-query fixed cost: listing + stat of every file.
        dt_list = statistics.median([timed(index.sources, "project")[0] for _ in range(10)])
        print(f"  of which listing {a.sessions} files (scandir + visibility + stat): {dt_list * 1000:.2f} ms")

        # Incremental update: append a turn to one session; rewrite another.
        target = sorted(sdir.glob("*.jsonl"))[3]
        with open(target, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"role": "user", "content": "zebraquartz appended decision"}) + "\n")
        dt_app, r = timed(index.search, "zebraquartz")
        print(f"after appending one message to a session: {dt_app * 1000:.1f} ms (hits={len(r.hits)})")
        other = sorted(sdir.glob("*.jsonl"))[5]
        text = other.read_text(encoding="utf-8").replace('"role": "user"', '"role": "user", "raw_content": "x"', 1)
        other.write_text(
            text + json.dumps({"role": "user", "content": "zebraquartz rewritten"}) + "\n", encoding="utf-8"
        )
        dt_rw, r = timed(index.search, "zebraquartz")
        print(f"after rewriting one session file: {dt_rw * 1000:.1f} ms (hits={len(r.hits)})")

        # Exactness: the index's scores equal BM25Index over the same selection.
        sel_docs, keys = [], []
        for p in sorted(sdir.glob("*.jsonl")):
            t = read_reasonix_session(p)
            for d in extract_documents(t.messages):
                if d.kind in DEFAULT_KINDS and tokens(d.text):
                    sel_docs.append(tokens(d.text))
                    keys.append((str(p), d.message_index, d.kind, d.tool_name))
        ref = BM25Index(sel_docs)
        n_docs = len(sel_docs)
        avg = sum(len(d) for d in sel_docs) / n_docs
        df: dict[str, int] = {}
        for d in sel_docs:
            for t in set(d):
                df[t] = df.get(t, 0) + 1

        def go_score(doc: list[str], terms: list[str]) -> float:
            # Reasonix retrieval.BM25Score, operation for operation.
            score = 0.0
            for term in terms:
                tf = doc.count(term)
                if tf == 0 or df.get(term, 0) == 0:
                    continue
                idf = math.log(1 + (float(n_docs) - float(df[term]) + 0.5) / (float(df[term]) + 0.5))
                score += idf * (tf * 2.2) / (tf + 1.2 * (0.25 + 0.75 * len(doc) / avg))
            return score

        by_key = {k: i for i, k in enumerate(keys)}
        worst_go = worst_ref = 0.0
        checked = 0
        for q in queries[:12]:
            terms = query_terms(q)
            ref_scores = {pos: s for pos, s, _ in ref.search(terms)}
            for h in index.search(q, limit=5).hits:
                i = by_key[(h.session_path, h.message_index, h.kind, h.tool_name)]
                worst_go = max(worst_go, abs(go_score(sel_docs[i], terms) - h.score))
                worst_ref = max(worst_ref, abs(ref_scores[i] - h.score))
                checked += 1
        print(
            f"score check on {checked} hits: max |diff| vs Reasonix's formula (Go operation order) = {worst_go:.1e}; "
            f"vs BM25Index (rank-bm25, other float order) = {worst_ref:.1e}"
        )

        # Baseline 1: warm full scan (every document scored, no postings).
        dts = []
        for q in queries[:10]:
            terms = query_terms(q)
            dts.append(timed(ref.full_scan_scores, terms)[0])
        print(
            f"baseline, warm full scan of {ref.size} documents (rank-bm25 get_scores): median {statistics.median(dts) * 1000:.1f} ms"
        )

        # Baseline 2: Reasonix's per-call algorithm.
        if not a.no_baseline:
            dts = [timed(reasonix_full_scan, sdir, q)[0] for q in queries[:3]]
            print(
                f"baseline, Reasonix per-call scan (read + tokenize + score everything): median {statistics.median(dts) * 1000:.0f} ms"
            )

        # SQLite FTS5 over pre-tokenized text.
        db = sqlite3.connect(":memory:")
        try:
            db.execute(
                "CREATE VIRTUAL TABLE d USING fts5(body, tokenize=\"unicode61 remove_diacritics 0 tokenchars '_'\")"
            )
            t0 = time.perf_counter()
            db.executemany(
                "INSERT INTO d(rowid, body) VALUES (?, ?)", ((i, " ".join(toks)) for i, toks in enumerate(sel_docs))
            )
            db.commit()
            t_fts_build = time.perf_counter() - t0
            fts = []
            for q in queries:
                terms = query_terms(q)
                expr = " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)
                t0 = time.perf_counter()
                db.execute("SELECT rowid, bm25(d) FROM d WHERE d MATCH ? ORDER BY bm25(d) LIMIT 8", (expr,)).fetchall()
                fts.append(time.perf_counter() - t0)
            print(
                f"SQLite FTS5 (pre-tokenized, build {t_fts_build * 1000:.0f} ms): median {statistics.median(fts) * 1000:.2f} ms, "
                f"p95 {pct(fts, 95) * 1000:.2f} ms (candidate ranking only; bm25() is not Reasonix's formula)"
            )
        except sqlite3.OperationalError as exc:
            print(f"SQLite FTS5 unavailable: {exc}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
