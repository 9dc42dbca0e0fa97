"""The person's own changes to the store, from the panes' ``…Requested`` intents: pin, verify,
forget (one or many), new, edit (in the form or in ``$EDITOR``), restore a revision, recover
from the archive, a quick-add note, accept or dismiss a suggestion. Each asks when it must
(a confirmation, a form), then runs as one job of the write worker."""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from functools import partial
from pathlib import Path
from typing import Any

from textual import on

from ..core.store.scan import fact_file_problem
from . import writes
from .app_base import CenterAppBase
from .messages import (
    BulkRequested,
    CopyRefRequested,
    EditFileRequested,
    EditRequested,
    ForgetRequested,
    NewFactRequested,
    PinRequested,
    QuickAddRequested,
    RecoverRequested,
    RestoreRequested,
    SidecarsReloaded,
    SuggestionAcceptRequested,
    SuggestionDismissRequested,
    VerifyRequested,
)
from .screens.dialogs import ConfirmScreen, QuickAddScreen
from .screens.fact_form import FactFormScreen


class PersonEditsMixin(CenterAppBase):
    """The person's writes of :class:`~.app.ContextCenterApp`."""

    @on(PinRequested)
    def _pin_requested(self, message: PinRequested) -> None:
        fact = self.snapshot.facts.get(message.fact_id)
        if fact is not None and self._refuse_unreadable(fact, "pin" if message.pin else "unpin"):
            return
        ref = str(fact.id) if fact else message.fact_id
        self.run_write("pin" if message.pin else "unpin", lambda store: writes.pin(store, ref, message.pin))

    @on(VerifyRequested)
    def _verify_requested(self, message: VerifyRequested) -> None:
        fact = self.snapshot.facts.get(message.fact_id)
        if fact is not None and self._refuse_unreadable(fact, "verify"):
            return
        self.run_write("verify", lambda store: writes.verify(store, message.fact_id))

    def _refuse_unreadable(self, fact: Any, what: str) -> bool:
        """Say why a side action will not touch a file that does not parse (the store
        refuses it too); True when refused."""
        problem = fact_file_problem(fact)
        if not problem:
            return False
        self.notify(
            f"Not changed: {fact.ref}'s {problem}. Press E to fix the file in $EDITOR; its bytes are left as they are.",
            title=f"{what}: refused",
            severity="error",
            timeout=12,
        )
        return True

    @on(BulkRequested)
    def _bulk_requested(self, message: BulkRequested) -> None:
        ids = tuple(i for i in message.fact_ids if i in self.snapshot.facts)
        if not ids:
            return
        if message.action == "verify":
            self.run_write("verify", lambda store: writes.many(store, "verify", ids))
            return
        refs = [self.snapshot.facts[i].ref for i in ids]
        listing = "\n".join(f"  {r}" for r in refs[:8]) + (f"\n  … and {len(refs) - 8} more" if len(refs) > 8 else "")
        question = (
            f"Forget these {len(ids)} facts?\n\n{listing}\n\n"
            "They move to the archive and stop loading in future sessions. You can recover each from the Archive pane."
        )

        def answered(yes: bool | None) -> None:
            if yes:
                self.run_write("forget", lambda store: writes.many(store, "forget", ids))

        self.push_screen(ConfirmScreen(f"Forget {len(ids)} facts?", question, yes="Forget all", danger=True), answered)

    @on(ForgetRequested)
    def _forget_requested(self, message: ForgetRequested) -> None:
        fact = self.snapshot.facts.get(message.fact_id)
        if fact is None:
            return
        question = (
            f"Forget [b]{fact.display_title}[/b] ({fact.ref})?\n\n"
            "It is moved to the archive and stops loading in future sessions. "
            "You can recover it from the Archive pane."
        )
        self.push_screen(
            ConfirmScreen("Forget this fact?", question, yes="Forget", danger=True),
            partial(self._forget_confirmed, str(fact.id)),
        )

    def _forget_confirmed(self, fact_id: str, confirmed: bool | None) -> None:
        if confirmed:
            self.run_write("forget", lambda store: writes.forget(store, fact_id))

    @on(NewFactRequested)
    def _new_requested(self, message: NewFactRequested) -> None:
        values = writes.FactFormValues(**message.prefill) if message.prefill else writes.FactFormValues()  # type: ignore[arg-type]  # prefill holds string fields only
        self.push_screen(FactFormScreen(values, title="New fact"), self._new_submitted)

    def _new_submitted(self, values: writes.FactFormValues | None) -> None:
        if values is not None:
            self.run_write("new", lambda store: writes.save_form(store, values))

    @on(EditRequested)
    def _edit_requested(self, message: EditRequested) -> None:
        fact = self.snapshot.facts.get(message.fact_id)
        if fact is None:
            return
        if fact_file_problem(fact):
            if message.external:
                # The file does not parse: the person fixes its own bytes in place.
                self._edit_file(fact.path, fact_file=True)
            else:
                self._refuse_unreadable(fact, "edit")
            return
        if message.external:
            self.edit_in_editor(str(fact.id))
            return
        screen = FactFormScreen(writes.form_from_fact(fact), title=f"Edit {fact.ref} (revision {fact.revision})")
        self.push_screen(screen, partial(self._edit_submitted, str(fact.id), fact.revision))

    def _edit_submitted(self, fact_id: str, revision: int, values: writes.FactFormValues | None) -> None:
        if values is not None:
            self.run_write(
                "edit",
                lambda store: writes.save_form(store, values, fact_id=fact_id, expected_revision=revision),
            )

    def _run_editor(self, path: str, hint: str = "") -> bool:
        """Run ``$VISUAL``/``$EDITOR`` (else ``vi``) on ``path`` with the app suspended;
        False (and a notification) when it cannot run."""
        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
        try:
            with self.suspend():
                subprocess.run([*shlex.split(editor), path], check=False)
        except Exception as exc:  # SuspendNotSupported, editor not found
            self.notify(f"Cannot open {editor}: {exc}.{hint}", severity="error")
            return False
        return True

    @on(EditFileRequested)
    def _edit_file_requested(self, message: EditFileRequested) -> None:
        self._edit_file(message.path)

    def _edit_file(self, path: str, *, fact_file: bool = False) -> None:
        """Open a file in ``$VISUAL``/``$EDITOR`` in place: an instruction document (the
        person's own), or a fact file that does not parse (there is nothing to re-render)."""
        if not self._run_editor(path):
            return
        if fact_file:
            self.reload_store([path])
        else:
            self.post_message(SidecarsReloaded(instructions=True))

    def edit_in_editor(self, fact_id: str) -> None:
        """Edit a fact file's text in ``$VISUAL``/``$EDITOR``, saved with its expected revision."""
        from ..core.store.fileformat import parse_fact_text, render_fact

        fact = self.snapshot.facts.get(fact_id)
        if fact is None:
            return
        with tempfile.NamedTemporaryFile("w", suffix=".md", delete=False, encoding="utf-8") as fh:
            fh.write(render_fact(fact))
            tmp = fh.name
        try:
            if not self._run_editor(tmp, " Use e (form) instead."):
                return
            text = Path(tmp).read_text(encoding="utf-8")
        finally:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        edited = parse_fact_text(text, path=fact.path, dir_scope=fact.scope)
        if edited.parse_error:
            self.notify(f"Not saved: the frontmatter does not parse ({edited.parse_error}).", severity="error")
            return
        values = writes.form_from_fact(edited)
        if values == writes.form_from_fact(fact):
            self.notify("No change.", timeout=2)
            return
        self._edit_submitted(fact_id, fact.revision, values)

    @on(CopyRefRequested)
    def _copy_ref(self, message: CopyRefRequested) -> None:
        fact = self.snapshot.facts.get(message.fact_id)
        if fact is None:
            return
        self.copy_to_clipboard(fact.ref)
        self.notify(f"Copied {fact.ref} (id {fact.id}).", timeout=3)

    @on(RestoreRequested)
    def _restore_requested(self, message: RestoreRequested) -> None:
        fact = self.snapshot.facts.get(message.fact_id)
        if fact is None:
            return
        question = (
            f"Restore revision {message.revision} of [b]{fact.ref}[/b]?\n\n"
            f"It becomes revision {fact.revision + 1}; revision {fact.revision} stays in the history."
        )
        self.push_screen(
            ConfirmScreen("Restore revision?", question, yes="Restore"),
            partial(self._restore_confirmed, str(fact.id), message.revision),
        )

    def _restore_confirmed(self, fact_id: str, revision: int, confirmed: bool | None) -> None:
        if confirmed:
            self.run_write("restore", lambda store: writes.restore(store, fact_id, revision))

    @on(RecoverRequested)
    def _recover_requested(self, message: RecoverRequested) -> None:
        self.run_write("recover", lambda store: writes.recover(store, message.path))

    @on(QuickAddRequested)
    def _quick_add(self, message: QuickAddRequested) -> None:
        self.push_screen(QuickAddScreen(message.scope), self._quick_add_submitted)

    def _quick_add_submitted(self, result: tuple[str, str] | None) -> None:
        if not result:
            return
        scope, note = result
        self.run_write("note", lambda store: writes.quick_add(self.layout, scope, note))

    @on(SuggestionAcceptRequested)
    def _suggestion_accept(self, message: SuggestionAcceptRequested) -> None:
        self.run_write("accept", lambda store: writes.accept_suggestion(store, message.suggestion_id, message.values))

    @on(SuggestionDismissRequested)
    def _suggestion_dismiss(self, message: SuggestionDismissRequested) -> None:
        self.run_write("dismiss", lambda store: writes.dismiss_suggestion(store, message.suggestion_id))
