"""Lexical signals that a sentence states a rule (whole words in English; phrases in Chinese).

Lead-ins and idioms to strip, general or future-facing wording (*always, never, from now
on*; 以后, 始终), explicit markers (*remember*; 记住), convention words, and imperative or
prohibiting openings (*use, don't, avoid*; 用, 别, 不要).
"""

from __future__ import annotations

import re


def whole_words(*alts: str) -> str:
    """Whole words or phrases (a hyphen or underscore joins: ``short`` is not in ``test-short``)."""
    return r"(?<![\w-])(?:" + "|".join(alts) + r")(?![\w-])"


FILLER_LEAD = re.compile(
    r"^(?:(?:(?:ok(?:ay)?|right|yes|yeah|yep|great|nice|cool|thanks|thank you|thx|ty|also|and|but|so|btw|by the way|hmm+|"
    r"looks good|lgtm|perfect|sounds good|good|works|that works|done|alright|all right|"
    r"well|oh|ah|one more thing(?: for [^:,，]{1,40})?|another thing|quick note|note|please|pls|plz|"
    r"heads[- ]up|fyi|reminder|[\w ]{0,20}reminder|important)(?![\w'])|(?:先说一下|说一下|对了|另外|还有|顺便说一下|顺便|嗯|好的|好|那个|请))"
    r"\s*[,:;!.，：；！。—-]*\s*)+",
    re.I,
)


CORRECTION_LEAD = re.compile(
    r"^(?:(?:(?:no+|nope|nah|stop|wait|wrong|incorrect|not quite|actually|hold on|hmm,? no|no no|"
    r"that'?s (?:wrong|not right|incorrect|stale|outdated|old|not it))(?![\w'])|(?:不对|不是|错了|不行|停|等等|等一下|"
    r"应该是|你搞错了|搞错了))\s*[,:;!.，：；！。—-]*\s*)+",
    re.I,
)


TRAILING = re.compile(
    r"\s*[,，;；]?\s*(?:记住这个|记住了吗|记住了|记住啊|记住|remember that|remember this|thanks|thank you|please|"
    r"pls|ok\??|okay\??)\s*[.!。！]*\s*$",
    re.I,
)


HABIT_MARKERS = re.compile(
    r"\s*[,，]?\s*\b(?:as usual|like always|as always|as before)\b|\s*[,，]?\s*(?:照旧|照例|和以前一样|还是老样子)",
    re.I,
)


IDIOMS = re.compile(
    whole_words(
        r"never\s*mind",
        "nevermind",
        "no worries",
        r"don'?t worry",
        "no problem",
        r"doesn'?t matter",
        r"not a big deal",
        r"no big deal",
        r"never heard",
        r"never seen",
        r"never understood",
        r"never knew",
        r"never thought",
        r"never got",
        r"never tried",
        r"never been",
        r"never mind that",
    )
    + r"|不要紧|没关系|没事儿?|不用了|算了|无所谓|没问题|不客气|别客气|不要客气|别担心|不用担心",
    re.I,
)


