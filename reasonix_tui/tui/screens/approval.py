"""The approval dialog: one agent proposal, in full, with ``y`` / ``n`` / ``e``.

The modal only returns a :class:`~reasonix_tui.tui.proposals.Decision`; applying it is
the queue's job (house style §3.5). ``dismiss`` is called plainly (Textual #6600).
"""

from __future__ import annotations

from typing import ClassVar

from rich.console import Group
from rich.markdown import Markdown as RichMarkdown
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from ...core.gotime import Timestamp, parse_rfc3339
from ..proposals import Decision, ProposalView
from ..state import relative_time

__all__ = ["ApprovalScreen", "render_proposal"]


def _diff_text(diff: str) -> Text:
    out = Text()
    for line in diff.splitlines():
        style = "bold" if line.startswith(("+++", "---")) else "cyan" if line.startswith("@@") else "green" if line.startswith("+") else "red" if line.startswith("-") else ""
        out.append(line + "\n", style=style)
    return out


def render_proposal(view: ProposalView, now: Timestamp | None = None) -> Group:
    """The body of the dialog (``now`` adds "3m ago" to the proposal time)."""
    parts: list[object] = []
    head = Text()
    verb = {"create": "create a new fact", "update": "update an existing fact", "forget": "forget a fact"}[view.kind]
    head.append(f"{view.requester or 'The agent'} wants to {verb} ", style="bold")
    head.append(f"(tool: {view.tool}).\n")
    if view.created_at:
        created = parse_rfc3339(view.created_at)
        ago = ""
        if created is not None and now is not None:
            rel = relative_time(created, now)
            ago = " (just now)" if rel == "now" else f" ({rel} ago)" if created <= now else ""
        head.append(f"proposed {view.created_at}{ago}\n", style="dim")
    parts.append(head)
    if view.conflict:
        parts.append(Text(f"⚠ CONFLICT: {view.conflict}. Approving will not apply it; deny it or ask the agent again.\n", style="bold red"))
    if view.sensitive:
        parts.append(Text("⚠ SENSITIVE CONTENT: " + "; ".join(view.sensitive) + "\n", style="bold red"))
    meta = Text()
    if view.kind == "forget":
        fact = view.current
        meta.append("fact        ", style="bold")
        meta.append((fact.ref if fact else view.name) + "\n")
        if fact is not None:
            meta.append(f"title       {fact.display_title}\n")
            meta.append(f"type        {fact.type}   scope {fact.scope}   activation {fact.resolved_activation}   revision {fact.revision}\n")
            meta.append(f"description {fact.description}\n")
    else:
        meta.append("name        ", style="bold")
        meta.append(f"{view.name}\n")
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
        if view.subject_key:
            meta.append("subject     ", style="bold")
            meta.append(view.subject_key)
            if view.subject_holder is not None:
                h = view.subject_holder
                meta.append(f"   held by {h.ref} (id {h.id}, revision {h.revision}): the store will refuse a second holder\n", style="yellow")
            elif view.current is not None and view.current.subject_key == view.subject_key:
                meta.append(f"   held by the fact being updated ({view.current.ref})\n", style="dim")
            else:
                meta.append("   (no current holder)\n", style="dim")
    parts.append(meta)
    if view.reasons:
        reasons = Text("Why you are asked: ", style="bold")
        reasons.append("; ".join(view.reasons) + "\n", style="italic")
        parts.append(reasons)
    if view.kind == "update" and view.diff:
        parts.append(Text("Diff against the current revision", style="bold underline"))
        parts.append(_diff_text(view.diff))
    elif view.kind == "forget" and view.current is not None:
        parts.append(Text("Body of the fact to forget (it moves to the archive)", style="bold underline"))
        parts.append(RichMarkdown(view.current.body or "(empty)"))
    else:
        parts.append(Text("Body", style="bold underline"))
        parts.append(RichMarkdown(view.body or "(empty)"))
    return Group(*parts)  # type: ignore[arg-type]


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
        & #approval-scroll { height: 1fr; }
        & #approval-buttons { height: auto; align-horizontal: right; margin-top: 1; }
        & #approval-buttons Button { margin-left: 1; }
        &.-conflict > #approval-dialog { border: thick $error; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "decide('approve')", "Approve", id="approval-approve"),
        Binding("n", "decide('deny')", "Deny", id="approval-deny"),
        Binding("e", "decide('edit')", "Edit, then approve", id="approval-edit"),
        Binding("l,escape", "decide('later')", "Later", id="approval-later"),
    ]

    def __init__(self, view: ProposalView, position: int = 1, total: int = 1) -> None:
        super().__init__(classes="-conflict" if view.conflict else None)
        self.view = view
        """The proposal shown."""
        self.position = position
        """Its place in the queue (1-based)."""
        self.total = total
        """How many proposals are pending."""

    def compose(self) -> ComposeResult:
        """Title, queue count, the proposal, buttons."""
        with Vertical(id="approval-dialog"):
            with Horizontal(id="approval-head"):
                yield Label(self._title(), id="approval-title")
                yield Label(self._count_text(), id="approval-count")
            with VerticalScroll(id="approval-scroll"):
                yield Static(render_proposal(self.view, self.app.clock()), id="approval-body")  # type: ignore[attr-defined]
            with Horizontal(id="approval-buttons"):
                yield Button("Later (l)", id="approval-later-button")
                yield Button("Deny (n)", id="approval-deny-button", variant="error")
                yield Button("Edit, then approve (e)", id="approval-edit-button", disabled=self.view.tool == "forget")
                yield Button("Approve (y)", id="approval-approve-button", variant="success", disabled=bool(self.view.conflict))

    def _title(self) -> str:
        what = {"create": "Remember?", "update": "Update memory?", "forget": "Forget?"}[self.view.kind]
        return f"⚑ Agent proposal — {what}"

    def _count_text(self) -> str:
        more = self.total - 1
        return f"{self.position} of {self.total} pending" + (f" · {more} more queued" if more > 0 else "")

    def update_view(self, view: ProposalView) -> None:
        """Show a fresh view of the same proposal (the store changed while it was open):
        the diff, holder and conflict follow, the scroll position stays."""
        if view.id != self.view.id or view == self.view:
            return
        had_conflict = bool(self.view.conflict)
        self.view = view
        self.set_class(bool(view.conflict), "-conflict")
        self.query_one("#approval-title", Label).update(self._title())
        self.query_one("#approval-body", Static).update(render_proposal(view, self.app.clock()))  # type: ignore[attr-defined]
        approve = self.query_one("#approval-approve-button", Button)
        approve.disabled = bool(view.conflict)
        if view.conflict and not had_conflict and (self.focused is approve or self.focused is None):
            self.query_one("#approval-deny-button", Button).focus()
        self.refresh_bindings()

    def set_total(self, total: int) -> None:
        """Update the queue count while the dialog is open."""
        self.total = max(total, 1)
        self.query_one("#approval-count", Label).update(self._count_text())

    def on_mount(self) -> None:
        """Focus the default choice (deny on a conflict, approve otherwise)."""
        default = "#approval-deny-button" if self.view.conflict else "#approval-approve-button"
        self.query_one(default, Button).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """No approve on a conflict; no edit for a forget."""
        if action == "decide" and parameters:
            if parameters[0] == "approve" and self.view.conflict:
                return None
            if parameters[0] == "edit" and self.view.tool == "forget":
                return None
        return True

    def action_decide(self, action: str) -> None:
        """Close with the decision."""
        self.dismiss(Decision(action))

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        action = (event.button.id or "").removeprefix("approval-").removesuffix("-button")
        if action in ("approve", "deny", "edit", "later"):
            self.dismiss(Decision(action))
