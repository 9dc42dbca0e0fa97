"""How tests import the project's scripts (benchmarks, the retrieval and suggestion suites),
which are files, not packages."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def load_script(path: Path, name: str, *, reuse: bool = False, on_path: bool = False) -> ModuleType:
    """Import the script at ``path`` as the module ``name``, registered in ``sys.modules``
    (dataclasses look their module up there). ``reuse`` answers with a module already
    imported under that name; ``on_path`` puts the script's folder on ``sys.path`` first, for
    a script that imports its siblings."""
    if reuse and name in sys.modules:
        return sys.modules[name]
    if on_path and str(path.parent) not in sys.path:
        sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def bench(name: str) -> ModuleType:
    """``benchmarks/<name>.py`` as a module."""
    return load_script(BENCHMARKS / f"{name}.py", f"bench_{name}")


def retrieval_runner() -> ModuleType:
    """The retrieval suite's runner (``benchmarks/retrieval/run.py``), imported once."""
    return load_script(BENCHMARKS / "retrieval" / "run.py", "retrieval_run", reuse=True, on_path=True)
