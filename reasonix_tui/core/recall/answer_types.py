"""Answer types: what kind of answer a question asks for, and what kinds a fact holds.

A classic question-answering mechanism: a question's wh-word and its head noun set the type
of answer it expects ("who …?" a person or team, "what port …?" a number, "when …?" a time,
"where …?" a place, "what command …?" a command, "which library …?" a product's name); a
fact's text shows which types of answer it holds (an ``@handle``, a ``#channel``, a person's
name; a number; a clock time, a weekday, a cron line; a path, a URL, a host; a command in
backticks; a product's name). A paraphrase shares no word with its fact, so no word channel
sees it, and a static meaning model alone ranks a fact that is merely *about* the turn's
topic as high as the one that answers it. The fact nearest by meaning *among the facts that
hold the expected type*, ahead of the next one of that type by a margin, is evidence that it
answers the turn (:mod:`.meaning_alone` admits it, named ``answer type`` in the trace).

The question side reads English only (a Chinese question's wh-words are function words in
the dictionary, with no head noun grammar of their own here). The word lists below are the
closed class of English question words and the answer-type head nouns of the usual QA
taxonomies (person, number, time, place, command, product), plus English's own time words
(weekday and month names from :mod:`calendar`, the frequency adverbs); nothing in them comes
from a task of the suite.

A fact's types are computed once per fact (:func:`fact_types`, memoised with the fact's
other channel data) when the index is built, never per query.
"""

from __future__ import annotations

import calendar
import re

from ..store.model import Fact

__all__ = [
    "PERSON",
    "NUMBER",
    "TIME",
    "PLACE",
    "COMMAND",
    "NAME",
    "TYPE_NAMES",
    "question_types",
    "fact_types",
    "text_types",
    "type_names",
    "topic_words",
]

PERSON = 1
"""A person or a team: an ``@handle``, a ``#channel``, an e-mail address, a person's name."""
NUMBER = 2
"""A number (a port, a size, a limit, a version)."""
TIME = 4
"""A time: a clock time, a weekday or month, a cron line, a frequency, a duration."""
PLACE = 8
"""A place: a path, a file name, a URL, a host, a ``#channel``, an e-mail address."""
COMMAND = 16
"""A command: a code span."""
NAME = 32
"""A product's or a tool's name (a word capitalised inside a sentence, or with an inner
capital), or a code span."""
TYPE_NAMES = {PERSON: "person", NUMBER: "number", TIME: "time", PLACE: "place", COMMAND: "command", NAME: "name"}

# -- the question ---------------------------------------------------------------------------

_HEADS: dict[str, int] = {}
for _words, _type in (
    ("person people team owner owners engineer engineers squad contact maintainer maintainers lead", PERSON),
    (
        "port ports number version versions size limit limits count timeout threshold quota budget percentage "
        "amount maximum minimum max min",
        NUMBER,
    ),
    ("time times day days date dates hour hours weekday weekdays month year schedule deadline cutoff", TIME),
    (
        "channel channels url urls link links path paths folder folders directory directories file files repo "
        "repos repository page pages site address host dashboard place location bucket",
        PLACE,
    ),
    ("command commands script scripts flag flags option options", COMMAND),
    (
        "tool tools library libraries lib framework frameworks service services package packages product "
        "products provider providers vendor vendors database db queue sdk plugin engine runner platform "
        "client stack broker",
        NAME,
    ),
):
    for _w in _words.split():
        _HEADS[_w] = _type

_HOW = {
    "many": NUMBER,
    "much": NUMBER,
    "long": TIME | NUMBER,
    "often": TIME,
    "frequently": TIME,
    "soon": TIME,
    "late": TIME,
    "early": TIME,
    "old": NUMBER,
    "big": NUMBER,
    "large": NUMBER,
    "far": NUMBER | TIME,
    "fast": NUMBER,
    "high": NUMBER,
    "small": NUMBER,
}
"""``how`` + an adjective or adverb: a quantity or a time."""
_WORD = re.compile(r"[a-z][a-z'-]*")
_USE = re.compile(
    r"\bwhat(?:'s| is| are)? (?:do|does|did|should|can) (?:we|you|i|they|people) use\b|\bwhat(?:'s| is| are) used\b"
)
""""what do we use (to / for) …": a product's name."""
_DESCRIBE = frozenset("happens means matters counts goes".split())
"""Verbs after ``what`` that ask for a description, not a thing: "what happens if …"."""
_DETERMINERS = frozenset("the a an our your their this that these those its".split())
_AUX = frozenset(
    "is are was were be do does did can could should would will shall may might must has have had need "
    "'s 're".split()
)


