"""The shared language resources (core/lang) and the promise that nothing reaches the network."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np

from reasonix_tui.core import lang
from reasonix_tui.core.lang import chinese
from reasonix_tui.core.lang.prior import word_prior


def test_stemming_and_keys_meet_across_derivations() -> None:
    assert lang.stem("approvals") == lang.stem("approve") == "approv"
    assert lang.en_key("production") == lang.en_key("produce")  # Snowball keeps them apart; the key does not
    assert lang.en_key("max_open_conns") == "max_open_conns"  # identifiers are kept whole
    assert "the" in lang.FUNCTION_WORDS and "deploy" not in lang.FUNCTION_WORDS


def test_segmentation_finds_words_not_bigrams() -> None:
    assert lang.segment("数据库迁移") == ("数据库", "迁移")
    assert set(lang.segment_all("数据库迁移")) >= {"数据", "数据库", "迁移"}
    assert lang.segment("对账服务谁负责") == ("对账", "服务", "谁", "负责")


def test_unknown_words_glued_around_a_grammar_character_are_split() -> None:
    assert chinese.segment("值班表在哪里看")[:3] == ("值班", "表", "在")
    assert chinese.segment("王磊负责什么")[0] == "王磊"  # a name the HMM finds stays whole


def test_a_word_glued_around_grammar_keeps_the_word_the_hmm_found() -> None:
    # 不发版 came out as 不 / 发 / 版: the jargon word 发版 ("to ship a release") was lost
    assert "发版" in chinese.segment("周五下午和节假日前一天不发版")
    assert "发版" in chinese.segment("每次发版前在性能平台跑一遍")
    assert chinese.segment("新手机买安卓还是苹果")[1:3] == ("买", "安卓")  # CC-CEDICT spells the rest
    assert chinese.segment("功能开关在哪配")[-2:] == ("哪", "配")
    # jieba's path prefers 联 + 调用 ("to call"); 联调 + 用 ("to use") is the word
    assert chinese.segment("和银行联调用哪个环境")[2:4] == ("联调", "用")


def test_two_lone_characters_that_spell_a_content_word_are_that_word() -> None:
    """jieba's path cut 后端 "backend" (rare in its corpus, made of common characters) into
    后 + 端, and 字段 "field" into 字 + 段."""
    assert "后端" in chinese.segment("后端值班每周几换人")
    assert "字段" in chinese.segment("改了字段要先改文档")
    assert chinese.segment("和银行联调用哪个环境") == ("和", "银行", "联调", "用", "哪个", "环境")


def test_a_word_without_glosses_is_read_through_the_word_it_abbreviates() -> None:
    assert chinese.glosses("联调") == ()  # no sense of its own in CC-CEDICT
    assert chinese.expansion("联调") == "联调联试"  # the only headword it spells
    keys, direct = chinese.gloss_keys("联调")
    assert not direct and {"debug", "test"} <= set(keys)
    assert chinese.expansion("中行") == "中国银行"  # the entry's own "abbr. for"
    assert "bank" in chinese.gloss_keys("中行")[0]
    assert chinese.expansion("部署") == ""  # a word with glosses keeps them
    assert chinese.expansion("交接") == ""


def test_japanese_kana_katakana_words_whole_hiragana_none() -> None:
    keys = [t.key for t in lang.analyze("ステージングのサーバーを再起動してください")]
    assert "z:ステージング" in keys and "z:サーバー" in keys
    assert not [k for k in keys if any("\u3040" <= c <= "\u309f" for c in k)]  # の, を, して, ください
    assert [u.label for u in lang.query_units("デプロイ手順を教えて")][:2] == ["デプロイ", "手順"]


def test_a_common_character_is_translated_by_the_sense_most_of_its_senses_share() -> None:
    assert chinese.dominant_keys("读") == ("read",)  # comma / read out / read / attend / pronounce
    assert chinese.dominant_keys("表") == ()  # table, meter, watch, list, surface, to express…
    read = next(u for u in lang.query_units("服务的密钥从哪里读？") if u.label == "读")
    assert ("w:read", 0.6, "translated") in read.alternatives


def test_a_fact_word_stands_for_a_longer_gloss_only_as_a_clipping_or_a_compound_head() -> None:
    from reasonix_tui.core.lang.terms import shortened_form

    for short, gloss in (("env", "environment"), ("doc", "document"), ("prod", "produce"), ("gray", "grayscale")):
        assert shortened_form(short, gloss), (short, gloss)
    for short, gloss in (("app", "apple"), ("new", "news"), ("per", "period"), ("line", "linear"), ("app", "applies")):
        assert not shortened_form(short, gloss), (short, gloss)


def test_a_later_sense_the_dictionary_marks_as_computing_is_read() -> None:
    """Only the first five usable senses were read: 拖拉's sixth is "(computing) drag and
    drop", 破解's sixth "to crack (software)"."""
    assert "drop" in chinese.glosses("拖拉")
    assert "crack" in chinese.glosses("破解")
    assert "pointer" in chinese.glosses("指标")
    assert len(chinese.glosses("部署")) == 3  # a word with few senses is unchanged


