"""Lexical signals of environment facts and of how a statement is meant.

A change of state (*moved to, no longer*; 改用, 不再), verbs that say where or what
something is (*is, lives, goes through*; 是, 在, 走), ownership, answer-style preferences,
reasons and consequences, team practice, tools, definitions and problem reports.
"""

from __future__ import annotations

import re

from .rule_patterns import whole_words

CONTRAST = re.compile(
    r"[\w`.-]+\s*(?:\([^)]{1,20}\))?\s*,\s*(?:not|never)\s+(?:an?\s+)?[\w`.-]+|\binstead of\b|\brather than\b|\bnot\s+[\w`.-]+\s*,\s*(?:but\s+)?(?:use\s+)?[\w`.-]+"
    r"|而不是|不用.{1,12}[，,]\s*用|用.{1,16}[，,]\s*(?:不要|别)用",
    re.I,
)


NOW_STATE = re.compile(
    r"(?:\b(?:is|are|lives?|runs?|goes|go|points?)\b|\b(?:it|that|they|we)'(?:s|re)\b)[^;。]{1,60}\bnow\b\s*(?:[,.;]|$)|现在(?:是|在|用|改|走)",
    re.I,
)


CHANGE = re.compile(
    whole_words(
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


FACT_VERBS = re.compile(
    whole_words(
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


OWNER = re.compile(
    whole_words(
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


STYLE = re.compile(
    whole_words(
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


ASSISTANT_REF = re.compile(
    whole_words("you", "your", "me", "to me", "i don'?t need", "i want") + r"|你|我|跟我|给我", re.I
)


REASON = re.compile(
    whole_words(
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


TEAM_PRACTICE = re.compile(
    r"(?:^|[,;:，；]\s*)(?:we|the team|our team|everyone here)\s+(?:always\s+|never\s+|all\s+|only\s+|usually\s+|mostly\s+)?"
    r"(?!need\b|needed\b|should\b|could\b|can\b|might\b|may\b|will\b|would\b|had\b|did\b|were\b|was\b|got\b|"
    r"tried\b|want\b|wanted\b|just\b|still\b|already\b|are going\b|have to\b)"
    r"[a-z]{2,}(?<!ed)\b|^(?:we'?re|we are|this is|it'?s) an? [\w-]+ (?:monorepo|repo|project|shop|team|service|app|codebase)\b"
    r"|我们(?:的[^，。,.]{1,16}?)?(?:一般|都|一直|平时|只|统一|一律)?(?:用|使用|走|按|是|在|不用|不要)",
    re.I,
)


INSTRUMENT = re.compile(
    r"\b(?:with|using|via|through|in)\s+(?!the\b|a\b|an\b|this\b|that\b|it\b|them\b|my\b|our\b|your\b|mind\b)"
    r"`?[a-z][\w.-]{1,20}`?(?:\s|[,.;]|$)",
    re.I,
)


DEFINITION = re.compile(
    r"^(?:the\s+|our\s+)?(?:[\w-]+\s+){0,3}(?:db|database|host|server|cluster|bucket|queue|registry|endpoint|url|port|"
    r"repo|branch|owner|team|key|secret|token|config|dashboard|logs?|ci|pipeline|env|environment|domain|api|cdn|"
    r"staging|prod|production|dev|proxy|vpn|account|project|region|namespace|channel|deploys?|releases?|builds?|"
    r"tests?|migrations?)\s+(?:is|are|lives?|runs?|sits?|goes|go|points?)\b"
    r"|^(?:[\w-]+\s*){0,3}(?:的)?(?:数据库|地址|域名|端口|分支|负责人|仓库|服务器|集群|环境|日志|入口|配置|账号|命名)(?:是|在|用|走)",
    re.I,
)


PROBLEM = re.compile(
    whole_words(
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


CONSEQUENCE = re.compile(r"(?:,?\s\b(?:or(?: else)?|otherwise)\b|[，,]?\s*(?:不然|否则))[^.;。；]*", re.I)
"""The consequence clause of a rule (*…, or the rollback fails*; 不然…): its failure words are not a problem report."""


GENERIC_SUBJECT = re.compile(
    r"^(?:all\s+|our\s+|the\s+)?(?:[a-z][\w-]*\s+){0,2}[a-z][\w-]*s\s+(?:here\s+|in (?:this|the|our) (?:repo|project|codebase)\s+)?"
    r"(?:go|are|get|run|live|belong|need|use|must|should|have to|require|deploy|point|come|stay|follow|start|end)\b"
    r"|^(?:we|the team|everyone|nobody|our team)\s+(?:always\s+|never\s+|all\s+)?"
    r"(?:use|don'?t|do not|never|always|prefer|deploy|run|ship|keep|put|write|name|have|release|merge|tag|follow)\b",
    re.I,
)
