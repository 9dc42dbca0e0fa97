"""detect-secrets' plugins are imported without loading ``requests`` (their network
verification is never asked for), and find exactly what they find with it loaded."""

from __future__ import annotations

import json
import subprocess
import sys

from reliability.test_secret_shapes import SECRETS

_SCRIPT = """
import json, sys
if sys.argv[1] == "eager":
    import requests
from reasonix_tui.core.agent.secret_detection import detect, redact_detected
texts = json.loads(sys.stdin.read())
out = [[[f.kind, list(f.span)] for f in detect(t)] + [redact_detected(t)] for t in texts]
loaded = "urllib3" in sys.modules
import requests
print(json.dumps([out, loaded, hasattr(requests, "Session"), type(requests).__name__]))
"""


def _run(mode: str, texts: list[str]) -> list:
    proc = subprocess.run(
        [sys.executable, "-c", _SCRIPT, mode], input=json.dumps(texts), capture_output=True, text=True, check=True
    )
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


def test_same_findings_without_loading_requests() -> None:
    texts = [t for _k, t in SECRETS] + ["nothing here", "AuthHandler token rotation in the deploy pipeline"]
    lazy, lazy_loaded, lazy_session, lazy_type = _run("lazy", texts)
    eager, _loaded, _session, eager_type = _run("eager", texts)
    assert lazy == eager
    assert not lazy_loaded  # requests (and urllib3) never loaded for detection
    assert lazy_session and lazy_type == eager_type == "module"  # a later import gets the real module
