"""The small protocol every pane follows (Frogmouth's ``NavigationPane`` idea)."""

from __future__ import annotations

from typing import cast

from textual.containers import Container
from textual.widget import Widget

from ..center import Center
from ..messages import SidecarsReloaded, StoreUpdate
from ..model.snapshot import Changes


class Pane(Container):
    """A pane: draws from the app's snapshot, subscribes to the app's signals, focuses its
    main widget, and posts intents (it never calls the app or writes)."""

    FOCUS_SELECTOR: str = ""
    """The widget focused when the pane is shown."""

    @property
    def center(self) -> Center:
        """The app's state (see :class:`~reasonix_tui.tui.center.Center`)."""
        return cast(Center, self.app)

    def on_mount(self) -> None:
        """Subscribe to the app's signals and draw what is there."""
        center = self.center
        center.store_changed.subscribe(self, self.on_store_update)
        center.sidecars_changed.subscribe(self, self.on_sidecars)
        center.clock_ticked.subscribe(self, lambda _none: self.on_clock_tick())
        if center.loaded:
            self.on_store_update(StoreUpdate(center.snapshot, Changes(full=True)))

    def on_store_update(self, update: StoreUpdate) -> None:
        """The store changed (override)."""

    def on_sidecars(self, message: SidecarsReloaded) -> None:
        """Approvals, traces, the audit log, instructions or suggestions changed (override)."""

    def on_clock_tick(self) -> None:
        """Time moved on: redraw relative ages (override)."""

    def activate(self) -> None:
        """Called when the pane becomes visible: focus the main widget and refresh lazy data."""
        if self.FOCUS_SELECTOR:
            for widget in self.query(self.FOCUS_SELECTOR):
                if isinstance(widget, Widget) and widget.focusable:
                    widget.focus()
                    return
