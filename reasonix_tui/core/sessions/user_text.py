"""What a user message's text really is: Reasonix's rules for the blocks the host wraps around
a prompt (transient context, delivery runtime, memory recall, steering) and for user turns
the host wrote itself.
"""

from __future__ import annotations

import json
import re

from ..compat.gostr import trim_space
from .messages import Message

__all__ = [
    "strip_transient_user_blocks",
    "user_preview_text",
    "user_message_text",
    "is_synthetic_user_text",
    "is_host_generated_user_message",
    "is_user_authored_turn_message",
    "is_pinned_context_revision",
    "steer_text",
]


_WS4 = " \t\r\n"
"""ASCII white space as Go's ``strings.Trim*`` with ``" \\t\\r\\n"`` sees it."""

TRANSIENT_USER_BLOCK_TAGS = (
    "response-language",
    "reasoning-language",
    "memory-update",
    "background-jobs",
    "active-goal",
    "autoresearch-runtime",
    "hook-context",
    "capability-route",
    "interrupted-turn-recovery",
    "execution-policy",
)


_GO_S = r"[\t\n\f\r ]"  # RE2 \s


_ALT = "|".join(re.escape(t) for t in TRANSIENT_USER_BLOCK_TAGS)


_RE_TRANSIENT = re.compile(rf"^{_GO_S}*<(?:{_ALT})(?:{_GO_S}+[^>]*)?>.*?</(?:{_ALT})>{_GO_S}*\n?", re.S)


_RE_TRAILING_EXEC_POLICY = re.compile(rf"\n*<execution-policy(?:{_GO_S}+[^>]*)?>.*?</execution-policy>{_GO_S}*\Z", re.S)


_RE_MEMORY_COMPILER = re.compile(
    r"<memory-compiler-execution>" + _GO_S + r"*(.*?)" + _GO_S + r"*</memory-compiler-execution>", re.S
)


_MEMORY_COMPILER_OPEN = "<memory-compiler-execution>"


DELIVERY_RUNTIME_MARKER = """<delivery-runtime>
This session is in delivery-first mode. Before any state-changing tool call,
establish concrete, verifiable acceptance criteria with todo_write. After the
change, inspect the result, run relevant verification, and sign off each step
with complete_step citing the successful verification command. The host enforces
these gates and will reject mutation or finalization when evidence is missing.
</delivery-runtime>"""


MID_TURN_STEER_PREFIX = (
    "[Mid-turn steer queued by the user. Do not treat this as a new task; use it only as additional "
    "guidance for the current task after completing the current step.]"
)


HOST_NOTICE_PREFIX = (
    "[Mid-turn notice from the host runtime; the user did not send this. Do not treat it as a new task or "
    "as a message to answer; use it only as additional guidance for the current task after completing the "
    "current step.]"
)


EXECUTOR_HANDOFF_MARKER = "Reasonix executor handoff"


_HOST_RECOVERY_TOOL_FAILED = "A tool failed. Use read-only diagnosis as needed"


_HOST_RECOVERY_TRANSIENT = "The tool timed out or hit a transient execution limit."


LEGACY_SYNTHETIC_USER_PREFIXES = (
    "<reasoning-language>",
    "Plan approved — plan mode is off",
    "Host final-answer readiness check failed",
    "This turn ended with work still outstanding:",
    "The current task list still has an in-progress item.",
    "You are already in the executor phase",
    "The previous assistant response was interrupted while a tool call",
    "The previous assistant response was interrupted during streaming",
    "The previous assistant response was interrupted before visible",
    "The previous assistant response finished without any visible answer",
    "<compaction-summary>",
    "Summary of the later conversation (compacted from here on):",
    "Summary of earlier conversation (compacted up to here):",
    "Continue pursuing the active goal",
    "The agent signaled goal completion and all tasks are marked done.",
    "Goal signaled complete but issues remain:",
    "No tool calls in recent turns.",
    _HOST_RECOVERY_TOOL_FAILED,
    _HOST_RECOVERY_TRANSIENT,
    "The host could not confirm this turn is complete:",
    "This task has reached its ",
    "Your tool-call round limit (",
    "The following tools are unavailable in the current workflow phase:",
    "Auto recovery has reached its limit for this turn.",
    "Host progress check:",
    "Host progress redirect:",
)


def _memory_compiler_source_event(body: str) -> str:
    try:
        contract = json.loads(trim_space(body))
    except ValueError:
        return ""
    if not isinstance(contract, dict):
        return ""
    planner = contract.get("planner_ir")
    if isinstance(planner, dict) and isinstance(planner.get("source_event"), str):
        s = trim_space(planner["source_event"])
        if s:
            return s
    se = contract.get("source_event")
    return trim_space(se) if isinstance(se, str) else ""


def _unwrap_memory_compiler(content: str) -> str:
    for _ in range(24):
        if _MEMORY_COMPILER_OPEN not in content:
            return content
        nxt = _RE_MEMORY_COMPILER.sub(lambda m: _memory_compiler_source_event(m.group(1)), content)
        if nxt == content:
            break
        content = nxt
    idx = content.find(_MEMORY_COMPILER_OPEN)
    if idx >= 0:
        content = content[:idx].rstrip(_WS4)
    return content


