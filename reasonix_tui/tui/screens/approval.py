"""The approval dialog: one agent proposal, in full, with ``y`` / ``n`` / ``e``.

The modal only returns a :class:`~reasonix_tui.tui.model.proposals.Decision` carrying the
digest of the content it showed; applying it is the app's job, through the one write
worker (house style §3.5). ``dismiss`` is called plainly (Textual #6600).

Key guard: a dialog that pops up while the person is typing must not take their next
letter as a decision. For :attr:`ApprovalScreen.GUARD_SECONDS` after it appears (and
after its content changes) decision keys are ignored, and every ignored key restarts
that pause, so a burst of typing never decides. A dialog that appeared while a text
input had focus also waits until the person has seen it: a navigation key (tab, an
arrow, page up/down) or a click. The buttons work by mouse once the pause is over.
Escape ("later": nothing is decided) always works.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import ClassVar

from rich.console import Group
from rich.markdown import Markdown as RichMarkdown
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from ...core.agent.proposals import WaitInfo
from ...core.compat.gotime import Timestamp, parse_rfc3339
from ..model.proposals import SHOWN_CHARS, Decision, ProposalView
from ..model.rows import ago, human_time, relative_time

__all__ = ["ApprovalScreen", "render_proposal", "status_text", "agent_text"]

_NAVIGATION_KEYS = frozenset({"tab", "shift+tab", "up", "down", "pageup", "pagedown", "home", "end"})
"""Keys that show the person has seen the dialog (they move, they do not decide)."""

_MARKDOWN_CHARS = 6_000
"""Bodies longer than this are drawn as plain text (Markdown layout of a big body is slow)."""


def _diff_text(diff: str) -> Text:
    out = Text()
    for line in diff.splitlines():
        style = (
            "bold"
            if line.startswith(("+++", "---"))
            else "cyan"
            if line.startswith("@@")
            else "green"
            if line.startswith("+")
            else "red"
            if line.startswith("-")
            else ""
        )
        out.append(line + "\n", style=style)
    return out


def _body(text: str) -> object:
    if len(text) > _MARKDOWN_CHARS:
        return Text(text)
    return RichMarkdown(text or "(empty)")


def agent_text(waiting: WaitInfo, now: Timestamp) -> Text:
    """Whether the agent still waits for this answer, in one line."""
    info = waiting.at(now)
    out = Text()
    if info.state == "waiting":
        since = relative_time(info.since, now) if info.since is not None else ""
        left = max((info.until.ns - now.ns) // 1_000_000_000, 0) if info.until is not None else None
        out.append("⏳ The agent is waiting for your answer", style="bold")
        parts = [
            f"for {_seconds(info.since, now)}" if since else "",
            f"it gives up in {left} s" if left is not None else "",
        ]
        out.append(f" ({'; '.join(p for p in parts if p)}).")
    elif info.state == "timed-out":
        when = ago(info.until, now) if info.until is not None else "earlier"
        out.append("The agent stopped waiting ", style="yellow")
        out.append(f"{when} (it timed out); the proposal stays queued and your answer reaches it when it checks again.")
    elif info.state == "exited":
        out.append("The agent's process has exited without an answer; ", style="yellow")
        out.append("the proposal stays queued and your answer reaches it when it checks again.")
    else:
        out.append(
            "The agent is not waiting (the proposal was left queued); it sees your answer when it checks.", style="dim"
        )
    return out


def _seconds(since: Timestamp | None, now: Timestamp) -> str:
    if since is None:
        return ""
    secs = max((now.ns - since.ns) // 1_000_000_000, 0)
    return f"{secs} s" if secs < 120 else f"{secs // 60} min"


def status_text(view: ProposalView, now: Timestamp, zone: str = "local") -> Text:
    """The lines above the proposal: changed banner, the agent's side, when it was proposed."""
    out = Text()
    if view.changed:
        out.append("⚠ CHANGED since you opened it: ", style="bold reverse red")
        out.append(
            " the proposal file was rewritten; this is the new content. Read it again before you decide.\n",
            style="bold red",
        )
    out.append_text(agent_text(view.waiting, now))
    created = parse_rfc3339(view.created_at) if view.created_at else None
    if created is not None:
        out.append(f"\nproposed {human_time(created, zone)} ({ago(created, now)})", style="dim")
    return out


