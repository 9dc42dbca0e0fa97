"""Instructions pane: the resolved documents in precedence order with scope and label, the
import tree, diagnostics highlighted, the provider-visible block and a target-path chooser."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from rich.markup import escape
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import Input, Label, Static, Tree
from textual.widgets.tree import TreeNode

from ...core.instructions.documents import Diagnostic, Import, InstructionDoc, Resolution
from ..messages import EditFileRequested, QuickAddRequested, SidecarsReloaded
from .base import Pane

__all__ = ["InstructionsPane"]

_STATUS_STYLE = {"loaded": "green", "duplicate": "dim", "cycle": "red", "rejected": "red", "unreadable": "red"}


class InstructionsPane(Pane):
    """Which standing instructions apply, and where they come from."""

    FOCUS_SELECTOR = "#instructions-tree"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("t", "focus_target", "Target path", id="instructions-target"),
        Binding("b", "show_block", "Provider block", id="instructions-block"),
        Binding("number_sign", "quick_add", "Note", id="instructions-note", key_display="#"),
        Binding("E", "edit_document", "$EDITOR", id="instructions-edit", key_display="E"),
        Binding("escape", "leave_target", "Leave the target box", show=False, id="instructions-escape"),
    ]

    @dataclass
    class Resolved(Message, bubble=False):
        """A resolution finished (posted by the worker to the pane itself)."""

        resolution: Resolution | None
        block: str
        error: str

    def compose(self) -> ComposeResult:
        """Target chooser, tree and viewer."""
        with Horizontal(id="instructions-bar"):
            yield Label("target", id="instructions-target-label")
            yield Input(
                placeholder="a directory in the workspace (default: the workspace root)", id="instructions-target-input"
            )
        yield Static("", id="instructions-diagnostics")
        with Horizontal(id="instructions-main"):
            yield Tree("Instructions", id="instructions-tree")
            with VerticalScroll(id="instructions-view-scroll"):
                yield Static("", id="instructions-view")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.resolution: Resolution | None = None
        """The last resolution (``None`` before the first)."""
        self.block = ""
        """Its provider-visible block."""
        self.block_mode = False
        """The viewer shows the block instead of the selected document."""
        self.loaded_once = False
        """Resolved at least once."""

    def on_mount(self) -> None:
        """Subscribe; resolution happens when the pane is first shown."""
        tree = self.query_one("#instructions-tree", Tree)
        tree.show_root = False
        tree.guide_depth = 3

    def activate(self) -> None:
        """Resolve on first show."""
        if not self.loaded_once:
            self.load()
        super().activate()

    def on_sidecars(self, message: SidecarsReloaded) -> None:
        """Resolve again when a document changed."""
        if message.instructions and self.loaded_once:
            self.load()

    def load(self) -> None:
        """Resolve in a thread worker."""
        self.loaded_once = True
        target = self.query_one("#instructions-target-input", Input).value.strip() or None
        self._resolve_worker(target)

    @work(
        thread=True, exclusive=True, group="instructions-load", exit_on_error=False, description="resolve instructions"
    )
    def _resolve_worker(self, target: str | None) -> None:
        from ..reads import instruction_block, resolve_instructions

        try:
            if target and not target.startswith("/"):
                target = str(self.center.layout.workspace / target)
            resolution = resolve_instructions(self.center.layout, target)
            block = instruction_block(resolution)
            self.post_message(self.Resolved(resolution, block, ""))
        except Exception as exc:  # a bad target path: shown, never fatal
            self.post_message(self.Resolved(None, "", f"{type(exc).__name__}: {exc}"))

    @on(Resolved)
    def _resolved(self, message: Resolved) -> None:
        self._show(message.resolution, message.block, message.error)

    def _show(self, resolution: Resolution | None, block: str, error: str) -> None:
        self.resolution = resolution
        self.block = block
        tree = self.query_one("#instructions-tree", Tree)
        tree.clear()
        diag = self.query_one("#instructions-diagnostics", Static)
        if resolution is None:
            diag.update(Text(error, style="red"))
            self.query_one("#instructions-view", Static).update("")
            return
        diagnostics = tuple(resolution.diagnostics)
        if diagnostics:
            text = Text()
            for d in diagnostics:
                text.append(f"⚠ {d.code}", style="bold red")
                text.append(f"  {d.location}  {d.message}\n")
            diag.update(text)
        else:
            diag.update(Text(f"target {resolution.target} · workspace {resolution.root} · no diagnostics", style="dim"))
        docs = tuple(resolution.docs)
        if not docs:
            tree.root.add_leaf(
                "No instruction documents (REASONIX.md, AGENTS.md, CLAUDE.md) apply here. Press # to start one.",
                data=None,
            )
        for doc in docs:
            label = Text.assemble((f"{doc.order + 1}. ", "bold"), (f"{doc.scope:<9}", "cyan"), doc.label or doc.path)
            node = tree.root.add(label, data=("doc", doc), expand=True)
            self._add_imports(node, doc.imports, diagnostics)
        tree.root.expand()
        if docs:
            tree.move_cursor(tree.root.children[0])
            self._view(("doc", docs[0]))
        else:
            self._view(None)

    def _add_imports(
        self, node: TreeNode[Any], imports: tuple[Import, ...], diagnostics: tuple[Diagnostic, ...]
    ) -> None:
        for imp in imports:
            style = _STATUS_STYLE.get(imp.status, "")
            label = Text.assemble(("@", "dim"), (imp.target, style), (f"  {imp.status}", style))
            if imp.code:
                label.append(f" ({imp.code})", style="red")
            if imp.children:
                child = node.add(label, data=("import", imp), expand=True)
                self._add_imports(child, imp.children, diagnostics)
            else:
                node.add_leaf(label, data=("import", imp))

    def _view(self, data: tuple[str, InstructionDoc | Import] | None) -> None:
        if self.block_mode:
            self._draw_block()
            return
        view = self.query_one("#instructions-view", Static)
        if data is None:
            view.update(Text("Nothing selected.", style="dim"))
            return
        _kind, item = data
        if isinstance(item, InstructionDoc):
            head = Text()
            head.append(f"{item.label}\n", style="bold")
            head.append(f"scope {item.scope} · precedence {item.order + 1} · priority {item.priority}\n")
            head.append(f"{item.path}\n", style="dim")
            head.append(f"directory {item.directory}\n\n", style="dim")
            head.append(item.body)
            view.update(head)
        else:
            text = Text()
            text.append(f"@{item.target}\n", style="bold")
            text.append(f"status {item.status}" + (f" · {item.code}" if item.code else "") + "\n")
            text.append(f"in {item.source_path}:{item.line} (level {item.level})\n", style="dim")
            if item.path:
                text.append(f"resolves to {item.path}\n", style="dim")
            if item.label:
                text.append(f'provider label <instruction-import path="{escape(item.label)}">\n')
            view.update(text)

    @on(Tree.NodeHighlighted, "#instructions-tree")
    def _node_highlighted(self, event: Tree.NodeHighlighted[Any]) -> None:
        self._view(event.node.data)
        self.refresh_bindings()

    @on(Input.Submitted, "#instructions-target-input")
    def _target_submitted(self) -> None:
        self.load()
        self.query_one("#instructions-tree", Tree).focus()

    def action_focus_target(self) -> None:
        """Choose another target path."""
        self.query_one("#instructions-target-input", Input).focus()

    def action_show_block(self) -> None:
        """Toggle between the selected document and the provider-visible block."""
        self.block_mode = not self.block_mode
        if self.block_mode:
            self._draw_block()
        else:
            node = self.query_one("#instructions-tree", Tree).cursor_node
            self._view(node.data if node is not None else None)

    def _draw_block(self) -> None:
        view = self.query_one("#instructions-view", Static)
        text = Text("Provider-visible block (what the agent receives; b returns to the documents)\n\n", style="bold")
        text.append(self.block or ("(resolving…)" if self.resolution is None else "(empty: no instruction applies)"))
        view.update(text)

    def action_quick_add(self) -> None:
        """Append a note."""
        self.post_message(QuickAddRequested())

    def selected_file(self) -> str:
        """The file of the highlighted document or import (``""`` when none can be opened)."""
        node = self.query_one("#instructions-tree", Tree).cursor_node
        data = node.data if node is not None else None
        if not data:
            return ""
        item = data[1]
        if isinstance(item, InstructionDoc):
            return item.path
        return item.path if item.status in ("loaded", "duplicate", "cycle") else ""

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``E`` needs a document (or a resolved import) under the cursor."""
        if action == "edit_document" and self.is_mounted:
            return True if self.selected_file() else None
        return True

    def action_edit_document(self) -> None:
        """Open the highlighted instruction file in ``$VISUAL``/``$EDITOR``; re-resolve after."""
        path = self.selected_file()
        if path:
            self.post_message(EditFileRequested(path))  # the app posts SidecarsReloaded(instructions) after

    def action_leave_target(self) -> None:
        """Esc: leave the target box for the tree."""
        self.query_one("#instructions-tree", Tree).focus()
