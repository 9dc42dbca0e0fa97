"""Durability signals of one user message, in English and Chinese.

A person's message is cleaned of what they did not write themselves (fenced code, quoted
lines, pasted logs and stack traces), split into sentences, and each sentence is scored:

* **general or future-facing wording** — *always, never, from now on, by default, as
  usual, every time, next time*; 以后, 始终, 一律, 统一, 每次, 默认, 都… (``always`` /
  ``never`` count only where they govern an action or a property — "we never…", "is
  always…", sentence-initial — not in "the badge never updates");
* **a project rule** — an imperative about how things are done (*use, don't, keep, put,
  avoid*; 用, 别, 不要, 统一用) or a convention word (*convention, rule, policy*; 约定, 规则);
* **an environment fact** — hosts, ports, URLs, paths, files, env vars, handles, versions,
  inline code and identifiers, with a verb that states where or what something is
  (*is, lives, goes through, owned by*; 是, 在, 走, 归);
* **a change of state** — *moved to, switched to, no longer*; 改用, 迁移到, 不再;
* **an answer-style preference** — how the assistant should answer (*short, in Chinese,
  no explanations*; 简短, 中文, 不用解释);
* **explicit** — *remember, keep in mind, heads-up, FYI, reminder*; 记住, 记得;
* **a reason** — *because, otherwise*; 因为, 不然, 否则, 之前…出过.

A message that answers the assistant's previous step — a tool call or a claim — with a
correction (*no, stop, that's stale*; 不对, 别…) or that names what the step used while
negating it is a **correction**: its rule sentences gain weight and keep the step as context.

Excluded: questions, one-off scoping (*for now, this time, for this release only, as part
of this*; 这次, 先别, 暂时, 今天), hypotheticals (*might, maybe, if we ever*; 可能, 也许),
quoted material (*the docs say "…"*) and task requests (*add…, fix…*; 帮我…, 把…) without
a rule signal. Idioms that look like rules (*never mind, no worries*; 不要紧, 没关系, 没事,
算了) are removed before scoring.

Everything here is pure text processing; nothing reads files.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = [
    "title_text",
    "SentenceScore",
    "Entity",
    "prepare_text",
    "split_sentences",
    "entities",
    "score_sentence",
    "correction_signal",
    "clean_statement",
    "is_question",
    "has_cjk",
    "THRESHOLD",
    "EXTEND_THRESHOLD",
]

THRESHOLD = 3.0
"""A sentence at or above this score is a candidate on its own."""
EXTEND_THRESHOLD = 1.5
"""A neighbouring sentence at or above this score joins the candidate (its reason, its detail)."""

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def has_cjk(s: str) -> bool:
    """True when the text contains a Han character."""
    return _CJK.search(s) is not None


# --------------------------------------------------------------------------------------
# What the person did not write themselves

_FENCE = re.compile(r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)", re.S)
_LOG_LINE = re.compile(
    r"^\s*(?:Traceback \(most recent call last\)|File \"[^\"]+\", line \d+|at [\w.$<>]+\(|"
    r"[\w.]*(?:Error|Exception|Warning):|\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}|\[\d{2}:\d{2}|"
    r"(?:INFO|WARN|WARNING|ERROR|DEBUG|FATAL|PASS|FAIL)\b|E\s{3}|>>>|\$ |❯ |PS [A-Z]:\\)"
)
_CODE_START = re.compile(
    r"^\s*(?:def |class |import |from \S+ import |function |const |let |var |return |export |package |func |"
    r"#include|public |private |if \(|for \(|while \(|SELECT |INSERT |UPDATE |CREATE |ALTER |DROP |//|/\*|\*/|"
    r"--\s|<\w+[^>]*>|\}|\{|@\w+\()"
)


def _codey(line: str) -> bool:
    """A line that reads as code or machine output rather than prose."""
    s = line.strip()
    if not s:
        return False
    if _LOG_LINE.match(s) or _CODE_START.match(s):
        return True
    symbols = sum(ch in "{}()[];=<>|\\$" for ch in s)
    return len(s) >= 8 and symbols / len(s) > 0.12 and not has_cjk(s)


def prepare_text(text: str) -> tuple[str, tuple[str, ...]]:
    """The person's own prose: fenced code, ``>`` quotes and pasted code or log lines
    removed. Returns the text and what was removed (``code``, ``quote``, ``paste``)."""
    removed: list[str] = []
    if "```" in text or "~~~" in text:
        text, n = _FENCE.subn("\n", text)
        if n:
            removed.append("code")
    kept: list[str] = []
    lines = text.split("\n")
    pasted = 0
    for line in lines:
        s = line.strip()
        if s.startswith(">"):
            removed.append("quote")
            continue
        if _codey(line) or (line.startswith(("    ", "\t")) and s and not has_cjk(s)):
            pasted += 1
            continue
        kept.append(line)
    if pasted:
        removed.append("paste")
    return "\n".join(kept), tuple(dict.fromkeys(removed))


_SENT_SPLIT = re.compile(r"(?<=[.!?])\s+(?=\S)|(?<=[。！？；;])\s*|\n+")


def split_sentences(text: str) -> list[str]:
    """Sentences of prose: ``. ! ?`` followed by a space, ``。！？；;`` and line breaks
    (dots inside ``v2.3.0`` or ``staging.example.com`` do not split)."""
    out = []
    for part in _SENT_SPLIT.split(text):
        s = part.strip(" \t-*•")
        if s:
            out.append(s)
    return out


# --------------------------------------------------------------------------------------
# Entities: things an environment fact names


@dataclass(frozen=True, slots=True)
class Entity:
    """A concrete thing named in a statement."""

    kind: str
    """``url`` ``host`` ``ip`` ``port`` ``path`` ``file`` ``code`` ``env`` ``handle`` ``version`` ``ident``
    ``name`` (a product or person: ``ArgoCD``, ``Lina``)."""
    value: str
    """Lower-cased value."""


_FILE_EXT = (
    "ts|tsx|js|jsx|mjs|cjs|py|pyi|go|rs|java|kt|kts|rb|php|cs|c|h|cc|cpp|hpp|swift|m|md|mdx|json|yaml|yml|"
    "toml|ini|cfg|conf|lock|sql|sh|bash|zsh|ps1|env|txt|csv|css|scss|less|html|vue|svelte|xml|gradle|proto|tf|"
    "ipynb|png|jpg|jpeg|gif|svg|pdf|log|bak|tmp|dockerfile"
)
_RE_URL = re.compile(r"https?://[^\s)\]>'\"`，。]+", re.I)
_RE_IP = re.compile(r"\b\d{1,3}(?:\.\d{1,3}){3}(?::\d{2,5})?\b")
_RE_HOST = re.compile(
    r"(?<![\w/.@-])(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z][a-z0-9-]{1,20}(?::\d{2,5})?(?![\w/-])", re.I
)
_RE_FILE = re.compile(rf"(?<![\w/.-])\.?[\w-]+(?:\.[\w-]+)*\.(?:{_FILE_EXT})\b|(?<![\w/])\.env(?:\.[\w-]+)?\b", re.I)
_RE_PATH = re.compile(r"(?<![\w`])(?:~|\.{1,2})?/?[\w.@-]+(?:/[\w.@*-]+)+/?|(?<![\w])(?:~|\.)/[\w.@*-]+")
_RE_DIR = re.compile(r"(?<![\w/.@-])([\w.@-]{2,40})/(?![\w/])")
_NOT_DIRS = frozenset(
    {
        "and",
        "or",
        "w",
        "i",
        "o",
        "n",
        "a",
        "y",
        "yes",
        "no",
        "on",
        "off",
        "true",
        "false",
        "read",
        "write",
        "input",
        "output",
        "km",
        "h",
        "s",
        "ms",
    }
)
_RE_CODE = re.compile(r"`([^`\n]{1,100})`")
_RE_ENV = re.compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b")
_RE_HANDLE = re.compile(r"(?<![\w.])@[A-Za-z][\w-]{1,38}")
_RE_VERSION = re.compile(r"(?<![\w.])v?\d+\.\d+(?:\.\d+)*(?![\w.])")
_RE_PORT = re.compile(
    r"(?:\bports?\s+|端口\s*|(?<=[a-z0-9]):|\b(?:listen|serve|bind|expose)[a-z]*\s+(?:[a-z-]+\s+){0,2}on\s+(?:port\s+)?)(\d{2,5})\b",
    re.I,
)
_RE_IDENT = re.compile(
    r"(?<![\w./-])(?:[a-z][a-z0-9]*(?:[-_][a-z0-9]+)+|[a-z]+[A-Z][A-Za-z0-9]+|[a-z]+[0-9]+[a-z0-9]*)(?![\w/-])"
)
_RE_NAME = re.compile(
    r"(?<=[\w,;:)\]]\s)(?<!\. )([A-Z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*)+|[A-Z][a-z][a-z0-9]{1,20})(?![\w'-])"
    r"|(?<![\w-])([A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*)(?![\w-])"
)
_NOT_NAMES = frozenset(
    "I I'm I'll I've I'd OK Ok Okay Yes No Not The This That These Those It Its We You They He She "
    "Please Thanks Also And But So Then Now Here There What When Where Why How Which Who Do Don't "
    "Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May June "
    "July August September October November December".split()
)
_KIND_LABEL = {
    "code": "inline code",
    "env": "env var",
    "ident": "identifier",
    "name": "proper name",
    "url": "URL",
    "ip": "IP address",
}
_NOT_HOSTS = re.compile(rf"\.(?:{_FILE_EXT})$|^(?:e\.g|i\.e|etc|vs|a\.m|p\.m)\b", re.I)


def entities(text: str) -> list[Entity]:
    """Concrete things named in ``text`` (deduplicated, in order)."""
    out: dict[tuple[str, str], Entity] = {}

    def add(kind: str, value: str) -> None:
        v = value.strip().strip(".,;:()[]").lower()
        if len(v) >= 2 and (kind, v) not in out:
            out[(kind, v)] = Entity(kind, v)

    spans = [m.group(1) for m in _RE_CODE.finditer(text)]
    for s in spans:
        add("code", s)
    bare = _RE_CODE.sub(lambda m: " " + m.group(1) + " ", text)
    for m in _RE_URL.finditer(bare):
        add("url", m.group(0))
    bare_nourl = _RE_URL.sub(" ", bare)
    for m in _RE_IP.finditer(bare_nourl):
        add("ip", m.group(0))
    for m in _RE_HOST.finditer(bare_nourl):
        host = m.group(0)
        if not _NOT_HOSTS.search(host.split(":")[0]) and not _RE_VERSION.fullmatch(host) and "." in host:
            add("host", host)
    for m in _RE_FILE.finditer(bare_nourl):
        add("file", m.group(0))
    for m in _RE_PATH.finditer(bare_nourl):
        p = m.group(0)
        if "/" in p and not p.startswith("//") and not re.fullmatch(r"[\d/]+", p) and len(p) > 2:
            add("path", p)
    for m in _RE_DIR.finditer(bare_nourl):
        if m.group(1).lower() not in _NOT_DIRS and not any(m.group(1).lower() in e.value for e in out.values()):
            add("path", m.group(1) + "/")
    for m in _RE_PORT.finditer(bare_nourl):
        add("port", m.group(1))
    for m in _RE_ENV.finditer(bare_nourl):
        add("env", m.group(0))
    for m in _RE_HANDLE.finditer(bare_nourl):
        add("handle", m.group(0))
    for m in _RE_VERSION.finditer(bare_nourl):
        add("version", m.group(0).lstrip("v"))
    for m in _RE_IDENT.finditer(bare_nourl):
        w = m.group(0)
        if not any(w.lower() in e.value for e in out.values()):
            add("ident", w)
    for m in _RE_NAME.finditer(bare_nourl):
        w = m.group(1) or m.group(2)
        if w and w not in _NOT_NAMES and not any(w.lower() in e.value for e in out.values()):
            add("name", w)
    return list(out.values())


# --------------------------------------------------------------------------------------
# Lexical signals (whole words in English; phrases in Chinese)


def _words(*alts: str) -> str:
    """Whole words or phrases (a hyphen or underscore joins: ``short`` is not in ``test-short``)."""
    return r"(?<![\w-])(?:" + "|".join(alts) + r")(?![\w-])"


_FILLER_LEAD = re.compile(
    r"^(?:(?:(?:ok(?:ay)?|right|yes|yeah|yep|great|nice|cool|thanks|thank you|thx|ty|also|and|but|so|btw|by the way|hmm+|"
    r"looks good|lgtm|perfect|sounds good|good|works|that works|done|alright|all right|"
    r"well|oh|ah|one more thing(?: for [^:,，]{1,40})?|another thing|quick note|note|please|pls|plz|"
    r"heads[- ]up|fyi|reminder|[\w ]{0,20}reminder|important)(?![\w'])|(?:先说一下|说一下|对了|另外|还有|顺便说一下|顺便|嗯|好的|好|那个|请))"
    r"\s*[,:;!.，：；！。—-]*\s*)+",
    re.I,
)
_CORRECTION_LEAD = re.compile(
    r"^(?:(?:(?:no+|nope|nah|stop|wait|wrong|incorrect|not quite|actually|hold on|hmm,? no|no no|"
    r"that'?s (?:wrong|not right|incorrect|stale|outdated|old|not it))(?![\w'])|(?:不对|不是|错了|不行|停|等等|等一下|"
    r"应该是|你搞错了|搞错了))\s*[,:;!.，：；！。—-]*\s*)+",
    re.I,
)
_TRAILING = re.compile(
    r"\s*[,，;；]?\s*(?:记住这个|记住了吗|记住了|记住啊|记住|remember that|remember this|thanks|thank you|please|"
    r"pls|ok\??|okay\??)\s*[.!。！]*\s*$",
    re.I,
)
_HABIT_MARKERS = re.compile(
    r"\s*[,，]?\s*\b(?:as usual|like always|as always|as before)\b|\s*[,，]?\s*(?:照旧|照例|和以前一样|还是老样子)",
    re.I,
)

_IDIOMS = re.compile(
    _words(
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
_GENERIC: tuple[tuple[re.Pattern[str], float, str], ...] = (
    (
        re.compile(
            _words(
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
        re.compile(_words("as usual", "like always", "as always", "as before", "same as always", "like usual"), re.I),
        3.0,
        "habit wording",
    ),
    (re.compile(_words("next time", "from then on", "any time", "anytime"), re.I), 1.5, "future-facing wording"),
    (
        re.compile(
            _words(
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
            _words(
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
            _words(
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
_CONDITION_LEAD = re.compile(
    r"^(?:when(?:ever)?|each time|every time|before|after|if)\s+(?:you|we|i)\s+(?:\w+\s+){0,1}"
    r"(?:write|commit|push|merge|release|deploy|add|change|touch|create|open|review|name|test|update|edit|reply|"
    r"answer|respond|install|upgrade|bump|tag|ship|migrate|refactor|log|call|rename|delete|remove)\w*\b[^,，]{0,60}[,，]\s*"
    r"|^(?:每次|凡是|只要|以后)?(?:写|提交|发布|部署|合并|新增|修改|改|加|删|升级|回答|回复)[^，,]{0,20}(?:时|的时候|前|后)[，,]\s*"
    r"|^[^，,。？?！!]{1,12}?的时候[，,]?\s*",
    re.I,
)
_LABEL_LEAD = re.compile(r"^(?:[A-Z][\w/-]*(?:\s[\w/-]+){0,2}|[\u4e00-\u9fff]{2,8})\s*[:：]\s+(?=\S)")
_PRODUCT_CHANGE = re.compile(
    r"\b(?:button|page|modal|screen|dialog|header|footer|banner|icon|colou?r|font|layout|label|logo|tooltip|menu|"
    r"placeholder|spinner|card|badge|link|title|image|background)s?\b[^.;]{0,40}\b(?:should|must|will|needs? to)\s+(?:be|look|show|say|have)\b"
    r"|(?:按钮|页面|弹窗|颜色|字体|图标|标题|背景)[^，。]{0,10}(?:改成|换成|应该是|要是)",
    re.I,
)
_LEAD_MARKER = re.compile(
    r"^(?:(?:from now on|going forward|in (?:the )?future|from here on|next time|by default|as usual|like always|"
    r"for the whole (?:codebase|repo|project)|across the (?:codebase|repo)|in this (?:repo|project|codebase)|"
    r"以后|今后|往后|从现在开始|以后都|默认|每次)\s*[,:;，：；]?\s*)+",
    re.I,
)
_ALWAYS_NEVER = re.compile(r"\b(always|never)\b", re.I)
_AN_BEFORE_OK = re.compile(
    r"(?:^|\b(?:we|you|u|should|must|to|will|'ll|would|please|and|but|or|just|is|are|be|was|were|it'?s|they'?re|"
    r"we'?re|you'?re|is|has|have|gets?|stays?|should be|must be|need to|needs to)\s+$|^[^\w]*$|[,;:，：]\s*$)",
    re.I,
)
_AN_PRONOUN_BEFORE = re.compile(r"\b(?:i|i've|i'd|i'm|he|she|it|this|that|they|which)\s+$", re.I)
_AN_SUBJECT_BEFORE = re.compile(r"\b(?:we|you|u)\s+$", re.I)
_ZH_ALWAYS = re.compile(r"总是|总要|老是")

_EXPLICIT = re.compile(
    _words(
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
_CONVENTION = re.compile(
    _words(
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
_POLICY_VERBS = (
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
_PROHIBIT_LEAD = re.compile(r"^(?:please\s+)?(?:don'?t|do not|never|avoid|stop|no more|not|please don'?t)\b", re.I)
_POLICY_LEAD = re.compile(r"^(?:please\s+)?(?:always\s+)?" + _words(*_POLICY_VERBS), re.I)
_ZH_PROHIBIT = re.compile(
    r"^(?:请)?(?:不要|别|不准|禁止|勿|不许|不能|请勿|千万别|千万不要|不用再|别再)|(?:^|[，,；;])\s*(?:不要|别|禁止|不准|不许)"
    r"|^[^，,。；;？?！!]{1,16}?(?:不要|不准|禁止|不许|不能|不得)(?!紧)"
)
_ZH_POLICY = re.compile(
    r"^(?:请|都|统一|一律|以后|本地|平时|一般|要|得|应该|需要)?(?:用|使用|改用|走|放|写|按|按照|叫|命名|提交到|部署到|回答|回复|说|跑|先跑|只用)"
    r"|(?:^|[，,])\s*[多少](?:给|用|写|讲|说|举|放|加|问)"
    r"|用\s*[\w`./:-]+(?:\s+[\w`./:-]+){0,3}\s*(?:就行|就好|就可以|即可)"
    r"|(?:统一|一律|都|只|必须|务必|一定要|全部)(?:用|使用|走|按|写|放|交给|通过)"
)
_TASK_LEAD = re.compile(
    r"^(?:please\s+|can you\s+|could you\s+|would you\s+|let'?s\s+|now\s+|then\s+|ok\s+|go ahead and\s+)?"
    + _words(
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
_ZH_TASK = re.compile(
    r"^(?:请|麻烦)?(?:帮我|帮忙|给我|把|加|加个|加一个|改|修|修一下|删|删除|写个|写一个|实现|看看|看一下|查|查一下|检查|"
    r"补|补跑|再|继续|新建|创建|运行|跑一下|试试|试一下|重构|优化|整理|生成|解释|告诉我|列出|打开)"
)
_ONE_OFF_REF = re.compile(
    _words("wrong file", "the other one", "that one", "this one", "i meant", "i mean", "typo")
    + r"|这个文件|那个文件|另一个|我是说|我的意思是",
    re.I,
)
_SCOPING = re.compile(
    _words(
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
_HYPOTHETICAL = re.compile(
    _words(
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
_REPORTED = re.compile(
    _words(
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
_QUOTED_SPAN = re.compile(r"\"[^\"]{12,}\"|“[^”]{6,}”|「[^」]{4,}」")
_QUESTION_LEAD = re.compile(
    r"^(?:so\s+|and\s+|but\s+|also\s+|ok\s+)?"
    + _words(
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
_ZH_QUESTION = re.compile(
    r"为什么|为啥|怎么|如何|是不是|能不能|可不可以|要不要|有没有|会不会|对不对|是否|哪(?:个|里|些|儿)|什么|多少|几个|[吗呢吧嘛]\s*[？?。！!]*$"
)
_CONTRAST = re.compile(
    r"[\w`.-]+\s*(?:\([^)]{1,20}\))?\s*,\s*(?:not|never)\s+(?:an?\s+)?[\w`.-]+|\binstead of\b|\brather than\b|\bnot\s+[\w`.-]+\s*,\s*(?:but\s+)?(?:use\s+)?[\w`.-]+"
    r"|而不是|不用.{1,12}[，,]\s*用|用.{1,16}[，,]\s*(?:不要|别)用",
    re.I,
)
_NOW_STATE = re.compile(
    r"(?:\b(?:is|are|lives?|runs?|goes|go|points?)\b|\b(?:it|that|they|we)'(?:s|re)\b)[^;。]{1,60}\bnow\b\s*(?:[,.;]|$)|现在(?:是|在|用|改|走)",
    re.I,
)
_CHANGE = re.compile(
    _words(
        "moved to",
        "switched to",
        "migrated to",
        "we now use",
        "now uses?",
        "no longer",
        "not anymore",
        "any more",
        "anymore",
        "replaced by",
        "deprecated",
        "is gone",
        "are gone",
        "retired",
        "decommissioned",
        "has moved",
        "now lives",
        "is now",
        "are now",
    )
    + r"|改用|换成|换到|迁移到|迁到|迁移了|不再|弃用|废弃|已经下线|下线了|取代|代替|而不是",
    re.I,
)
_FACT_VERBS = re.compile(
    _words(
        "is",
        "are",
        "lives?",
        "live in",
        "runs? on",
        "runs? in",
        "points? to",
        "goes through",
        "go through",
        "goes to",
        "go to",
        "belongs? to",
        "owned by",
        "owns?",
        "hosted on",
        "deployed (?:to|on|from)",
        "served from",
        "sits? in",
        "located",
        "maintained by",
        "handled by",
        "reachable at",
        "available at",
        "listens on",
        "runs? with",
        "uses?",
        "needs?",
        "requires?",
        "relies on",
        "depends on",
        "gets?",
        "comes? from",
        "only",
    )
    + r"|是|在|走|归|由|负责|部署在|放在|入口|地址|端口|位于|依赖|需要|要连|只用",
    re.I,
)
_OWNER = re.compile(
    _words(
        "owned by",
        "owner",
        "owners",
        "belongs to",
        "maintained by",
        "ask \\w+ before",
        "check with",
        "ping \\w+",
        "team owns",
        "'s team",
        "on-call",
        "oncall",
        "without asking",
        r"ask (?:me|us|\w+) first",
    )
    + r"|负责人|归.{1,8}管|(?:找|跟|和|问).{0,8}确认|问一下.{1,8}"
    r"|(?:由|是)[^，。,；;]{1,8}负责",
    re.I,
)
_STYLE = re.compile(
    _words(
        "answers?",
        "replies",
        "reply",
        "respond",
        "responses?",
        "explanations?",
        "explain",
        "tone",
        "verbose",
        "concise",
        "brief",
        "short",
        "terse",
        "emoji",
        "emojis",
        "in (?:english|chinese|mandarin|japanese|german|french|spanish)",
        "summaries",
        "summary",
        "bullet points",
        "markdown",
    )
    + r"|回答|回复|解释|简短|简洁|啰嗦|废话|中文|英文|用英语|用汉语|表情|总结",
    re.I,
)
_ASSISTANT_REF = re.compile(_words("you", "your", "me", "to me", "i don'?t need", "i want") + r"|你|我|跟我|给我", re.I)
_REASON = re.compile(
    _words(
        "because",
        "since",
        "otherwise",
        "or else",
        "so that",
        "as it",
        "that folder",
        "relies on",
        "needs",
        "gets overwritten",
        "breaks",
    )
    + r"|,?\s\bor (?:else )?(?:the|it|we|you|they|this|that|everything)\b"
    + r"|因为|不然|否则|以免|免得|之前.{0,12}(?:出过|出了|坏过)|会导致|会被",
    re.I,
)
_TEAM_PRACTICE = re.compile(
    r"(?:^|[,;:，；]\s*)(?:we|the team|our team|everyone here)\s+(?:always\s+|never\s+|all\s+|only\s+|usually\s+|mostly\s+)?"
    r"(?!need\b|needed\b|should\b|could\b|can\b|might\b|may\b|will\b|would\b|had\b|did\b|were\b|was\b|got\b|"
    r"tried\b|want\b|wanted\b|just\b|still\b|already\b|are going\b|have to\b)"
    r"[a-z]{2,}(?<!ed)\b|^(?:we'?re|we are|this is|it'?s) an? [\w-]+ (?:monorepo|repo|project|shop|team|service|app|codebase)\b"
    r"|我们(?:的[^，。,.]{1,16}?)?(?:一般|都|一直|平时|只|统一|一律)?(?:用|使用|走|按|是|在|不用|不要)",
    re.I,
)
_INSTRUMENT = re.compile(
    r"\b(?:with|using|via|through|in)\s+(?!the\b|a\b|an\b|this\b|that\b|it\b|them\b|my\b|our\b|your\b|mind\b)"
    r"`?[a-z][\w.-]{1,20}`?(?:\s|[,.;]|$)",
    re.I,
)
_DEFINITION = re.compile(
    r"^(?:the\s+|our\s+)?(?:[\w-]+\s+){0,3}(?:db|database|host|server|cluster|bucket|queue|registry|endpoint|url|port|"
    r"repo|branch|owner|team|key|secret|token|config|dashboard|logs?|ci|pipeline|env|environment|domain|api|cdn|"
    r"staging|prod|production|dev|proxy|vpn|account|project|region|namespace|channel|deploys?|releases?|builds?|"
    r"tests?|migrations?)\s+(?:is|are|lives?|runs?|sits?|goes|go|points?)\b"
    r"|^(?:[\w-]+\s*){0,3}(?:的)?(?:数据库|地址|域名|端口|分支|负责人|仓库|服务器|集群|环境|日志|入口|配置|账号|命名)(?:是|在|用|走)",
    re.I,
)
_PROBLEM = re.compile(
    _words(
        "error",
        "errors",
        "bug",
        "bugs",
        "issue",
        "problem",
        "crash",
        "crashes",
        "failure",
        "exception",
        "warning",
        "typo",
        "broken",
        "fails",
        "failing",
        "flaky",
        "timeout",
        "timing out",
    )
    + r"|报错|错误|失败|超时|崩溃|白屏",
    re.I,
)
_CONSEQUENCE = re.compile(r"(?:,?\s\b(?:or(?: else)?|otherwise)\b|[，,]?\s*(?:不然|否则))[^.;。；]*", re.I)
"""The consequence clause of a rule (*…, or the rollback fails*; 不然…): its failure words are not a problem report."""
_GENERIC_SUBJECT = re.compile(
    r"^(?:all\s+|our\s+|the\s+)?(?:[a-z][\w-]*\s+){0,2}[a-z][\w-]*s\s+(?:here\s+|in (?:this|the|our) (?:repo|project|codebase)\s+)?"
    r"(?:go|are|get|run|live|belong|need|use|must|should|have to|require|deploy|point|come|stay|follow|start|end)\b"
    r"|^(?:we|the team|everyone|nobody|our team)\s+(?:always\s+|never\s+|all\s+)?"
    r"(?:use|don'?t|do not|never|always|prefer|deploy|run|ship|keep|put|write|name|have|release|merge|tag|follow)\b",
    re.I,
)


@dataclass
class SentenceScore:
    """How durable one sentence reads."""

    score: float = 0.0
    reasons: list[str] = field(default_factory=list)
    excluded: str = ""
    """Why the sentence can never be a candidate (``question``, ``scoping``…), or ``""``."""
    policy: bool = False
    """It is phrased as a rule (imperative, prohibition, convention)."""
    task: bool = False
    """It reads as a one-off request."""
    entities: list[Entity] = field(default_factory=list)
    text: str = ""
    """The sentence with idioms removed."""

    def add(self, weight: float, reason: str) -> None:
        self.score += weight
        if reason and reason not in self.reasons:
            self.reasons.append(reason)


def is_question(s: str) -> bool:
    """A question (a ``?`` at the end, an interrogative opening, or a Chinese question form)."""
    t = s.strip()
    if not t:
        return False
    if t.endswith(("?", "？")):
        return True
    core = _FILLER_LEAD.sub("", t)
    if has_cjk(core):
        return _ZH_QUESTION.search(core) is not None and not re.search(r"(?:不管|无论)", core)
    if _CONDITION_LEAD.match(core):  # "When you write commit messages, use …" is a rule
        return False
    return _QUESTION_LEAD.match(core) is not None


def _always_never_ok(s: str, m: re.Match[str]) -> bool:
    before = s[: m.start()]
    if _AN_PRONOUN_BEFORE.search(before):
        return False
    if _AN_BEFORE_OK.search(before) or _AN_SUBJECT_BEFORE.search(before):
        return True
    after = s[m.end() :].lstrip().lower()
    first = re.match(r"[a-z'-]+", after)
    return (
        first is not None
        and first.group(0) in {v.split()[0] for v in _POLICY_VERBS}
        and not re.search(r"\w+s\s*$", before.strip().lower() or "x")
    )


def score_sentence(sentence: str) -> SentenceScore:
    """Score one sentence (see the module docstring). Correction context is added by the caller."""
    raw = sentence.strip()
    text = _IDIOMS.sub(" ", raw).strip(" ,，。.;；")
    sc = SentenceScore(text=text)
    if not text:
        sc.excluded = "idiom"
        return sc
    if is_question(raw):
        sc.excluded = "question"
        return sc
    if _REPORTED.search(text):
        sc.excluded = "quoted"
        return sc
    text_nq = _QUOTED_SPAN.sub(" ", text)
    if _SCOPING.search(text_nq):
        sc.excluded = "one-off scoping"
        return sc
    core = _CORRECTION_LEAD.sub("", _FILLER_LEAD.sub("", text_nq)).strip()
    core = _FILLER_LEAD.sub("", core).strip()
    cjk = has_cjk(core)
    words = len(re.findall(r"[A-Za-z0-9_'-]+", core)) + len(_CJK.findall(core)) // 2
    if words < 3:
        sc.excluded = "too short"
        return sc
    if _HYPOTHETICAL.search(text_nq):
        sc.add(-2.0, "")
    # General or future-facing wording.
    for rx, weight, reason in _GENERIC:
        m = rx.search(text_nq)
        if m:
            sc.add(weight, f"{reason} ({m.group(0).strip()})")
    for m in _ALWAYS_NEVER.finditer(_HABIT_MARKERS.sub(" ", text_nq)):
        if _always_never_ok(_HABIT_MARKERS.sub(" ", text_nq), m):
            sc.add(2.0, f"general wording ({m.group(1).lower()})")
            break
    always = _ZH_ALWAYS.search(text_nq)
    if always and not is_question(raw):
        sc.add(1.5, "general wording (" + always.group(0) + ")")
    m = _EXPLICIT.search(text_nq)
    if m:
        sc.add(2.0, f"explicit ({m.group(0).strip()})")
    m = _CONVENTION.search(text_nq)
    if m:
        sc.add(2.0, f"convention ({m.group(0).strip()})")
        sc.policy = True
    # Imperative rules, prohibitions (after a leading "from now on", 以后…, a condition
    # "when you write commit messages," or a label "Tests:").
    imp = _LEAD_MARKER.sub("", core)
    cond = _CONDITION_LEAD.match(imp)
    if cond:
        imp = imp[cond.end() :]
        sc.add(1.5, f"general condition ({cond.group(0).strip(' ,，')})")
    label = _LABEL_LEAD.match(imp)
    if label and not cond:
        imp = imp[label.end() :]
    if _PROHIBIT_LEAD.match(imp) or _ZH_PROHIBIT.search(imp):
        sc.add(1.5, "project rule (prohibition)")
        sc.policy = True
    elif _POLICY_LEAD.match(imp) or (cjk and _ZH_POLICY.search(imp)):
        sc.add(1.0, "project rule (imperative)")
        sc.policy = True
    if sc.policy and (cond or label):
        sc.add(1.0, "stated as a rule (" + ("condition" if cond else "label") + ", then what to do)")
    if _GENERIC_SUBJECT.search(core):
        sc.add(1.0, "general statement")
    elif _TEAM_PRACTICE.search(core):
        sc.add(1.5, "how the team works")
    # Environment facts.
    ents = entities(text)
    sc.entities = ents
    kinds = {e.kind for e in ents}
    if ents:
        sc.add(min(1.5, 0.5 * len(kinds)), "names " + ", ".join(sorted(_KIND_LABEL.get(k, k) for k in kinds)))
        if _FACT_VERBS.search(core):
            sc.add(1.0, "environment fact")
            if (_DEFINITION.search(core) or _DEFINITION.search(imp)) and not _PROBLEM.search(core):
                sc.add(1.5, "says where or what something is")
    elif _INSTRUMENT.search(text_nq) and (sc.score > 0 or _TEAM_PRACTICE.search(core)):
        sc.add(0.5, "names a tool")
    if _PROBLEM.search(_CONSEQUENCE.sub("", core)) and not sc.policy:  # "…, or the job fails" is a reason
        sc.add(-1.0, "")
    if _PRODUCT_CHANGE.search(core):
        sc.add(-1.5, "")
    if _OWNER.search(core):
        sc.add(1.5, "ownership")
    m = _CHANGE.search(text_nq)
    if m:
        sc.add(1.5, f"change of state ({m.group(0).strip()})")
    elif _NOW_STATE.search(text_nq):
        sc.add(1.0, "change of state (now)")
    if _CONTRAST.search(text_nq):
        sc.add(1.5 if sc.policy else 1.0, "names the alternative")
    if _STYLE.search(core) and (sc.policy or _ASSISTANT_REF.search(core)):
        sc.add(2.0, "answer-style preference")
        sc.policy = True
    if _REASON.search(text_nq) and sc.score > 0:
        sc.add(0.5, "gives a reason")
    # One-off requests.
    if (_TASK_LEAD.match(imp) or (cjk and _ZH_TASK.match(imp))) and not sc.policy:
        sc.task = True
        sc.add(-2.0, "")
    if _ONE_OFF_REF.search(text_nq):
        sc.add(-1.5, "")
    return sc


_WRONG_CLAUSE = re.compile(
    r"^[^，,。.;；!！?？]{0,40}?(?:不对|错了|有问题|搞错了|\bis wrong\b|\bare wrong\b|\bis incorrect\b|\bisn'?t right\b)\s*[，,。.;；:：!！]"
)


def correction_signal(message: str, previous: str, previous_tokens: frozenset[str]) -> tuple[float, str]:
    """Weight and reason when ``message`` corrects the assistant's previous step.

    ``previous`` describes the step (a tool call, or ``claim: …`` for what the assistant
    said); ``previous_tokens`` are its distinctive tokens. A correction opening (*no, stop,
    that's stale*, 不对, 别…, or a first clause saying something is wrong) counts; naming
    something a tool call used while negating it counts too, and both together count more.
    A claim is only corrected by an explicit opening.
    """
    if not previous:
        return 0.0, ""
    text = _FILLER_LEAD.sub("", message.strip())
    lead = (
        _CORRECTION_LEAD.match(text) is not None
        or _PROHIBIT_LEAD.match(text) is not None
        or _WRONG_CLAUSE.match(text) is not None
        or (has_cjk(text) and re.match(r"^(?:不对|不是|错了|别|不要|不行|应该)", text) is not None)
    )
    if previous.startswith("claim: ") and not lead:
        return 0.0, ""
    negation = re.search(
        r"\b(?:not|don'?t|do not|never|instead|stop|wrong|stale|outdated)\b|不对|不是|别|不要|而不是|不用", text, re.I
    )
    mine = _distinct_tokens(text)
    overlap = sorted(t for t in mine & previous_tokens if t not in _GENERIC_PARTS and len(t) >= 3)
    step = previous.split(": ", 1)[-1].lower()
    head = " ".join(step.split()[:3])
    if not previous.startswith("claim: ") and len(head) >= 5 and head in text.lower():
        overlap.append(head)
    if lead and overlap:
        return 2.0, f"correction of the previous step ({previous})"
    if negation and overlap:
        return 1.5, f"correction of the previous step ({previous})"
    if lead:
        return 1.0, f"answers the previous step ({previous})"
    return 0.0, ""


_STOP = frozenset(
    "a an the and or but if then so to of in on at by for with from into onto up out as is are was were be been "
    "being it its this that these those there here i you he she we they me my your our their us them do does did "
    "done not no yes can could would should will shall may might must have has had just also only very too "
    "please pls ok okay now then than what which who whom whose when where why how all any some each every more "
    "most other such own same let lets get got make made use used run see need want like one two first next new "
    "old good fine sure right well way thing things about after before again over under off via per".split()
)


_GENERIC_PARTS = frozenset(
    "app apps src lib libs internal cmd pkg test tests docs doc main dev api file files code data new tmp bin "
    "build dist out index utils util common core the and".split()
)


def _distinct_tokens(text: str) -> frozenset[str]:
    """Tokens that identify what a step or a statement is about (commands, names, values)."""
    out: set[str] = set()
    for w in re.findall(r"[A-Za-z0-9][\w.:/@-]*[A-Za-z0-9]|[A-Za-z0-9]", text):
        lw = w.lower()
        for part in {lw, *re.split(r"[/:@]", lw)}:
            if len(part) >= 2 and part not in _STOP and not part.isdigit():
                out.add(part)
    return frozenset(out)


distinct_tokens = _distinct_tokens


def clean_statement(s: str) -> str:
    """The sentence as a clean rule: lead-ins (*ok, also, no, stop, heads-up:* 对了, 不对,
    记住), trailing *remember this* / 记住这个 and habit markers removed, first letter
    capitalised."""
    t = s.strip()
    for _ in range(3):
        before = t
        t = _FILLER_LEAD.sub("", t)
        t = _CORRECTION_LEAD.sub("", t)
        t = re.sub(r"^(?:记住|记得|remember)\s*[,:：，]\s*", "", t, flags=re.I)
        if t == before:
            break
    t = _WRONG_CLAUSE.sub("", t).strip()
    t = _TRAILING.sub("", t)
    t = _HABIT_MARKERS.sub("", t)
    t = _IDIOMS.sub("", t)
    t = re.sub(r"\s+", " ", t).strip(" ,，;；:：-—")
    if t and t[0].isascii() and t[0].islower() and not re.match(r"[a-z]+[A-Z0-9_./-]", t.split(" ")[0]):
        t = t[0].upper() + t[1:]
    return t


_TITLE_LEAD = re.compile(
    r"^(?:(?:remember|note|keep in mind|don'?t forget|for the record|for context|just so you know|"
    r"one thing|and this goes for everything(?: you \w+)?(?: here)?|this goes for everything(?: you \w+)?(?: here)?)"
    r"(?: (?:that|to))?\s*[,:;—–-]*\s+"
    r"|(?:记住|记得|别忘了|不要忘了|注意|提醒一下|请|麻烦你?|帮我)\s*[,:：，]?\s*)",
    re.I,
)
_WE_ADVERB = re.compile(r"^(?:we|you|u)\s+(always|never|usually|only)\s+(?=[a-z])", re.I)


def title_text(s: str) -> str:
    """The rule of a statement for a title: :func:`clean_statement`, then what only leads
    into it — *remember that*, *from now on*, *for context:*, 以后, 记住, 请 — left out, and
    *we always run …* said as the rule (*Always run …*)."""
    t = clean_statement(s)
    for _ in range(4):
        before = t
        t = _LEAD_MARKER.sub("", t)
        t = _TITLE_LEAD.sub("", t)
        t = _FILLER_LEAD.sub("", t)
        t = _WE_ADVERB.sub(lambda m: m.group(1) + " ", t)
        t = t.strip(" ,，;；:：-—")
        if t == before:
            break
    if not t:
        return clean_statement(s)
    if t[0].isascii() and t[0].islower() and not re.match(r"[a-z]+[A-Z0-9_./-]", t.split(" ")[0]):
        t = t[0].upper() + t[1:]
    return t