def render_proposal(view: ProposalView, *, full_diff: bool = False) -> Group:
    """The body of the dialog: who asks what, the fields, reasons, the diff or the body."""
    parts: list[object] = []
    head = Text()
    verb = {"create": "create a new fact", "update": "update an existing fact", "forget": "forget a fact"}[view.kind]
    head.append(f"{view.requester or 'The agent'} wants to {verb} ", style="bold")
    head.append(f"(tool: {view.tool}).\n")
    parts.append(head)
    parts.extend(_warnings(view))
    parts.append(_forget_fields(view) if view.kind == "forget" else _remember_fields(view))
    if view.reasons:
        reasons = Text("Why you are asked: ", style="bold")
        reasons.append("; ".join(view.reasons) + "\n", style="italic")
        parts.append(reasons)
    parts.extend(_content(view, full_diff))
    return Group(*parts)  # type: ignore[arg-type]  # parts are Rich renderables


def _warnings(view: ProposalView) -> list[Text]:
    """The red and yellow lines: a conflict, sensitive content, a body too large to draw."""
    out: list[Text] = []
    if view.conflict:
        out.append(
            Text(
                f"⚠ CONFLICT: {view.conflict}. Approving will not apply it; deny it or ask the agent again.\n",
                style="bold red",
            )
        )
    if view.sensitive:
        out.append(Text("⚠ SENSITIVE CONTENT: " + "; ".join(view.sensitive) + "\n", style="bold red"))
    if view.cut:
        out.append(
            Text(
                f"⚠ LARGE: the body is {view.body_chars:,} characters; shown here: "
                + "; ".join(view.cut)
                + ". Approving stores all of it.\n",
                style="bold yellow",
            )
        )
    return out


def _forget_fields(view: ProposalView) -> Text:
    """The fact a forget would archive."""
    meta = Text()
    fact = view.current
    meta.append("fact        ", style="bold")
    meta.append((fact.ref if fact else view.name) + "\n")
    if fact is not None:
        meta.append(f"title       {fact.display_title}\n")
        meta.append(
            f"type        {fact.type}   scope {fact.scope}   activation {fact.resolved_activation}   revision {fact.revision}\n"
        )
        meta.append(f"description {fact.description}\n")
    return meta


def _remember_fields(view: ProposalView) -> Text:
    """The fact as it would be written: name, title, type, scope, activation, description,
    the fields an update keeps, the subject and its holder."""
    planned = view.planned
    meta = Text()
    meta.append("name        ", style="bold")
    meta.append(f"{planned.name if planned is not None and planned.name else view.name}\n")
    meta.append("title       ", style="bold")
    meta.append(f"{view.title or '(none)'}\n")
    meta.append("type        ", style="bold")
    meta.append(f"{view.type}   ")
    meta.append("scope ", style="bold")
    meta.append(f"{view.scope}   ")
    meta.append("activation ", style="bold")
    resolved = view.activation_resolved or view.activation
    if resolved:
        meta.append(resolved, style="bold yellow" if resolved == "pinned" else "")
        if view.activation_note:
            meta.append(f" ({view.activation_note})", style="yellow" if resolved == "pinned" else "dim")
        meta.append("\n")
    else:
        meta.append("(default)\n")
    meta.append("description ", style="bold")
    meta.append(f"{view.description}\n")
    if planned is not None and view.kind == "update":
        kept = [
            f"{label} {value}"
            for label, value in (
                ("keywords", planned.keywords),
                ("volatility", planned.volatility),
                ("expires", planned.expires_at.rfc3339() if planned.expires_at else ""),
            )
            if value
        ]
        if kept:
            meta.append("also kept   ", style="bold")
            meta.append("   ".join(kept) + "\n", style="dim")
    if view.subject_key:
        _append_subject(meta, view)
    return meta


def _append_subject(meta: Text, view: ProposalView) -> None:
    """The subject key and who holds it now."""
    meta.append("subject     ", style="bold")
    meta.append(view.subject_key)
    if view.subject_holder is not None:
        h = view.subject_holder
        meta.append(
            f"   held by {h.ref} (id {h.id}, revision {h.revision}): the store will refuse a second holder\n",
            style="yellow",
        )
    elif view.current is not None and view.current.subject_key == view.subject_key:
        meta.append(f"   held by the fact being updated ({view.current.ref})\n", style="dim")
    else:
        meta.append("   (no current holder)\n", style="dim")


def _content(view: ProposalView, full_diff: bool) -> list[object]:
    """The diff of an update, the body of the fact a forget archives, or the new body."""
    if view.kind == "update" and (view.diff or view.diff_full):
        title = "Diff of the file against the current revision"
        title += (
            " (every line; f hides revision and updated_at)"
            if full_diff
            else " (f shows the revision and updated_at lines too)"
        )
        return [Text(title, style="bold underline"), _diff_text(view.diff_full if full_diff else view.diff)]
    if view.kind == "forget" and view.current is not None:
        return [
            Text("Body of the fact to forget (it moves to the archive)", style="bold underline"),
            _body(view.current.body[:SHOWN_CHARS]),
        ]
    return [Text("Body", style="bold underline"), _body(view.body)]


