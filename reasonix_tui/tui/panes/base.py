"""The small protocol every pane follows (Frogmouth's ``NavigationPane`` idea)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import getters
from textual.containers import Container
from textual.widget import Widget

if TYPE_CHECKING:
    from ..app import ContextCenterApp, StoreUpdate
    from ..messages import SidecarsReloaded


def _app_type() -> type[ContextCenterApp]:
    from ..app import ContextCenterApp

    return ContextCenterApp


class Pane(Container):
    """A pane: draws from ``app.snapshot``, subscribes to the app's signals, focuses its main widget."""

    app = getters.app(_app_type)  # type: ignore[assignment]

    FOCUS_SELECTOR: str = ""
    """The widget focused when the pane is shown."""

    def on_mount(self) -> None:
        """Subscribe to the app's signals and draw what is there."""
        self.app.store_changed.subscribe(self, self.on_store_update)
        self.app.sidecars_changed.subscribe(self, self.on_sidecars)
        if self.app.loaded:
            from ..app import StoreUpdate
            from ..state import Changes

            self.on_store_update(StoreUpdate(self.app.snapshot, Changes(full=True)))

    def on_store_update(self, update: StoreUpdate) -> None:
        """The store changed (override)."""

    def on_sidecars(self, message: SidecarsReloaded) -> None:
        """Approvals, traces, the audit log or instructions changed (override)."""

    def activate(self) -> None:
        """Called when the pane becomes visible: focus the main widget and refresh lazy data."""
        if self.FOCUS_SELECTOR:
            for widget in self.query(self.FOCUS_SELECTOR):
                if isinstance(widget, Widget) and widget.focusable:
                    widget.focus()
                    return
