"""Memory and skill suggestions: drafts a person reviews, never writes by themselves.

Where candidates come from (one module each):

* :mod:`.statements` — durable statements in what the person said: every user-authored
  turn of the workspace's sessions inside the window, scored by signals (general or
  future-facing wording, project rules, corrections of the assistant's previous step,
  environment facts, answer-style preferences) in English and Chinese, with questions,
  one-off scoping, idioms, hypotheticals, quoted and pasted material excluded
  (:mod:`.signals`);
* :mod:`.procedures` — command and tool-step sequences repeated across sessions, as skills;
* :mod:`.imports` — Claude Code auto-memory, other agents' instruction notes, and history
  searches that kept finding nothing ("memory wanted").

:mod:`.mining` lists the sessions (a time window over the workspace's Reasonix and
Claude Code history) and mines each transcript once per version; :mod:`.candidates`
merges what says the same thing, checks it against active facts and instructions
(covered: not shown; contradicting: shown as an update of the fact), ranks by score and
repetition, and writes titles, descriptions, names and bodies. :mod:`.api` lists (the
cap applies after dismissed, accepted and covered candidates are removed), dismisses
(a dismissal matches every occurrence, so it never comes back), restores and accepts
(through :meth:`Store.save`, or a ``SKILL.md`` created without overwriting).

State: ``<root>/reasonix-tui/suggestions.json`` (dismissed and accepted); the miner's
cache: ``<root>/reasonix-tui/cache/suggestions-*.marshal``.
"""

from __future__ import annotations

from .accept import (
    accept_suggestion,
    accepted_suggestion_name,
    ascii_slug,
    dismiss_suggestion,
    is_well_formed_slug,
    render_skill_file,
    restore_suggestion,
)
from .api import SKILL_LIMIT, find_suggestion, list_suggestions
from .model import (
    AcceptResult,
    Evidence,
    MemorySuggestion,
    SkillSuggestion,
    Suggestion,
    SuggestionEdits,
    SuggestionsView,
)
from .state import state_path

__all__ = [
    "SKILL_LIMIT",
    "AcceptResult",
    "Evidence",
    "MemorySuggestion",
    "SkillSuggestion",
    "Suggestion",
    "SuggestionEdits",
    "SuggestionsView",
    "accept_suggestion",
    "accepted_suggestion_name",
    "ascii_slug",
    "dismiss_suggestion",
    "find_suggestion",
    "is_well_formed_slug",
    "list_suggestions",
    "render_skill_file",
    "restore_suggestion",
    "state_path",
]