def test_dictionary_both_ways() -> None:
    assert "deploy" in lang.glosses("部署")
    assert "database" in lang.glosses("數據庫")  # traditional headwords too
    keys, direct = lang.gloss_keys("基础设施")
    assert direct and "infras" in keys
    keys, direct = lang.gloss_keys("告警")  # not a headword: through its characters
    assert not direct and "alert" in keys
    assert "部署" in lang.english_to_chinese(lang.en_key("deploy"))


def test_glosses_keep_acronyms_and_compounds_lend_theirs_to_their_head() -> None:
    assert "api" in chinese.glosses("应用程序接口")
    assert chinese._senses("值班").count("on duty") == 1  # a headword written alike in both forms: once
    assert "api" in chinese.head_acronyms("接口") and "http" in chinese.head_acronyms("协议")
    alts = lang.query_units("接口文档")[0].alternatives
    assert ("w:api", 0.6 * 0.7, "translated") in alts


def test_chinese_function_words_come_from_the_dictionary() -> None:
    for word in ("怎么", "什么", "哪里", "的", "是", "谁"):
        assert lang.is_chinese_function_word(word), word
    for word in ("部署", "数据库", "负责", "值班"):
        assert not lang.is_chinese_function_word(word), word
    assert lang.gloss_keys("怎么") == ((), True)


def test_query_units_count_each_word_once_with_its_alternatives() -> None:
    units = {u.label: u for u in lang.query_units("怎么部署到生产环境")}
    assert "怎么" not in units
    deploy = units["部署"]
    assert deploy.alternatives[0] == ("z:部署", 1.0, "lexical")
    assert ("w:deploy", deploy.alternatives[1][1], "translated") in deploy.alternatives
    ident = lang.query_units("where is MaxOpenConns set")
    assert [u.label for u in ident] == ["maxopenconns", "set"] and ident[0].distinctive
    assert any(a[0] == "&w:max&w:open&w:conn" for a in ident[0].alternatives)


def test_contraction_hosts_are_function_words() -> None:
    labels = [u.label for u in lang.query_units("nvm says the version isn't installed and doesn't load")]
    assert "isn" not in labels and "doesn" not in labels and "installed" in labels


def test_file_names_index_their_first_word_for_prefix_search() -> None:
    keys = [t.key for t in lang.analyze(".nvmrc says 22; see tsconfig.json, fly.production.toml and src/main.ts")]
    assert {k for k in keys if k.startswith("f:")} == {"f:nvmrc", "f:tsconfig", "f:fly"}
    assert ("^f:nvm", 0.8, "lexical") in lang.query_units("nvm")[0].alternatives


def test_priors_weigh_what_a_word_says_on_its_own() -> None:
    assert word_prior("deploy") > 0.8 and word_prior("idempotent") > 0.8
    assert word_prior("use") < 0.3 and word_prior("get") < 0.3
    assert word_prior("值班") > word_prior("看") and word_prior("看") < 0.4
    assert word_prior("max_open_conns") == 1.0
    # a word's family counts even when its key is not a prefix of it ("copy" → copi)
    assert word_prior("copy") < 0.8 and word_prior("apply") < 0.8


