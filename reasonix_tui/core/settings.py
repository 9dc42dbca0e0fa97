"""User settings: ``<root>/reasonix-tui/settings.toml``, Reasonix's own ``config.toml`` and env.

Precedence, highest first: environment variables, ``<root>/reasonix-tui/settings.toml``,
the ``[memory]`` table of Reasonix's ``<root>/config.toml`` (so a budget configured for
Reasonix applies here too), then the defaults below.

Example ``settings.toml``::

    [memory]
    pinned_budget_chars = 1500   # set: a pin over it is refused; 0 turns the ceiling off
    recall_limit = 4
    recall_max_chars = 2400
    auto_confirm_project_remember = false   # true: the agent may also update project facts unasked

    [recall]
    mode = "enhanced"            # or "reasonix-exact" for identical behaviour

    [approvals]
    wait_seconds = 60

    [privacy]
    record_prompts = true        # false: recall traces and search misses keep no prompt text

    [suggestions]
    window_days = 30             # history looked at: days back from the newest session (0: all)
    limit = 12                   # memory candidates shown at once (dismissing one brings the next)
    [display]
    time_zone = "local"          # or "utc": how the Context Center shows times

    [keymap]                     # Context Center keys by binding id (F1 lists them)
    approval-approve = "Y"
    facts-forget = "x,delete"
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

__all__ = ["Settings", "load_settings", "RECALL_MODES", "TIME_ZONES"]

RECALL_MODES = ("enhanced", "reasonix-exact")
TIME_ZONES = ("local", "utc")


@dataclass(frozen=True, slots=True)
class Settings:
    """Effective settings."""

    pinned_budget_chars: int = 1500
    """The pinned-guidance budget the Context Center measures against; 0 means no ceiling."""
    pinned_budget_configured: bool = False
    """True when the budget came from a config file or the environment: only then is a pin refused."""
    recall_limit: int = 4
    """Automatic recall: most facts per turn."""
    recall_max_chars: int = 2400
    """Automatic recall: rune budget of the block."""
    recall_mode: str = "enhanced"
    """``enhanced`` (our improvements) or ``reasonix-exact`` (the spec's algorithm alone)."""
    approval_wait_seconds: float = 60.0
    """How long an agent-side write waits for a person's decision."""
    suggestions_window_days: int = 30
    """Suggestions look at sessions active within this many days of the newest one (0: all)."""
    suggestions_limit: int = 12
    """Memory candidates shown at once, after dismissed, accepted and covered ones are removed."""
    auto_confirm_project_remember: bool = False
    """Reasonix's switch (``[memory]`` in ``config.toml``): an agent's update of an existing,
    unpinned project fact lands without asking too (``AssessRememberSkip``), with undo."""
    record_prompts: bool = True
    """Keep the prompt (secrets redacted) in recall traces and the query in search misses;
    ``[privacy] record_prompts = false`` (or ``REASONIX_TUI_RECORD_PROMPTS=0``) keeps none."""
    headless: bool = False
    """Caller is a sub-agent or headless run: writes that need approval fail at once."""
    no_memory: bool = False
    """``REASONIX_EXPERIMENT_NO_MEMORY=1``: hide facts, pinned guidance and recall."""
    time_zone: str = "local"
    """How the Context Center shows times to people: ``local`` or ``utc``."""
    keymap: tuple[tuple[str, str], ...] = ()
    """``[keymap]``: Context Center binding id → keys (``"y"``, ``"ctrl+a,Y"``)."""
    source: str = "defaults"
    """Where the settings came from (for diagnostics)."""
    problems: tuple[str, ...] = ()
    """What was wrong in a settings file and ignored (one line each; the CLI prints them)."""

    @property
    def pinned_ceiling(self) -> int:
        """The rune ceiling a pin is refused over: the budget when configured, else 0 (off).

        Current Reasonix refuses a pin only when ``memory.pinned_budget_chars`` is set;
        unconfigured, the Context Center still measures guidance against the 1,500 default."""
        return self.pinned_budget_chars if self.pinned_budget_configured else 0

    def with_overrides(self, **changes: Any) -> Settings:
        """A copy with some fields changed."""
        return replace(self, **changes)


def _read_toml(path: Path, problems: list[str] | None = None, *, parse_problems: bool = True) -> dict[str, Any]:
    """A TOML file as a table; ``{}`` (and a problem line) when it cannot be used.

    Opened without blocking: a FIFO, socket or device at the settings path is reported
    and ignored instead of hanging every command and the hook."""
    from .store.safeio import NotRegularFile, read_regular

    try:
        data = read_regular(path, limit=1 << 20)
    except (FileNotFoundError, NotADirectoryError):
        return {}
    except OSError as exc:
        if problems is not None:
            why = (
                f"it is a {exc.kind}, not a regular file"
                if isinstance(exc, NotRegularFile)
                else (exc.strerror or str(exc))
            )
            problems.append(f"{path}: cannot be read ({why}); the whole file is ignored (defaults apply)")
        return {}
    import tomllib  # only when a settings file exists (a one-shot command's start)

    try:
        return tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        if problems is not None and parse_problems:
            problems.append(f"{path}: {exc}; the whole file is ignored (defaults apply)")
        return {}


def _bad(problems: list[str], path: Path, key: str, value: Any, want: str) -> None:
    problems.append(f"{path}: {key} = {value!r} is not {want}; ignored")


def _flag(table: dict[str, Any], section: str, key: str, path: Path, problems: list[str]) -> bool | None:
    """A ``true``/``false`` setting; ``None`` when absent or (reported) not a boolean."""
    if key not in table:
        return None
    value = table[key]
    if isinstance(value, bool):
        return value
    _bad(problems, path, f"{section}.{key}", value, "true or false")
    return None


def _int(value: Any, default: int) -> int:
    if isinstance(value, bool):
        return default
    if isinstance(value, int):
        return value
    try:
        return int(str(value).strip())
    except (TypeError, ValueError):
        return default


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in ("1", "true", "yes", "on")


def load_settings(root: Path, env: Mapping[str, str] | None = None) -> Settings:
    """Read the effective settings for a state root."""
    environ: Mapping[str, str] = os.environ if env is None else env
    s = Settings()
    sources: list[str] = []
    problems: list[str] = []
    reasonix_mem = _read_toml(root / "config.toml", problems, parse_problems=False).get("memory", {})
    if isinstance(reasonix_mem, dict) and reasonix_mem:
        s = _apply_reasonix_memory(s, reasonix_mem)
        sources.append("config.toml")
    own_path = root / "reasonix-tui" / "settings.toml"
    own = _read_toml(own_path, problems)
    if own:
        for apply in _OWN_TABLES:
            s = apply(s, own, own_path, problems)
        sources.append("settings.toml")
    s, budget_from_env = _apply_environment(s, environ)
    if budget_from_env:
        sources.append("env")
    return replace(s, source=", ".join(sources) or "defaults", problems=tuple(problems))


def _apply_reasonix_memory(s: Settings, mem: dict[str, Any]) -> Settings:
    """The ``[memory]`` table of Reasonix's ``config.toml`` (values it would ignore are ignored)."""
    budget = _int(mem.get("pinned_budget_chars"), 0)
    if budget > 0:
        s = replace(s, pinned_budget_chars=budget, pinned_budget_configured=True)
    limit = _int(mem.get("recall_limit"), 0)
    if limit > 0:
        s = replace(s, recall_limit=limit)
    max_chars = _int(mem.get("recall_max_chars"), 0)
    if max_chars > 0:
        s = replace(s, recall_max_chars=max_chars)
    if mem.get("auto_confirm_project_remember") is True:
        s = replace(s, auto_confirm_project_remember=True)
    return s


def _table(own: dict[str, Any], name: str) -> dict[str, Any]:
    """A table of ``settings.toml``; ``{}`` when absent or not a table."""
    value = own.get(name)
    return value if isinstance(value, dict) else {}


def _own_memory(s: Settings, own: dict[str, Any], path: Path, problems: list[str]) -> Settings:
    """``[memory]``: the pinned budget, recall limits, the auto-confirm switch."""
    mem = _table(own, "memory")
    if "pinned_budget_chars" in mem:
        if _int(mem["pinned_budget_chars"], -1) < 0:
            _bad(problems, path, "memory.pinned_budget_chars", mem["pinned_budget_chars"], "a whole number ≥ 0")
        else:
            s = replace(s, pinned_budget_chars=_int(mem["pinned_budget_chars"], 0), pinned_budget_configured=True)
    for key in ("recall_limit", "recall_max_chars"):
        if key in mem:
            value = _int(mem[key], 0)
            if value > 0:
                s = replace(s, recall_limit=value) if key == "recall_limit" else replace(s, recall_max_chars=value)
            elif _int(mem[key], -1) != 0:  # 0 means "the default", as in Reasonix
                _bad(problems, path, f"memory.{key}", mem[key], "a whole number ≥ 0")
    flag = _flag(mem, "memory", "auto_confirm_project_remember", path, problems)
    if flag is not None:
        s = replace(s, auto_confirm_project_remember=flag)
    return s


def _own_recall(s: Settings, own: dict[str, Any], path: Path, problems: list[str]) -> Settings:
    """``[recall] mode``."""
    recall = _table(own, "recall")
    if "mode" in recall:
        mode = str(recall["mode"]).strip()
        if mode in RECALL_MODES:
            s = replace(s, recall_mode=mode)
        else:
            _bad(problems, path, "recall.mode", recall["mode"], " or ".join(f'"{m}"' for m in RECALL_MODES))
    return s


def _own_approvals(s: Settings, own: dict[str, Any], path: Path, problems: list[str]) -> Settings:
    """``[approvals] wait_seconds``."""
    approvals = _table(own, "approvals")
    if "wait_seconds" in approvals:
        try:
            s = replace(s, approval_wait_seconds=max(float(approvals["wait_seconds"]), 0.0))
        except (TypeError, ValueError):
            _bad(problems, path, "approvals.wait_seconds", approvals["wait_seconds"], "a number of seconds")
    return s


def _own_privacy(s: Settings, own: dict[str, Any], path: Path, problems: list[str]) -> Settings:
    """``[privacy] record_prompts``."""
    flag = _flag(_table(own, "privacy"), "privacy", "record_prompts", path, problems)
    return s if flag is None else replace(s, record_prompts=flag)


def _own_suggestions(s: Settings, own: dict[str, Any], path: Path, problems: list[str]) -> Settings:
    """``[suggestions] window_days`` and ``limit``."""
    sugg = _table(own, "suggestions")
    for key, attr, minimum in (("window_days", "suggestions_window_days", 0), ("limit", "suggestions_limit", 1)):
        if key in sugg:
            value = _int(sugg[key], -1)
            if value >= minimum and not isinstance(sugg[key], bool):
                s = replace(s, **{attr: value})  # type: ignore[arg-type]  # attr is one of two int fields
            else:
                _bad(problems, path, f"suggestions.{key}", sugg[key], f"a whole number ≥ {minimum}")
    return s


def _own_display(s: Settings, own: dict[str, Any], path: Path, problems: list[str]) -> Settings:
    """``[display] time_zone``."""
    display = _table(own, "display")
    if "time_zone" in display:
        zone = str(display["time_zone"]).strip().lower()
        if zone in TIME_ZONES:
            s = replace(s, time_zone=zone)
        else:
            _bad(problems, path, "display.time_zone", display["time_zone"], '"local" or "utc"')
    return s


def _own_keymap(s: Settings, own: dict[str, Any], path: Path, problems: list[str]) -> Settings:
    """``[keymap]``: binding id = keys."""
    keymap = own.get("keymap", {})
    if isinstance(keymap, dict):
        pairs: list[tuple[str, str]] = []
        for binding_id, keys in keymap.items():
            if isinstance(keys, str) and keys.strip():
                pairs.append((str(binding_id), ",".join(k.strip() for k in keys.split(",") if k.strip())))
            else:
                _bad(problems, path, f"keymap.{binding_id}", keys, 'a key string such as "ctrl+a" or "y,Y"')
        s = replace(s, keymap=tuple(pairs))
    elif "keymap" in own:
        _bad(problems, path, "keymap", keymap, "a table of binding id = keys")
    return s


_OWN_TABLES = (_own_memory, _own_recall, _own_approvals, _own_privacy, _own_suggestions, _own_display, _own_keymap)
"""The tables of ``settings.toml``, read in this order (problems are reported in it)."""


def _apply_environment(s: Settings, environ: Mapping[str, str]) -> tuple[Settings, bool]:
    """Environment overrides; also whether the pinned budget came from there."""
    from_env = bool(environ.get("REASONIX_TUI_PINNED_BUDGET", "").strip())
    if from_env:
        s = replace(
            s,
            pinned_budget_chars=max(_int(environ["REASONIX_TUI_PINNED_BUDGET"], s.pinned_budget_chars), 0),
            pinned_budget_configured=True,
        )
    mode = environ.get("REASONIX_TUI_RECALL_MODE", "").strip()
    if mode in RECALL_MODES:
        s = replace(s, recall_mode=mode)
    record = environ.get("REASONIX_TUI_RECORD_PROMPTS", "").strip().lower()
    if record in ("0", "false", "no", "off"):
        s = replace(s, record_prompts=False)
    elif record in ("1", "true", "yes", "on"):
        s = replace(s, record_prompts=True)
    if _truthy(environ.get("REASONIX_TUI_HEADLESS")) or _truthy(environ.get("REASONIX_TUI_SUBAGENT")):
        s = replace(s, headless=True)
    if _truthy(environ.get("REASONIX_EXPERIMENT_NO_MEMORY")):
        s = replace(s, no_memory=True)
    return s, from_env