# (regex, weight, reason)
GENERIC: tuple[tuple[re.Pattern[str], float, str], ...] = (
    (
        re.compile(
            whole_words(
                "from now on",
                "going forward",
                "in the future",
                "in future",
                "from here on",
                "by default",
                "every time",
                "each time",
                "whenever",
                "at all times",
                "without exception",
                "no matter what",
                "as a rule",
                "for good",
            ),
            re.I,
        ),
        2.0,
        "future-facing wording",
    ),
    (
        re.compile(
            whole_words("as usual", "like always", "as always", "as before", "same as always", "like usual"), re.I
        ),
        3.0,
        "habit wording",
    ),
    (re.compile(whole_words("next time", "from then on", "any time", "anytime"), re.I), 1.5, "future-facing wording"),
    (
        re.compile(
            whole_words(
                r"every (?:push|commit|release|deploy|pr|merge|build|night|day|morning|change|migration|run)",
                "everywhere",
                "across the (?:codebase|repo|project)",
                "(?:for )?the whole (?:codebase|repo|project)",
                "in (?:this|our|the) (?:repo|repository|project|codebase|team)",
                "all (?:our |the )?(?!good\\b|set\\b|done\\b|right\\b|fine\\b|of\\b|in\\b|at\\b|the\\b|that\\b|this\\b|it\\b)(?:\\w+ ){0,2}\\w+",
                "any \\w+ (?:that|which|we|you)",
                "anything (?:under|in|inside)",
            ),
            re.I,
        ),
        1.0,
        "general scope",
    ),
    (re.compile(r"以后|今后|往后|从现在开始|从今以后|从今往后|之后都|以后都"), 2.0, "future-facing wording"),
    (re.compile(r"始终|一律|一直都|永远|每次|每回|默认|统一|向来|一贯|务必|一定要|无论如何"), 2.0, "general wording"),
    (re.compile(r"照旧|照例|和以前一样|还是老样子|跟以前一样|老规矩"), 3.0, "habit wording"),
    (re.compile(r"所有|凡是|任何|全部"), 1.0, "general scope"),
    (
        re.compile(r"^(?:every|each|any|all)\s+(?!of\b|the time\b|right\b|good\b|set\b|done\b)[a-z]", re.I),
        1.0,
        "general scope",
    ),
    (
        re.compile(
            r"(?<!\bi )(?<!\bi just )\b(?:must|has to|have to|is required to|are required to|needs to be|need to be)\b"
            r"|必须|只能|不得|只许",
            re.I,
        ),
        1.5,
        "obligation",
    ),
    (re.compile(r"都(?:用|走|在|按|要|是|放|由|归|不|别|得|交|写|跑|通过|会)"), 1.0, "general scope"),
    (
        re.compile(
            whole_words(
                "this (?:repo|repository|project|codebase)",
                "our (?:repo|repository|project|codebase|team|stack)",
                "here we",
                "we use",
                "we don'?t use",
            ),
            re.I,
        ),
        1.0,
        "about the project",
    ),
    (
        re.compile(
            whole_words(
                r"before (?:every |each |any )?(?:commit(?:ting)?|push(?:ing)?|merg(?:e|ing)|releas(?:e|ing)|deploy(?:ing)?|tagging|opening a pr|a pr)",
                r"after (?:every|each|any) \w+",
                r"when(?:ever)? (?:you|we) (?:commit|push|merge|release|deploy|add|change|touch)",
                r"before (?:you|we) [a-z]+",
            ),
            re.I,
        ),
        1.0,
        "general condition",
    ),
    (
        re.compile(
            r"(?:提交|推送|发布|上线|合并|部署|发版|打包|改|修改|动)[^，。,]{0,10}?(?:之前|之后)|(?:提交|推送|发布|上线|合并|部署|发版|打包)[前后]"
            r"|每(?:次|个).{0,8}(?:前|后)"
        ),
        1.0,
        "general condition",
    ),
)


CONDITION_LEAD = re.compile(
    r"^(?:when(?:ever)?|each time|every time|before|after|if)\s+(?:you|we|i)\s+(?:\w+\s+){0,1}"
    r"(?:write|commit|push|merge|release|deploy|add|change|touch|create|open|review|name|test|update|edit|reply|"
    r"answer|respond|install|upgrade|bump|tag|ship|migrate|refactor|log|call|rename|delete|remove)\w*\b[^,，]{0,60}[,，]\s*"
    r"|^(?:每次|凡是|只要|以后)?(?:写|提交|发布|部署|合并|新增|修改|改|加|删|升级|回答|回复)[^，,]{0,20}(?:时|的时候|前|后)[，,]\s*"
    r"|^[^，,。？?！!]{1,12}?的时候[，,]?\s*",
    re.I,
)


LABEL_LEAD = re.compile(r"^(?:[A-Z][\w/-]*(?:\s[\w/-]+){0,2}|[\u4e00-\u9fff]{2,8})\s*[:：]\s+(?=\S)")


PRODUCT_CHANGE = re.compile(
    r"\b(?:button|page|modal|screen|dialog|header|footer|banner|icon|colou?r|font|layout|label|logo|tooltip|menu|"
    r"placeholder|spinner|card|badge|link|title|image|background)s?\b[^.;]{0,40}\b(?:should|must|will|needs? to)\s+(?:be|look|show|say|have)\b"
    r"|(?:按钮|页面|弹窗|颜色|字体|图标|标题|背景)[^，。]{0,10}(?:改成|换成|应该是|要是)",
    re.I,
)


