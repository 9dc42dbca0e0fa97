"""What a one-shot query loads: the meaning model reads only its tokens' rows, the English
priors come sorted from their cache, sealed caches load without a copy — and every answer
is the one the whole-table / whole-dictionary code gives."""

from __future__ import annotations

import gc
import gzip
import re
from collections import Counter

import numpy as np
import pytest

from reasonix_tui.core.lang import chinese, prior
from reasonix_tui.core.lang.meaning import MeaningModel, model_files
from reasonix_tui.core.paths import Layout
from reasonix_tui.core.store.sealed import seal, unseal

TEXTS = [
    "how do we deploy the billing service",
    "缓存 cache invalidation",
    "",
    "fix the npm bug in user_id",
    "healthcheck deadletter queue",
]


def test_a_query_reads_rows_and_gets_the_whole_tables_vectors() -> None:
    rows = MeaningModel(*model_files())
    whole = MeaningModel(*model_files())
    whole.table  # noqa: B018 - read the whole table first
    first = rows.embed(TEXTS[:1])
    assert rows._table is None  # noqa: SLF001 - a query did not read the 32 MB table
    assert np.array_equal(first, whole.embed(TEXTS[:1]))
    for text in TEXTS:  # past a few texts the model switches to the whole table: same vectors
        assert np.array_equal(rows.embed([text]), whole.embed([text]))
    assert np.array_equal(rows.embed(TEXTS * 3), whole.embed(TEXTS * 3))
    assert rows._table is not None  # noqa: SLF001


def test_english_priors_from_the_sorted_cache_count_as_the_dictionary_does() -> None:
    with gzip.open(chinese.dictionary_path(), mode="rt", encoding="utf-8") as fh:
        senses = re.findall(r"\] /(.*)/$", fh.read(), flags=re.M)
    counts = Counter(re.findall(r"[a-z]+", "\n".join(senses).lower()))
    prior._en_table()  # noqa: SLF001
    sample = ["use", "deploy", "idempotent", "kotlin", "check", "health", "letter", "dead", "zzzz", "a", "zymurgy"]
    sample += sorted(counts)[::997]
    for word in sample:
        assert prior.gloss_count(word) == counts.get(word, 0), word
    key = "deplo"
    assert prior._en_count(key) == sum(c for w, c in counts.items() if w.startswith(key))  # noqa: SLF001
    assert prior.compound_parts("deadletter") == ("dead", "letter")
    assert prior.compound_parts("deploying") == ()


def test_unseal_takes_no_copy_and_leaves_the_collector_as_it_found_it() -> None:
    value = {"rows": [(i, str(i)) for i in range(1000)], "blob": b"x" * 100_000}
    blob = seal(b"MAGIC", value)
    assert gc.isenabled()
    assert unseal(b"MAGIC", blob) == value
    assert gc.isenabled()
    gc.disable()
    try:
        assert unseal(b"MAGIC", blob) == value
        assert not gc.isenabled()
    finally:
        gc.enable()
    torn = blob[:-1]
    assert unseal(b"MAGIC", torn) is None
    tampered = blob[:-1] + bytes([blob[-1] ^ 1])
    assert unseal(b"MAGIC", tampered) is None
    assert gc.isenabled()


def test_parse_cache_loaded_at_once_answers_as_a_fresh_parse_and_drops_what_it_cannot_use(layout: Layout) -> None:
    """The parse cache rebuilds every fact when it is read (one pass, collector paused): a
    second store gets the same facts as a fresh parse; rows of deleted files and rows that
    do not decode are not used and are gone from the file after the next scan."""
    from reasonix_tui.core.store.cache import ParseCache, decode_cache, encode_cache
    from reasonix_tui.core.store.requests import SaveRequest
    from reasonix_tui.core.store.store import Store

    store = Store(layout)
    for i in range(12):
        store.save(SaveRequest(name=f"fact-{i}", type="project", description=f"about {i}", body=f"body {i}"))
    want = Store(layout).list_all()  # written and cached
    cache = ParseCache(layout.cache_dir, layout.project_dir)
    entries = decode_cache(cache.file.read_bytes(), str(layout.project_dir))
    assert len(entries) == 12
    first = sorted(entries)[0]
    entries[first] = (entries[first][0], ["not", "a", "row"])  # undecodable: read from the file again
    entries["gone.md"] = entries[sorted(entries)[1]]  # a file deleted since
    cache.file.write_bytes(encode_cache(str(layout.project_dir), entries))
    assert Store(layout).list_all() == want
    after = decode_cache(cache.file.read_bytes(), str(layout.project_dir))
    assert "gone.md" not in after and len(after) == 12 and type(after[first][1]) is tuple
    assert Store(layout).list_all() == want


def test_a_tokenizer_cut_down_to_the_texts_gives_the_whole_tokenizers_ids() -> None:
    """A one-shot query is tokenized without building the whole tokenizer (32k tokens, 61k
    merges): a tokenizer cut down to the tokens and merges the texts can use encodes them
    to the same ids — random texts over letters, CJK, emoji, byte-fallback characters,
    spaces and ``▁`` included; texts naming a special token, and long ones, are left to
    the whole tokenizer."""
    import random

    from tokenizers import Tokenizer

    from reasonix_tui.core.lang.query_tokens import MAX_CHARS, small_tokenizer

    path = model_files()[1]
    whole = Tokenizer.from_file(str(path))
    rng = random.Random(16)
    pool = list("abcxyzABCXYZ019 _-./:;!?()<>[]'\"\t\n缓存失效数据库迁移接口鉴权😀éüß™→∑ḁ\u200b\u00a0\u2581")
    texts = [*TEXTS, "  two  spaces ", "\u2581\u2581 x", "ERR_CONN_RESET max_open_conns 缓存失效怎么处理"]
    texts += ["".join(rng.choice(pool) for _ in range(rng.randint(0, 50))) for _ in range(150)]
    for i in range(0, len(texts), 3):
        batch = texts[i : i + 3]
        small = small_tokenizer(path, batch)
        assert small is not None, batch
        got = [e.ids for e in small.encode_batch(batch, add_special_tokens=False)]
        assert got == [e.ids for e in whole.encode_batch(batch, add_special_tokens=False)], batch
    assert small_tokenizer(path, ["hello <s> there"]) is None
    assert small_tokenizer(path, ["x" * (MAX_CHARS + 1)]) is None