class ApprovalScreen(ModalScreen[Decision]):
    """A proposal from the agent, waiting for the person."""

    DEFAULT_CSS = """
    ApprovalScreen {
        align: center middle;
        & > #approval-dialog {
            width: 100; max-width: 96%; height: 92%;
            border: thick $warning; background: $surface; padding: 0 1;
        }
        & #approval-title { text-style: bold; color: $warning; width: 1fr; }
        & #approval-count { width: auto; color: $text; background: $warning 40%; padding: 0 1; }
        & #approval-head { height: 1; }
        & #approval-status { height: auto; max-height: 4; }
        & #approval-guard { height: auto; display: none; color: $text; background: $accent 30%; padding: 0 1; }
        & #approval-guard.-show { display: block; }
        & #approval-scroll { height: 1fr; }
        & #approval-buttons { height: auto; align-horizontal: right; }
        & #approval-buttons Button { margin-left: 1; min-width: 12; }
        &.-conflict > #approval-dialog { border: thick $error; }
        &.-changed > #approval-dialog { border: thick $error; }
        & ToastRack { dock: top; align: right top; margin-bottom: 0; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "decide('approve')", "Approve", id="approval-approve"),
        Binding("n", "decide('deny')", "Deny", id="approval-deny"),
        Binding("e", "decide('edit')", "Edit, then approve", id="approval-edit"),
        Binding("l", "decide('later')", "Later", id="approval-later"),
        Binding("escape", "decide('later')", "Later", id="approval-later-escape", show=False),
        Binding("f", "toggle_full_diff", "Full diff", id="approval-full-diff"),
    ]

    GUARD_SECONDS: ClassVar[float] = 0.4
    """Decision keys are ignored this long after the dialog appears or its content changes
    (and after each ignored key)."""

    monotonic: ClassVar[Callable[[], float]] = time.monotonic
    """The guard's clock (tests replace it)."""

    def __init__(
        self, view: ProposalView, position: int = 1, total: int = 1, *, over_text: bool = False, zone: str = "local"
    ) -> None:
        super().__init__(
            classes=" ".join(c for c in ("-conflict" if view.conflict else "", "-changed" if view.changed else "") if c)
            or None
        )
        self.view = view
        """The proposal shown."""
        self.position = position
        """Its place in the queue (1-based)."""
        self.total = total
        """How many proposals are pending."""
        self.zone = zone
        """``local`` or ``utc`` for the times shown."""
        self.full_diff = False
        """The diff shows every line (``f``)."""
        self.needs_ack = over_text
        """It appeared while a text input had focus: keys wait until the person has seen it."""
        self._appeared = type(self).monotonic()
        self._armed_at = self._appeared + self.GUARD_SECONDS

    def compose(self) -> ComposeResult:
        """Title, queue count, the agent's side, the proposal, buttons."""
        with Vertical(id="approval-dialog"):
            with Horizontal(id="approval-head"):
                yield Label(self._title(), id="approval-title")
                yield Label(self._count_text(), id="approval-count")
            yield Static(self._status(), id="approval-status")
            yield Static("", id="approval-guard")
            with VerticalScroll(id="approval-scroll"):
                yield Static(render_proposal(self.view), id="approval-body")
            with Horizontal(id="approval-buttons"):
                yield Button("Later (l)", id="approval-later-button")
                yield Button("Deny (n)", id="approval-deny-button", variant="error")
                yield Button("Edit (e)", id="approval-edit-button", disabled=self.view.tool == "forget")
                yield Button(
                    "Approve (y)", id="approval-approve-button", variant="success", disabled=bool(self.view.conflict)
                )

    def _now(self) -> Timestamp:
        clock = getattr(self.app, "clock", None)
        return clock() if callable(clock) else Timestamp.now()

    def _status(self) -> Text:
        return status_text(self.view, self._now(), self.zone)

    def _title(self) -> str:
        what = {"create": "Remember?", "update": "Update memory?", "forget": "Forget?"}[self.view.kind]
        return f"⚑ Agent proposal — {what}"

    def _count_text(self) -> str:
        more = self.total - 1
        return f"{self.position} of {self.total} pending" + (f" · {more} more queued" if more > 0 else "")

    def on_mount(self) -> None:
        """Focus the proposal text (never a button: an Enter typed elsewhere must not
        press one), say so if keys wait, and keep the agent's line current."""
        self._appeared = type(self).monotonic()
        self._armed_at = self._appeared + self.GUARD_SECONDS
        self.query_one("#approval-scroll", VerticalScroll).focus()
        if self.needs_ack:
            self._show_guard()
        self.set_interval(1.0, self._tick, name="approval-tick")

    def _tick(self) -> None:
        self.query_one("#approval-status", Static).update(self._status())
        if not self.needs_ack and not self.paused:
            self.query_one("#approval-guard", Static).remove_class("-show")

    # ----------------------------------------------------------------- the guard

    @property
    def paused(self) -> bool:
        """Decision keys are ignored right now."""
        return self.needs_ack or type(self).monotonic() < self._armed_at

    def _show_guard(self) -> None:
        guard = self.query_one("#approval-guard", Static)
        if self.needs_ack:
            guard.update(
                "⏸ You were typing when this opened: keys are paused so nothing you typed decides it. "
                "Press tab or an arrow key (or click) to use y / n / e."
            )
        else:
            guard.update("⏸ Keys are paused for a moment so typing does not decide this.")
        guard.add_class("-show")
        self.set_timer(self.GUARD_SECONDS + 0.05, self._tick)

    def _decision_key(self, event: events.Key) -> bool:
        if event.key == "escape":
            return False
        if event.is_printable or event.key in ("enter", "space"):
            return True
        active = self.active_bindings.get(event.key)
        return active is not None and active.binding.action.startswith("decide")

    def on_key(self, event: events.Key) -> None:
        """Swallow decision keys while paused; a navigation key shows the dialog was seen."""
        if event.key in _NAVIGATION_KEYS:
            if self.needs_ack:
                self.needs_ack = False
                self._armed_at = max(self._armed_at, type(self).monotonic() + self.GUARD_SECONDS)
                self._show_guard()
            return
        if self.paused and self._decision_key(event):
            event.stop()
            event.prevent_default()
            self._armed_at = max(self._armed_at, type(self).monotonic() + self.GUARD_SECONDS)
            self._show_guard()

    def on_mouse_down(self, event: events.MouseDown) -> None:
        """A click shows the dialog was seen."""
        self.needs_ack = False

    # ----------------------------------------------------------------- updates

    def update_view(self, view: ProposalView) -> None:
        """Show a fresh view of the same proposal (the store or the proposal file changed
        while it was open): diff, holder and conflict follow, the scroll position stays.
        New content pauses the keys again."""
        if view.id != self.view.id or view == self.view:
            return
        had_conflict = bool(self.view.conflict)
        new_content = view.digest != self.view.digest
        self.view = view
        self.set_class(bool(view.conflict), "-conflict")
        self.set_class(view.changed, "-changed")
        self.query_one("#approval-title", Label).update(self._title())
        self.query_one("#approval-status", Static).update(self._status())
        self.query_one("#approval-body", Static).update(render_proposal(view, full_diff=self.full_diff))
        approve = self.query_one("#approval-approve-button", Button)
        approve.disabled = bool(view.conflict)
        self.query_one("#approval-edit-button", Button).disabled = view.tool == "forget"
        if view.conflict and not had_conflict and self.focused is approve:
            self.query_one("#approval-scroll", VerticalScroll).focus()
        if new_content:
            self._armed_at = type(self).monotonic() + self.GUARD_SECONDS
            self._show_guard()
        self.refresh_bindings()

    def set_waiting(self, waiting: WaitInfo) -> None:
        """The agent's side changed (it started or stopped waiting)."""
        from dataclasses import replace

        if waiting != self.view.waiting:
            self.view = replace(self.view, waiting=waiting)
            for status in self.query("#approval-status").results(Static):  # none before compose
                status.update(self._status())

    def set_total(self, total: int, position: int | None = None) -> None:
        """Update the queue count while the dialog is open."""
        self.total = max(total, 1)
        if position is not None:
            self.position = position
        # Before the dialog is composed there is no label yet: compose draws these numbers.
        for label in self.query("#approval-count").results(Label):
            label.update(self._count_text())

    # ----------------------------------------------------------------- actions

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """No approve on a conflict; no edit for a forget; no full diff without a diff."""
        if action == "decide" and parameters:
            if parameters[0] == "approve" and self.view.conflict:
                return None
            if parameters[0] == "edit" and self.view.tool == "forget":
                return None
        if action == "toggle_full_diff" and self.view.kind != "update":
            return None
        return True

    def action_decide(self, action: str) -> None:
        """Close with the decision (bound to the digest of what is shown)."""
        if action != "later" and self.paused:
            return
        self.dismiss(Decision(action, self.view.digest))

    def action_toggle_full_diff(self) -> None:
        """Show or hide the ``revision`` / ``updated_at`` lines of the diff."""
        self.full_diff = not self.full_diff
        self.query_one("#approval-body", Static).update(render_proposal(self.view, full_diff=self.full_diff))

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        action = (event.button.id or "").removeprefix("approval-").removesuffix("-button")
        if action not in ("approve", "deny", "edit", "later"):
            return
        if action != "later" and (self.needs_ack or type(self).monotonic() < self._appeared + self.GUARD_SECONDS):
            return
        self.dismiss(Decision(action, self.view.digest))