def test_everyday_english_words_weigh_little_though_dictionaries_rarely_gloss_them() -> None:
    # CC-CEDICT glosses "friday", "weekend" and "afternoon" a handful of times (prior 1.0 from
    # gloss counts alone); corpus frequencies (wordfreq) say people write them all the time
    for everyday in ("friday", "weekend", "afternoon", "thanks"):
        assert word_prior(everyday) < 0.7, everyday
    assert word_prior("deploy") > 0.9 and word_prior("kubernetes") == 1.0 and word_prior("pnpm") == 1.0


def test_known_words_are_told_from_unknown_ones() -> None:
    from reasonix_tui.core.lang.prior import word_known

    assert word_known("灰度") and word_known("deploy") and word_known("copy")
    assert not word_known("kotlin") and not word_known("lateinit") and not word_known("checkout_v2")


def test_meaning_vectors_are_unit_length_and_read_chinese_through_glosses() -> None:
    vecs = lang.embed(["deploy the service to production", "部署到生产环境", "write a haiku about autumn"])
    assert vecs.shape == (3, 256) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-4)
    assert vecs[0] @ vecs[1] > vecs[0] @ vecs[2]
    assert "deploy" in lang.gloss_text("部署到生产环境")


def test_segmenter_keeps_its_cache_in_the_configured_folder(tmp_path: Path) -> None:
    script = textwrap.dedent(f"""
        from reasonix_tui.core import lang
        from reasonix_tui.core.lang import chinese
        lang.configure({str(tmp_path)!r})
        chinese.load_segmenter()
        print(chinese.load_segmenter().tmp_dir)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == str(tmp_path)
    assert any(p.name.startswith("jieba") for p in tmp_path.iterdir())


_NO_NETWORK = r"""
import asyncio, json, socket, sys
attempts = []
def refuse(*args, **kwargs):
    attempts.append(repr(args[:2]))
    raise ConnectionRefusedError("network disabled by the test")
socket.socket.connect = refuse
socket.socket.connect_ex = refuse
socket.create_connection = refuse

from pathlib import Path
from reasonix_tui.core.paths import Layout
from reasonix_tui.core.recall import run_recall
from reasonix_tui.core.store.requests import SaveRequest
from reasonix_tui.core.store.store import Store
from reasonix_tui.core.lang import chinese, meaning

root = Path(sys.argv[1])
ws = root / "work" / "proj"
ws.mkdir(parents=True)
layout = Layout.resolve(home=root / "home", workspace=ws)
store = Store(layout)
store.save(SaveRequest(name="deploying", title="Deploying to production", type="project",
                       description="fly deploy", body="We migrated hosting to Fly.io. Deploy with fly deploy."))
store.save(SaveRequest(name="money-rule", title="金额存储", type="project", description="金额用整数分",
                       body="金额一律用整数「分」存储（int64），禁止用 float。"))
out = {}
out["zh"] = [h.id for h in run_recall(layout, "怎么部署到生产环境？", store=store).hits]
out["en"] = [h.id for h in run_recall(layout, "how should money amounts be stored?", store=store).hits]
out["loaded"] = [chinese._JIEBA is not None, chinese._DICT is not None, meaning._MODEL is not None]

from reasonix_tui.integrations.hooks import run_hook
payload = {"session_id": "s1", "cwd": str(ws), "hook_event_name": "UserPromptSubmit",
           "prompt": "怎么部署到生产环境"}
out["hook"] = run_hook("user-prompt-submit", json.dumps(payload), home=str(root / "home"), workspace=str(ws))

from reasonix_tui.tui.app import make_app
from reasonix_tui.core.settings import Settings

async def center():
    app = make_app(layout=layout, settings=Settings(), watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        for _ in range(400):
            await pilot.pause(0.05)
            if app.loaded and not [w for w in app.workers if w.group == "lang-warm" and w.is_running]:
                break
        return app.loaded and len(app.snapshot.rows)

out["center_rows"] = asyncio.run(center())
out["attempts"] = attempts
print(json.dumps(out))
"""


def test_recall_the_hook_and_the_context_center_work_with_the_network_refused(tmp_path: Path) -> None:
    """In a fresh process with every socket connection refused: recall (Chinese and English,
    loading the segmenter, the dictionary and the meaning model), the prompt hook and the
    Context Center's start all work, and none of them tried to connect anywhere."""
    proc = subprocess.run(
        [sys.executable, "-c", _NO_NETWORK, str(tmp_path)], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["zh"] and out["en"], out
    assert out["loaded"] == [True, True, True]
    assert "Fly.io" in out["hook"]
    assert out["center_rows"] == 2
    assert out["attempts"] == []


def test_compound_parts_and_agent_bases() -> None:
    from reasonix_tui.core.lang.english import agent_base
    from reasonix_tui.core.lang.prior import compound_parts
    from reasonix_tui.core.lang.terms import word_variants

    assert compound_parts("deadletter") == ("dead", "letter") and compound_parts("healthcheck") == ("health", "check")
    assert compound_parts("deploying") == () and compound_parts("checkouts") == () and compound_parts("redshift") == ()
    assert (
        agent_base("logger") == "log"
        and agent_base("serializer") == "serialize"
        and agent_base("validators") == "validate"
    )
    assert lang.en_key("log") in word_variants("logger")
    assert word_variants("letter") == () and word_variants("summer") == ()  # words of their own, not derived
    assert chinese.dictionary_cut("健康检查") == ("健康", "检查")
    assert "health" in chinese.gloss_keys("健康检查")[0]  # an entry that only refers elsewhere: its parts


def test_single_characters_and_common_glosses_weigh_little() -> None:
    units = {u.label: u for u in lang.query_units("死信里的消息怎么重放")}
    assert "里" not in units  # a common single character is no query word
    assert all(len(a[0]) > 2 and a[2] == "lexical" for a in units["重"].alternatives)  # not translated
    weights = {a[0]: a[1] for a in lang.query_units("今天")[0].alternatives}
    assert weights["w:time"] < weights["w:today"]


def test_a_single_character_with_one_sense_is_translated() -> None:
    """慢 has one sense ("slow"): it means the same in any word around it, so a query's 慢
    meets "slow"; 表 (nine senses) and 重 stay untranslated."""
    assert chinese.sense_count("慢") == 1 and chinese.sense_count("表") > 1
    units = {u.label: u for u in lang.query_units("慢查询日志在哪里看")}
    assert ("w:slow", "translated") in {(a[0], a[2]) for a in units["慢"].alternatives}
    assert all(a[2] == "lexical" for a in lang.query_units("表")[0].alternatives)


def test_an_agent_noun_in_er_meets_its_short_verb_only_when_the_resources_agree() -> None:
    """Snowball keeps a short base apart from its -er noun (tracker/track, linter/lint). The
    two are joined when the base is a dictionary word, the noun is not the more frequent
    word, and the shipped meaning model puts them close — not docker/dock, folder/fold,
    number/numb, mother/moth."""
    from reasonix_tui.core.lang.terms import derived_base, er_base, word_variants

    pairs = {"tracker": "track", "linter": "lint", "parser": "parse", "bundler": "bundle", "seeder": "seed"}
    for noun, verb in pairs.items():
        assert er_base(noun) == verb and derived_base(noun) == lang.en_key(verb), noun
    assert er_base("trackers") == "track" and er_base("timer") == "time"  # a plural; a dropped silent e
    for word in ("docker", "folder", "number", "mother", "water", "container", "corner"):
        assert er_base(word) == "" and derived_base(word) == "", word
    assert derived_base("server") == "" and derived_base("printer") == ""  # words of their own in the glosses
    for word in ("faster", "shorter", "cheaper", "clearer", "quicker", "bigger", "hotter"):
        assert derived_base(word) == "", word  # comparatives: "make it faster" is not about something fast
    assert lang.en_key("lint") in word_variants("linter")
    assert ("w:" + lang.en_key("track"), 0.9, "lexical") in lang.query_units("error tracker")[1].alternatives


def test_a_latin_noun_meets_its_verb_only_from_the_question_and_when_the_model_agrees() -> None:
    """Snowball keeps notification/notify, decision/decide, maintenance/maintain apart. A
    question's noun gets its verb as a weaker alternative when the verb is a dictionary word
    and the meaning model puts the two close (not replication/reply, contention/contain,
    commission/commit); a fact's noun is not indexed under its verb."""
    from reasonix_tui.core.lang.terms import NOUN_VERB, noun_base, word_variants

    pairs = {"notifications": "notify", "decision": "decide", "maintenance": "maintain", "resolution": "resolve"}
    for noun, verb in pairs.items():
        assert noun_base(noun) == verb, noun
    for word in ("replication", "contention", "commission", "reception", "attention", "station", "notify"):
        assert noun_base(word) == "", word
    assert lang.en_key("decide") not in word_variants("decisions")
    units = {u.label: u for u in lang.query_units("how do customer notifications go out?")}
    assert ("w:" + lang.en_key("notify"), NOUN_VERB, "lexical") in units["notifications"].alternatives


def test_an_acronyms_plural_is_the_word_as_written_and_its_acronym() -> None:
    """ "ADRs", "PRs", "APIs" are no identifiers cut at an inner capital ("ad" + "rs"): they
    keep their spelling (a fact saying "PRs" still meets "PRs") and meet the acronym."""
    units = {u.label: u for u in lang.query_units("where do ADRs go? who merges PRs?")}
    assert ("x:adrs", 1.0, "lexical") in units["adrs"].alternatives
    assert ("w:" + lang.en_key("adr"), 1.0, "lexical") in units["adrs"].alternatives
    assert units["prs"].prior == word_prior("pr")  # read as the acronym, it says as little
    keys = {t.key for t in lang.analyze("Renovate opens PRs for APIs")}
    assert {"x:prs", "w:" + lang.en_key("pr"), "x:apis", "w:" + lang.en_key("api")} <= keys
    assert "w:rs" not in keys and "w:pi" not in keys


def test_jargon_neither_dictionary_holds_is_read_as_the_initials_of_a_jieba_word() -> None:
    assert chinese.load_segmenter().FREQ.get("单测") is None and not chinese.in_dictionary("单测")
    assert chinese.expansion("单测") == "单元测试"  # 单元 + 测试, the most frequent such word
    first, second = chinese.part_keys("单测")
    assert "unit" in first and "test" in second
    assert "unit test" in lang.gloss_text("单测用的什么框架")
    # a word jieba knows keeps its own reading; names are not read as initials
    assert chinese.expansion("回归") == "" and chinese.expansion("王磊") == ""
    assert chinese.part_keys("部署") == ()  # a word with glosses of its own


def test_a_verb_gloss_meets_its_noun_in_ment_only_when_the_two_mean_alike() -> None:
    from reasonix_tui.core.lang.terms import ment_noun

    assert ment_noun("pay") == lang.en_key("payments") == "paymen"
    assert ment_noun("settle") == lang.en_key("settlement")
    assert ment_noun("base") == "" and ment_noun("state") == "" and ment_noun("depart") == ""
    assert ment_noun("deploy") == ""  # Snowball already gives deployment the verb's stem
    pay = next(u for u in lang.query_units("支付服务") if u.label == "支付")
    assert any(key == "w:paymen" for key, _, _ in pay.alternatives)


def test_a_word_that_asks_for_a_value_is_a_question_word_and_no_query_word() -> None:
    assert chinese.is_question_word("几点") and chinese.is_question_word("多久")  # "what time?", "how long?"
    assert chinese.is_question_word("那块") and chinese.is_question_word("哪种")  # function word + classifier
    assert not chinese.is_question_word("最低")  # "lowest": 低 is no classifier
    assert not chinese.is_question_word("部署") and not chinese.is_question_word("多少")  # "number; amount"
    assert "几点" not in [u.label for u in lang.query_units("跑批几点开始")]