def test_the_cut_down_tokenizers_buckets_hold_every_token_and_merge_and_a_query_opens_few(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The parts are kept in buckets so a query unpacks only the ones its substrings fall
    in: every token is found with its id, every merge under the token it forms, in rank
    order; a short query opens a small share of the buckets."""
    import json
    import marshal

    from reasonix_tui.core.lang import query_tokens as qt

    path = model_files()[1]
    model_json = json.loads(path.read_text(encoding="utf-8"))["model"]
    _config, buckets, _longest, _keep, _specials = qt._derive(path)  # noqa: SLF001
    opened = [marshal.loads(b) for b in buckets]
    for token, tid in model_json["vocab"].items():
        assert opened[qt._bucket(token)][token][0] == tid  # noqa: SLF001
    for rank, merge in enumerate(model_json["merges"]):
        formed = opened[qt._bucket(merge.replace(" ", ""))][merge.replace(" ", "")][1]  # noqa: SLF001
        assert (rank, merge) in formed and list(formed) == sorted(formed)
    calls: list[int] = []
    real = marshal.loads

    def counted(data: bytes) -> object:
        calls.append(1)
        return real(data)

    monkeypatch.setattr(marshal, "loads", counted)
    assert qt.small_tokenizer(path, ["how do we deploy the api"]) is not None
    monkeypatch.setattr(marshal, "loads", real)
    assert 0 < len(calls) < qt.BUCKETS // 8


def test_a_query_does_not_build_the_whole_tokenizer() -> None:
    model = MeaningModel(*model_files())
    model.embed(TEXTS[:1])
    assert model._tokenizer is None  # noqa: SLF001 - the cut-down tokenizer answered


_THREADS = """
import os, sys
from reasonix_tui.integrations.commands.recall import _one_thread_blas
_one_thread_blas()
import numpy
print(len(os.listdir("/proc/self/task")), os.environ.get("OPENBLAS_NUM_THREADS"))
"""

_PRODUCTS = """
import hashlib, numpy as np
rng = np.random.default_rng(7)
v = rng.standard_normal((3000, 256)).astype(np.float16).astype(np.float64)
q = rng.standard_normal(256)
m = (v.T @ v) / len(v)
out = [m, v @ q, v.astype(np.float32)[:700] @ q.astype(np.float32), q @ m @ q]
print(hashlib.sha256(b"".join(np.asarray(o).tobytes() for o in out)).hexdigest())
"""


def _python(code: str, **env: str) -> str:
    import os
    import subprocess
    import sys

    base = {
        k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")
    }
    done = subprocess.run([sys.executable, "-c", code], env={**base, **env}, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def test_a_one_shot_command_loads_numpy_with_one_blas_thread_and_puts_the_environment_back() -> None:
    import os
    import sys

    import pytest

    if not sys.platform.startswith("linux"):
        pytest.skip("threads counted in /proc")
    assert _python(_THREADS) == "1 None"  # no BLAS thread pool; child processes unaffected
    assert _python(_THREADS, OPENBLAS_NUM_THREADS="2").split()[1] == "2"  # the user's choice stands
    if len(os.sched_getaffinity(0)) > 1:  # without it, numpy starts its pool (what the one-shot path avoids)
        assert int(_python('import os, numpy; print(len(os.listdir("/proc/self/task")))')) > 1


def test_the_answer_paths_products_are_the_same_with_one_blas_thread() -> None:
    """The second moments (float64 ``v.T @ v``), the cosines (matrix × vector) and the
    spread: bit for bit the same with one BLAS thread as with the default pool."""
    assert _python(_PRODUCTS, OPENBLAS_NUM_THREADS="1") == _python(_PRODUCTS)


def test_past_a_few_hundred_characters_a_process_uses_the_whole_tokenizer_with_the_same_vectors(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A cut-down tokenizer is built per call and costs by the character: a long text (a
    fact's body while the on-disk index is patched), or short texts past
    ``SMALL_CHARS`` in all, go through the whole tokenizer, built once."""
    from reasonix_tui.core.lang import query_tokens

    built: list[int] = []
    real = query_tokens.small_tokenizer

    def counted(path: object, texts: list[str]) -> object:
        built.append(sum(map(len, texts)))
        return real(path, texts)  # type: ignore[arg-type]

    monkeypatch.setattr(query_tokens, "small_tokenizer", counted)
    whole = MeaningModel(*model_files())
    whole.tokenizer  # noqa: B018
    long_text = "deploy the billing service to the staging cluster " * 20
    model = MeaningModel(*model_files())
    assert np.array_equal(model.embed([long_text]), whole.embed([long_text]))
    assert built == [] and model._tokenizer is not None  # noqa: SLF001
    model = MeaningModel(*model_files())
    short = [f"fix the npm bug in user_id {i} " * 3 for i in range(8)]
    for text in short:
        assert np.array_equal(model.embed([text]), whole.embed([text]))
    assert 0 < len(built) < len(short) and sum(built) <= MeaningModel.SMALL_CHARS
    assert model._tokenizer is not None  # noqa: SLF001