def _strip_trailing_delivery_runtime(s: str) -> str:
    trimmed = s.rstrip(_WS4)
    if trimmed.endswith(DELIVERY_RUNTIME_MARKER):
        return trimmed[: -len(DELIVERY_RUNTIME_MARKER)].rstrip(_WS4)
    return s


def _strip_trailing_memory_recall(s: str) -> str:
    trimmed = s.rstrip(_WS4)
    if not trimmed.endswith("</memory-recall>"):
        return s
    idx = trimmed.rfind("<memory-recall>")
    if idx >= 0:
        return trimmed[:idx].rstrip(_WS4)
    return s


def strip_transient_user_blocks(content: str) -> str:
    """Reasonix ``StripTransientUserBlocks``: drop host-injected blocks from a user turn."""
    s = _unwrap_memory_compiler(content)
    while True:
        nxt = _RE_TRANSIENT.sub("", s, count=1)
        if nxt == s:
            break
        s = nxt
    s = _strip_trailing_delivery_runtime(s)
    s = _RE_TRAILING_EXEC_POLICY.sub("", s)
    s = _strip_trailing_memory_recall(s)
    return s.lstrip(_WS4)


def _handoff_task(s: str) -> str:
    trimmed = trim_space(s)
    if not trimmed.startswith("# " + EXECUTOR_HANDOFF_MARKER):
        return s
    header = "Original task:\n"
    i = trimmed.find(header)
    if i < 0:
        return s
    rest = trimmed[i + len(header) :]
    j = rest.find("\n\nPlanner output:")
    if j >= 0:
        rest = rest[:j]
    task = trim_space(rest)
    return task if task else s


def user_preview_text(content: str) -> str:
    """Reasonix ``UserPreviewText``: the user-authored part of a persisted user message."""
    s = strip_transient_user_blocks(content)
    s = _handoff_task(s)
    s = strip_transient_user_blocks(s)
    return trim_space(s)


def user_message_text(msg: Message) -> str:
    """Reasonix ``UserMessageText``: ``raw_content`` when set, else the stripped content."""
    if msg.raw_content:
        return trim_space(msg.raw_content)
    return user_preview_text(msg.content)


def _trim_leading_steer_wrapper(content: str) -> tuple[str, bool]:
    s = content.lstrip(_WS4)
    for tag in ("response-language", "reasoning-language"):
        open_tag = f"<{tag}>"
        if not s.startswith(open_tag):
            continue
        close = f"</{tag}>"
        j = s.find(close)
        if j < 0:
            continue
        return s[j + len(close) :].lstrip(_WS4), True
    return "", False


def _steer_kind(content: str) -> tuple[str, bool, bool]:
    s = content
    while True:
        for i, prefix in enumerate((MID_TURN_STEER_PREFIX, HOST_NOTICE_PREFIX)):
            if s.startswith(prefix):
                after = s[len(prefix) :]
                if after.startswith("\n"):
                    after = after[1:]
                suffix = "\n\n" + DELIVERY_RUNTIME_MARKER
                if after.endswith(suffix):
                    after = after[: -len(suffix)]
                return after, i == 1, True
        nxt, ok = _trim_leading_steer_wrapper(s)
        if not ok:
            return "", False, False
        s = nxt


def steer_text(content: str) -> tuple[str, bool]:
    """Reasonix ``SteerText``: the user text of a mid-turn steer, and whether it is one."""
    text, _, ok = _steer_kind(content)
    return text, ok


def _is_host_recovery_guidance(text: str) -> bool:
    trimmed = trim_space(text)
    if not trimmed:
        return False
    if trimmed.startswith("↪ "):
        trimmed = trim_space(trimmed[len("↪ ") :])
    return trimmed.startswith((_HOST_RECOVERY_TOOL_FAILED, _HOST_RECOVERY_TRANSIENT))


def is_synthetic_user_text(content: str) -> bool:
    """Reasonix ``IsSyntheticUserText``: legacy recognition of host-written user turns."""
    trimmed = trim_space(strip_transient_user_blocks(content))
    if _is_host_recovery_guidance(trimmed):
        return True
    steer, host_notice, is_steer = _steer_kind(content)
    if is_steer:
        if host_notice:
            return True
        steer = trim_space(steer)
        if _is_host_recovery_guidance(steer):
            return True
    for prefix in LEGACY_SYNTHETIC_USER_PREFIXES:
        if trimmed.startswith(prefix) or (is_steer and steer.startswith(prefix)):
            return True
    return False


def is_host_generated_user_message(msg: Message) -> bool:
    """Explicit ``origin`` decides; legacy messages without one fall back to the text."""
    if msg.role != "user":
        return False
    if msg.origin == "host":
        return True
    if msg.origin == "user":
        return False
    return is_synthetic_user_text(msg.content)


def is_user_authored_turn_message(msg: Message) -> bool:
    """Reasonix ``IsUserAuthoredTurnMessage``: a real, visible user turn start."""
    if msg.role != "user" or is_host_generated_user_message(msg):
        return False
    if not trim_space(strip_transient_user_blocks(user_message_text(msg))):
        return False
    _, is_steer = steer_text(msg.content)
    return not is_steer


def is_pinned_context_revision(msg: Message) -> bool:
    """Host-authored standing-context updates, excluded from history surfaces."""
    return (
        msg.role == "user" and msg.origin == "host" and trim_space(msg.content).startswith("<pinned_context_revision")
    )
