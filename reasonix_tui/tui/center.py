"""What panes and screens may read from the Context Center app (a typing protocol).

Panes and screens never import :mod:`.app` (which imports them): they read the app's
state through :class:`Center` and talk back only with messages (``…Requested`` intents),
so the tui package has no import cycle.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from textual.signal import Signal

    from ..core.paths import Layout
    from ..core.settings import Settings
    from ..core.store.store import Store
    from .approval_flow import ApprovalFlow
    from .messages import SidecarsReloaded, StoreUpdate
    from .model.rows import Clock
    from .model.snapshot import CenterSnapshot

__all__ = ["Center"]


class Center(Protocol):
    """The Context Center's state, as panes see it (attributes down)."""

    layout: Layout
    """Paths of the store being shown."""
    settings: Settings
    """Effective settings."""
    clock: Clock
    """Source of "now"."""
    snapshot: CenterSnapshot
    """The one immutable view of the store."""
    loaded: bool
    """Rows are on screen."""
    complete: bool
    """The first load has finished."""
    stale: bool
    """The last reload failed."""
    demo: bool
    """Opened on a generated demo home."""
    watch_enabled: bool
    """Watching the store for outside changes."""
    approvals: ApprovalFlow
    """The approval flow's state (pending count...)."""
    store_changed: Signal[StoreUpdate]
    """Published after every reload that changed something."""
    sidecars_changed: Signal[SidecarsReloaded]
    """Published when approvals, traces, the audit log, instructions or suggestions change."""
    clock_ticked: Signal[None]
    """Published every half minute so relative ages ("3m ago") move on screen."""
    health: Any
    """The last :class:`~reasonix_tui.core.health.HealthReport` (``None`` until the first)."""
    health_changed: Signal[Any]
    """Published with each new health report (``None``: it was put off, see :attr:`health_deferred`)."""
    health_deferred: str
    """Why memory health has not run (a big store: it runs when asked), or ``""``."""
    health_undo: list[Any]
    """Health fixes that can be taken back, newest last."""

    def make_store(self) -> Store:
        """A store for reads by panes (actor ``context-center``)."""
        ...

    def effective_keys(self, binding_id: str, default: str) -> str:
        """The keys a binding has now (the ``[keymap]`` setting applied)."""
        ...