def question_types(query: str) -> int:
    """The answer types an English question asks for (0: none, or no question word).

    ``who`` → a person; ``when`` → a time; ``where`` → a place; ``how many / much / long /
    often / old / far …`` → a number or a time; ``what / which`` + a head noun (within two
    words: "what's the local port", "which task runner") → that noun's type; "what do we use
    …" and "what manages …" (``what`` + a verb in -s) → a product's name. The first question
    word of the turn decides."""
    words = _WORD.findall(query.lower().replace("\u2019", "'"))
    for i, w in enumerate(words):
        base = w.split("'")[0]
        if base in ("who", "whom", "whose"):
            return PERSON
        if base == "when":
            return TIME
        if base == "where":
            return PLACE
        if base == "how":
            nxt = words[i + 1] if i + 1 < len(words) else ""
            # "how do I …?" asks for a procedure: any text can answer it
            return _HOW.get(nxt, 0)
        if base in ("what", "which"):
            return _what(words, i, w)
    return 0


def _what(words: list[str], i: int, w: str) -> int:
    text = " ".join(words[i:])
    if _USE.match(text):
        return NAME
    rest = words[i + 1 :]
    if w.endswith("'s"):
        rest = ["is", *rest]
    # skip one auxiliary and determiners: "what's the local port", "which port is", "at what hour"
    j = 0
    if rest and rest[0] in _AUX:
        j = 1
    while j < len(rest) and rest[j] in _DETERMINERS:
        j += 1
    for k in range(j, min(j + 3, len(rest))):
        t = _HEADS.get(rest[k])
        if t:
            return t
        if rest[k] in _AUX:
            break
    # "what manages paid plans?": what + a verb in -s (not a plural noun before its verb:
    # "what ports are open"; not a verb asking for a description: "what happens if …")
    if j == 0 and rest and rest[0].endswith("s") and not rest[0].endswith("ss") and rest[0] not in _DESCRIBE:
        after = rest[1] if len(rest) > 1 else ""
        if after and after not in _AUX:
            return NAME
    return 0


# -- the fact ---------------------------------------------------------------------------------

_HANDLE = re.compile(r"(?<![\w.])@[A-Za-z][\w.-]*\w")
_CHANNEL = re.compile(r"(?<![\w&])#[A-Za-z][\w-]*")
_EMAIL = re.compile(r"[\w.+-]@[\w-]+\.[\w-]")
_URL = re.compile(r"(?:https?|ftp|s3|gs)://\S|www\.\S")
_HOST = re.compile(r"(?<=[A-Za-z0-9])\.(?:com|org|net|io|dev|app|internal|local|cloud|health|co|ai|sh)(?![\w-])", re.I)
_PATH = re.compile(r"[\w.~-]/[\w<*]|(?<![\w/])/[a-z_][\w.-]*/")
_FILE = re.compile(
    r"(?<=[\w-])\.(?:json|ya?ml|toml|xml|ini|cfg|conf|env|lock|md|txt|py|ts|tsx|js|go|rs|kt|swift|sql|sh|"
    r"graphql|strings|xcworkspace|xcodeproj|gradle|properties)(?![\w-])",
    re.I,
)
_DOTFILE = re.compile(r"(?<![\w/.])\.[a-z][\w-]*[a-z]\b")
_CODE = re.compile(r"`[^`\n]+`")
_DIGIT = re.compile(r"\d")
_CLOCK = re.compile(r"(?<!\d)(?:[01]?\d|2[0-3])[:.h][0-5]\d(?![\d.])|(?<!\d)(?:1[0-2]|0?[1-9]) ?(?:am|pm)\b", re.I)
_CRON = re.compile(r"(?:^|[\s`'\"])(?:[\d*/,-]+ +){4}[\d*/,-]+(?=$|[\s`'\"])")
_DATE = re.compile(r"(?<!\d)\d{4}-\d{2}-\d{2}(?!\d)")
_UNITS = "seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?|quarters?"
_DURATION = re.compile(rf"\d ?-?(?:{_UNITS})\b", re.I)
_EVERY = re.compile(rf"\bevery +(?:\w+ +)?(?:{_UNITS}|other)\b", re.I)
_TIME_WORDS = frozenset(
    [d.lower() for d in calendar.day_name]
    + [d.lower() + "s" for d in calendar.day_name]
    + [m.lower() for m in calendar.month_name if m]
    + "hourly daily nightly weekly fortnightly monthly quarterly yearly annually midnight noon weekend weekends".split()
)
_TIME_STEMS = tuple(sorted({w[:3] if w.endswith(("day", "days")) else w[:5] for w in _TIME_WORDS}))
"""Cheap substring tests before the time-word pattern (most facts name no weekday)."""
_TIME_WORD = re.compile(r"\b(?:" + "|".join(sorted(_TIME_WORDS, key=len, reverse=True)) + r")\b", re.I)
_NUMBER = re.compile(r"(?<![\w.@#/-])\d+(?:[.,]\d+)?(?![\w@/-]|\.\w)")
_PORT = re.compile(r":(\d{2,5})\b")
_CAPWORD = re.compile(r"[A-Z][\w-]*[a-z][\w-]*")
_PREP_END = re.compile(r"\b(?:in|into|to|through|from|via)\s+(?:the\s+)?$")
"""A name after a preposition of place: a tool where things are kept or go ("kept in Doppler",
"reported to Sentry", "come in through Zendesk") answers "where …?"."""
_CAP = re.compile(r"(?<![\w@#./-])[A-Z][a-z]+(?: +[A-Z][a-z]+)+")


