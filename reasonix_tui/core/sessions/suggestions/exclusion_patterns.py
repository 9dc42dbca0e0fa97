"""Lexical signals that rule a sentence out or weigh against it.

One-off task requests (*add…, fix…*; 帮我…, 把…), one-off scoping (*for now, this time*;
这次, 暂时), hypotheticals (*might, if we ever*; 可能), reported or quoted material, and
questions (an interrogative opening; Chinese question forms).
"""

from __future__ import annotations

import re

from .rule_patterns import whole_words

TASK_LEAD = re.compile(
    r"^(?:please\s+|can you\s+|could you\s+|would you\s+|let'?s\s+|now\s+|then\s+|ok\s+|go ahead and\s+)?"
    + whole_words(
        "add",
        "implement",
        "fix",
        "create",
        "build",
        "refactor",
        "rename",
        "update",
        "change",
        "move",
        "delete",
        "remove",
        "port",
        "switch",
        "convert",
        "make",
        "look",
        "check",
        "investigate",
        "debug",
        "find",
        "figure",
        "help",
        "show",
        "explain",
        "tell",
        "give",
        "generate",
        "set up",
        "setup",
        "install",
        "upgrade",
        "bump",
        "continue",
        "proceed",
        "start",
        "try",
        "revert",
        "undo",
        "redo",
        "retry",
        "rerun",
        "recreate",
        "review",
        "merge",
        "cut",
        "draft",
        "prepare",
        "clean up",
        "cleanup",
        "wire",
        "hook up",
        "optimize",
        "speed up",
        "split",
        "extract",
        "inline",
        "test",
        "verify",
        "compare",
        "summarize",
        "read",
        "open",
        "close",
        "print",
        "dump",
        "list",
        "search",
        "grep",
        "write (?:a|an|the|some|me)",
    ),
    re.I,
)


ZH_TASK = re.compile(
    r"^(?:请|麻烦)?(?:帮我|帮忙|给我|把|加|加个|加一个|改|修|修一下|删|删除|写个|写一个|实现|看看|看一下|查|查一下|检查|"
    r"补|补跑|再|继续|新建|创建|运行|跑一下|试试|试一下|重构|优化|整理|生成|解释|告诉我|列出|打开)"
)


ONE_OFF_REF = re.compile(
    whole_words("wrong file", "the other one", "that one", "this one", "i meant", "i mean", "typo")
    + r"|这个文件|那个文件|另一个|我是说|我的意思是",
    re.I,
)


SCOPING = re.compile(
    whole_words(
        "for now",
        "for the moment",
        "at the moment",
        "right now",
        "this time",
        "just this once",
        "this once",
        r"for this (?:\w+ )?(?:only|change|pr|task|ticket|commit|release|one|branch|session|fix|bug|run)",
        r"only for this",
        r"in this (?:pr|commit|change|branch)",
        "as part of this",
        "today",
        "tonight",
        "temporarily",
        "temporary",
        "for the time being",
        "for today",
        "until tomorrow",
        "next week",
        "later today",
        "this week",
        "this sprint",
        "in this session",
        "for the demo",
    )
    + r"|这次|这一次|本次|这回|先不|先别|先这样|暂时|临时|今天|现在先|目前先|晚点|下周|回头再|这周|这个PR|这个 PR|本PR",
    re.I,
)


HYPOTHETICAL = re.compile(
    whole_words(
        "might",
        "maybe",
        "perhaps",
        "possibly",
        r"if we ever",
        "some day",
        "someday",
        "i guess",
        "i think",
        "i wonder",
        "not sure",
        r"i'?m not convinced",
        "probably",
        "could be",
        "would be nice",
        "in case",
    )
    + r"|可能|也许|或许|如果|要是|假如|说不定|估计|大概|不确定|我猜|我觉得|好像",
    re.I,
)


REPORTED = re.compile(
    whole_words(
        "says?",
        "said",
        "writes?",
        "wrote",
        "according to",
        "the docs?",
        "the readme",
        "documentation",
        "the article",
        "the vendor",
        "stack ?overflow",
        "chatgpt",
        "the blog",
    )
    + r"[^\"“”「」]{0,40}[\"“「]"
    + r"|(?:说|写着|写的是|文档里|文档上)[^\"“”「」]{0,20}[\"“「]",
    re.I,
)


QUOTED_SPAN = re.compile(r"\"[^\"]{12,}\"|“[^”]{6,}”|「[^」]{4,}」")


QUESTION_LEAD = re.compile(
    r"^(?:so\s+|and\s+|but\s+|also\s+|ok\s+)?"
    + whole_words(
        "why",
        "how",
        "what",
        "when",
        "where",
        "which",
        "who",
        "whose",
        "is",
        "are",
        "does",
        "do",
        "did",
        "can",
        "could",
        "would",
        "should",
        "will",
        "shall",
        "may",
        "isn't",
        "aren't",
        "doesn't",
        "don't we",
        "any idea",
        "anyone",
        "is there",
        "are there",
        "have you",
        "has",
        "was",
        "were",
        "wanna",
        "want me to",
    ),
    re.I,
)


ZH_QUESTION = re.compile(
    r"为什么|为啥|怎么|如何|是不是|能不能|可不可以|要不要|有没有|会不会|对不对|是否|哪(?:个|里|些|儿)|什么|多少|几个|[吗呢吧嘛]\s*[？?。！!]*$"
)
