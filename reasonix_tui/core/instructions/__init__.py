"""Standing instructions: which REASONIX.md / AGENTS.md / CLAUDE.md apply, and quick-add notes."""