def text_types(text: str) -> int:
    """The answer types ``text`` holds (see the module docstring). Each test runs only when
    the characters it needs are there (an ``@``, a ``/``, a digit…): a fact is read once,
    when the index is built, but a store may hold 100k of them."""
    found = 0
    if "@" in text:
        if _HANDLE.search(text):
            found |= PERSON
        if _EMAIL.search(text):
            found |= PERSON | PLACE
    if "#" in text and _CHANNEL.search(text):
        found |= PERSON | PLACE
    if "/" in text and (_URL.search(text) or _PATH.search(text)):
        found |= PLACE
    if "." in text and (_HOST.search(text) or _FILE.search(text) or _DOTFILE.search(text)):
        found |= PLACE
    plain = text
    if "`" in text and _CODE.search(text):
        found |= COMMAND | NAME
        plain = _CODE.sub(" ", text)
    for m in _CAPWORD.finditer(plain):
        if m.group(0).lower() not in _TIME_WORDS and _PREP_END.search(plain, max(0, m.start() - 14), m.start()):
            found |= PLACE
            break
    low = plain.lower()
    if (any(w in low for w in _TIME_STEMS) and _TIME_WORD.search(plain)) or ("every" in low and _EVERY.search(plain)):
        found |= TIME
    if _DIGIT.search(text):
        clock = (":" in plain or "m" in low) and _CLOCK.search(plain)
        if clock or _CRON.search(text) or _DATE.search(plain) or _DURATION.search(plain):
            found |= TIME
        numbers = _CLOCK.sub(" ", _DATE.sub(" ", plain))
        if _NUMBER.search(numbers) or _PORT.search(numbers):
            found |= NUMBER
    if _CAP.search(plain) and _person_name(plain):
        found |= PERSON
    return found


def _person_name(text: str) -> bool:
    """Two or more capitalised words in a row, none of them an everyday English word
    ("Priya Nair", "Kenji Mori", "Marta Ruiz"; not "Swift Package Manager", "Cloud
    Messaging", "Play Console"). The dictionary's glosses are no test: CC-CEDICT spells out
    many given names and surnames ("Marta", "Ruiz", "Weber")."""
    from ..lang.prior import zipf

    for m in _CAP.finditer(text):
        parts = m.group(0).split()
        if all(zipf(p.lower()) <= NAME_ZIPF for p in parts):
            return True
    return False


NAME_ZIPF = 4.2
"""A part of a person's name is rarer in English than this (wordfreq Zipf): "Ana" 3.9,
"Lima" 3.6, "Ruth" 4.05 (names rarer than the table's floor read 0); "Cloud" 4.6, "Play"
5.3."""


def _names(text: str) -> bool:
    """Whether ``text`` names a product or a tool: a capitalised word inside a sentence
    ("handled by RevenueCat", "load with Coil"; not the sentence's first word, not a weekday
    or a month), or a word with an inner capital ("PostHog")."""
    if _INNER_CAP.search(text):
        return True
    for m in _CAPWORD.finditer(text):
        start = m.start()
        if (
            start
            and not _SENTENCE_START.search(text, max(0, start - 3), start)
            and m.group(0).lower() not in _TIME_WORDS
        ):
            return True
    return False


_INNER_CAP = re.compile(r"[a-z][A-Z]")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;\n]\s*|[(\"'“]\s*|\n\s*)$")


def fact_types(fact: Fact) -> int:
    """The answer types the fact holds (its title, description and body)."""
    from .fields import meaning_text

    text = meaning_text(fact)
    found = text_types(text)
    # the title is a line of its own: its capitals name nothing
    body = text.split("\n", 1)[1] if "\n" in text else text
    if _names(body):
        found |= NAME
    return found


def topic_words(labels: list[str]) -> list[str]:
    """The words of a turn (its query words' labels) that say what it is *about*: without
    the answer values it names itself (a weekday, a month, a number) — "what time does the
    pharmacy close on Sundays?" is about a pharmacy, and its "Sundays" would otherwise draw
    it to any fact that holds a weekday."""
    return [w for w in labels if w.lower() not in _TIME_WORDS and not _VALUE.fullmatch(w.lower())]


_VALUE = re.compile(r"[\d.:,]+(?:am|pm|h|s|ms|k|kb|mb|gb)?")


def type_names(types: int) -> str:
    """``person/place``-style names of a type set."""
    return "/".join(name for bit, name in TYPE_NAMES.items() if types & bit)