LEAD_MARKER = re.compile(
    r"^(?:(?:from now on|going forward|in (?:the )?future|from here on|next time|by default|as usual|like always|"
    r"for the whole (?:codebase|repo|project)|across the (?:codebase|repo)|in this (?:repo|project|codebase)|"
    r"以后|今后|往后|从现在开始|以后都|默认|每次)\s*[,:;，：；]?\s*)+",
    re.I,
)


ALWAYS_NEVER = re.compile(r"\b(always|never)\b", re.I)


AN_BEFORE_OK = re.compile(
    r"(?:^|\b(?:we|you|u|should|must|to|will|'ll|would|please|and|but|or|just|is|are|be|was|were|it'?s|they'?re|"
    r"we'?re|you'?re|is|has|have|gets?|stays?|should be|must be|need to|needs to)\s+$|^[^\w]*$|[,;:，：]\s*$)",
    re.I,
)


AN_PRONOUN_BEFORE = re.compile(r"\b(?:i|i've|i'd|i'm|he|she|it|this|that|they|which)\s+$", re.I)


AN_SUBJECT_BEFORE = re.compile(r"\b(?:we|you|u)\s+$", re.I)


ZH_ALWAYS = re.compile(r"总是|总要|老是")


EXPLICIT = re.compile(
    whole_words(
        "remember(?: (?:to|that|this))?",
        "keep in mind",
        "heads[- ]up",
        "fyi",
        "for future reference",
        r"don'?t forget",
        "note that",
        "reminder",
        "for the record",
        "make a note",
    )
    + r"|记住|记得|别忘了|不要忘了|注意(?:一下)?[:：，,]|提醒一下|备注",
    re.I,
)


CONVENTION = re.compile(
    whole_words(
        "convention",
        "conventions",
        "rule",
        "rules",
        "policy",
        "standard practice",
        "guideline",
        "guidelines",
        "house style",
        "naming scheme",
        "our standard",
        "the standard",
    )
    + r"|约定|规则|规范|原则|惯例|规矩|命名规则|命名规范|标准做法|流程是",
    re.I,
)


POLICY_VERBS = (
    "use",
    "prefer",
    "avoid",
    "keep",
    "put",
    "store",
    "place",
    "name",
    "prefix",
    "target",
    "open",
    "base",
    "branch",
    "route",
    "send",
    "point",
    "pin",
    "stick to",
    "stick with",
    "default to",
    "write",
    "answer",
    "reply",
    "respond",
    "speak",
    "talk",
    "ask",
    "check with",
    "ping",
    "run",
    "go through",
    "deploy",
    "ship",
    "release",
    "merge",
    "commit",
    "push",
    "tag",
    "format",
    "lint",
    "test",
    "validate",
    "log",
    "call",
    "import",
    "wrap",
    "document",
)


PROHIBIT_LEAD = re.compile(r"^(?:please\s+)?(?:don'?t|do not|never|avoid|stop|no more|not|please don'?t)\b", re.I)


POLICY_LEAD = re.compile(r"^(?:please\s+)?(?:always\s+)?" + whole_words(*POLICY_VERBS), re.I)


ZH_PROHIBIT = re.compile(
    r"^(?:请)?(?:不要|别|不准|禁止|勿|不许|不能|请勿|千万别|千万不要|不用再|别再)|(?:^|[，,；;])\s*(?:不要|别|禁止|不准|不许)"
    r"|^[^，,。；;？?！!]{1,16}?(?:不要|不准|禁止|不许|不能|不得)(?!紧)"
)


ZH_POLICY = re.compile(
    r"^(?:请|都|统一|一律|以后|本地|平时|一般|要|得|应该|需要)?(?:用|使用|改用|走|放|写|按|按照|叫|命名|提交到|部署到|回答|回复|说|跑|先跑|只用)"
    r"|(?:^|[，,])\s*[多少](?:给|用|写|讲|说|举|放|加|问)"
    r"|用\s*[\w`./:-]+(?:\s+[\w`./:-]+){0,3}\s*(?:就行|就好|就可以|即可)"
    r"|(?:统一|一律|都|只|必须|务必|一定要|全部)(?:用|使用|走|按|写|放|交给|通过)"
)
