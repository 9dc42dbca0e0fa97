"""The language resources' big tables read a bucket at a time (core/lang/keyed_tables.py):
every lookup gives what the whole table gives, and a one-shot Chinese query does not load
jieba's whole prefix dictionary, parse CC-CEDICT, unpack the word priors' tables or import
pkg_resources."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from reasonix_tui.core.lang.keyed_tables import KeyedTable, cached_table


def test_a_cached_table_answers_every_lookup_as_the_whole_table(tmp_path: Path) -> None:
    whole = {f"k{i}": (i, f"v{i}") for i in range(5000)} | {"数据库": 7, "": 0}
    derived: list[int] = []

    def derive() -> tuple[dict[str, object], int]:
        derived.append(1)
        return dict(whole), 42

    first, extra = cached_table(str(tmp_path), "t", "s1", derive)
    assert first == whole and extra == 42 and len(derived) == 1
    table, extra = cached_table(str(tmp_path), "t", "s1", derive)
    assert isinstance(table, KeyedTable) and extra == 42 and len(derived) == 1  # from the file
    assert len(table) == len(whole)
    for key, value in whole.items():
        assert key in table and table[key] == value and table.get(key) == value
    for missing in ("k5000", "数据", "x", 3):
        assert missing not in table and table.get(missing, "none") == "none"  # type: ignore[arg-type]
    assert len(derived) == 1  # lookups never derived the whole table
    assert list(table) == list(whole) and list(table.items()) == list(whole.items())  # its own order
    assert len(derived) == 2
    # another stamp, or a damaged file: derived again, never trusted
    assert not isinstance(cached_table(str(tmp_path), "t", "s2", derive)[0], KeyedTable)
    path = tmp_path / "lang-t-s1.marshal"
    path.write_bytes(path.read_bytes()[:-10])
    assert cached_table(str(tmp_path), "t", "s1", derive)[0] == whole
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    assert cached_table("", "t", "s1", derive)[0] == whole  # no folder: derived, nothing kept


_ANSWERS = """
import json, sys
from reasonix_tui.core.lang import chinese, prior
chinese.configure(sys.argv[1])
texts = ["缓存失效怎么处理", "接口鉴权怎么处理", "数据库迁移", "值班表在哪里", "联调用的环境", "王磊不发版", "健康检查", "買安卓"]
out = {}
for t in texts:
    for run in chinese.han_runs(t):
        words = chinese.segment(run)
        out[run] = [words, chinese.segment_all(run), chinese.dictionary_cut(run)]
        for w in words:
            out[run].append([w, chinese.gloss_keys(w), chinese.head_acronyms(w), chinese.is_function_word(w),
                             chinese.expansion(w), chinese.in_dictionary(w), chinese.sense_count(w),
                             prior.word_prior(w), prior.word_known(w)])
out["en"] = [[w, prior.word_prior(w), prior.word_known(w)] for w in ("deploy", "kotlin", "the", "idempotent")]
from reasonix_tui.core.lang.keyed_tables import KeyedTable
tables = [chinese._DICT, chinese.load_segmenter().FREQ, chinese._HEAD_ACRONYMS, prior._TABLES["zh"],
          prior._TABLES["freq"]]
print(json.dumps({"answers": out, "keyed": [isinstance(t, KeyedTable) for t in tables],
                  "whole": [isinstance(t, KeyedTable) and t._derived is not None for t in tables],
                  "pkg_resources": "pkg_resources" in sys.modules}, ensure_ascii=False))
"""


def _answers(folder: Path) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", _ANSWERS, str(folder)], capture_output=True, text=True, check=True, timeout=600
    )
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_a_chinese_query_reads_the_tables_by_bucket_and_answers_as_the_whole_tables(tmp_path: Path) -> None:
    first = _answers(tmp_path)  # derives the tables whole (as before) and keeps them
    assert first["keyed"] == [False] * 5
    second = _answers(tmp_path)  # a later process: by bucket
    assert second["keyed"] == [True] * 5
    assert second["whole"] == [False] * 5  # nothing derived whole
    assert second["pkg_resources"] is False
    assert second["answers"] == first["answers"]
