"""The kinds of sensitive content the secret checks report: :class:`Finding`, the words a
person is shown for each kind, and the provider token rules the broader detector
(:mod:`.secret_detection`) adds to Reasonix's own passes (:mod:`.secrets`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Finding", "KIND_LABELS", "EXTRA_RULES", "detect_label"]

KIND_LABELS: dict[str, str] = {
    "url-userinfo": "credentials in a URL",
    "secret-assignment": "a secret assigned to a credential-named key",
    "authorization": "an Authorization header",
    "cookie": "a cookie value",
    "bearer-token": "a Bearer token",
    "openai-key": "an API key (sk-/rk-)",
    "github-token": "a GitHub token",
    "slack-token": "a Slack token",
    "aws-access-key": "an AWS access key id",
    "jwt": "a JSON Web Token",
    "private-key": "a private key",
    "email": "an e-mail address",
}
"""Human wording for each :attr:`Finding.kind`."""


@dataclass(frozen=True, slots=True)
class Finding:
    """One sensitive span found in a text."""

    kind: str
    """What it is: a key of :data:`KIND_LABELS`."""
    span: tuple[int, int]
    """``(start, end)`` character offsets into the text that was scanned."""
    preview: str
    """A masked rendering safe to show (never the secret itself)."""
    field: str = ""
    """Which argument it was found in (set by the write policy), else ``""``."""

    @property
    def label(self) -> str:
        """Human wording for the kind."""
        return KIND_LABELS.get(self.kind) or detect_label(self.kind)


EXTRA_RULES: tuple[tuple[str, str, re.Pattern[str]], ...] = tuple(
    (kind, label, re.compile(rx))
    for kind, label, rx in (
        ("aws-access-key", "an AWS access key id", r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b"),
        ("google-api-key", "a Google API key", r"\bAIza[0-9A-Za-z_\-]{35}(?![0-9A-Za-z_\-])"),
        ("google-oauth-secret", "a Google OAuth client secret", r"\bGOCSPX-[0-9A-Za-z_\-]{28}\b"),
        ("npm-token", "an npm access token", r"\bnpm_[A-Za-z0-9]{36}\b"),
        ("gitlab-token", "a GitLab token", r"\bgl(?:pat|ptt|rt|dt|ft|imt|oas|soat|cbt|agent)-[A-Za-z0-9_\-]{20,}"),
        ("stripe-key", "a Stripe secret key", r"\b[rs]k_(?:live|test)_[0-9A-Za-z]{16,}\b"),
        ("azure-storage-key", "an Azure storage account key", r"(?i)\bAccountKey=[A-Za-z0-9+/=]{20,}"),
        (
            "aws-secret-key",
            "an AWS secret access key",
            r"(?i)\baws.{0,24}?(?:secret|key).{0,24}?[=:]\s*[\"']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])",
        ),
        ("slack-webhook", "a Slack webhook URL", r"https://hooks\.slack\.com/services/[A-Za-z0-9/_\-]{20,}"),
        (
            "discord-webhook",
            "a Discord webhook URL",
            r"https://(?:\w+\.)?discord(?:app)?\.com/api/webhooks/\d+/[\w\-]{20,}",
        ),
        ("shopify-token", "a Shopify access token", r"\bshp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}\b"),
        ("huggingface-token", "a Hugging Face token", r"\bhf_[A-Za-z]{34}\b"),
        ("digitalocean-token", "a DigitalOcean token", r"\bdo[opr]_v1_[a-f0-9]{64}\b"),
        ("databricks-token", "a Databricks token", r"\bdapi[a-f0-9]{32}\b"),
        ("linear-key", "a Linear API key", r"\blin_api_[A-Za-z0-9]{40}\b"),
        ("anthropic-key", "an Anthropic API key", r"\bsk-ant-(?:api|admin)\d\d-[A-Za-z0-9_\-]{20,}"),
        (
            "cli-password",
            "a password on a command line",
            r"(?i)\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b[^\n]*?\s-p(?![\s-])(\S+)"
            r"|\bsshpass\s+-p\s*(\S+)|\bredis-cli\b[^\n]*?\s-a\s+(\S+)|--password=(\S+)"
            r"|--password\s+(?=\S*[0-9!@#$%^&*+])(\S{3,})",
        ),
        (
            "password-statement",
            "a password stated in text",
            r"(?i)\b(?:password|passphrase|passwd|pwd|pin code|api key|secret key)\s+(?:is|was|=)\s*[:=]\s*[\"'`]?(\S{3,})"
            r"|(?i:\b(?:password|passphrase|passwd)\s+(?:is|was)\s+)[\"'`](\S{3,}?)[\"'`]",
        ),
    )
)
"""``(kind, label, pattern)`` of each shape the detect-secrets plugins do not cover; a
pattern's first matching group, when it has groups, is the secret."""


def detect_label(kind: str) -> str:
    """A person's words for a :func:`~.secret_detection.detect` kind."""
    if kind in KIND_LABELS:
        return KIND_LABELS[kind]
    for k, label, _ in EXTRA_RULES:
        if k == kind:
            return label
    if kind.startswith("detect-secrets:"):
        return "a " + kind.split(":", 1)[1]
    return "a secret"
