"""The write policy's secret detector: ≥ 40 secret shapes flagged in every field an agent
sends (name, title, description, body, keywords, subject key), ≥ 20 harmless look-alikes
not flagged, and Reasonix's own redaction unchanged."""

from __future__ import annotations

import pytest

from reasonix_tui.core.agent.policy import Reason, assess_remember
from reasonix_tui.core.agent.secret_detection import detect, redact_detected
from reasonix_tui.core.agent.secrets import reasonix_redact

# Shapes only: every value below is made up (right alphabet and length, no real key).
SECRETS: list[tuple[str, str]] = [
    ("google-api-key", "maps key AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY for the widget"),
    ("google-oauth", "client secret GOCSPX-abcdefghijklmnopqrstuvwxyz12"),
    ("stripe-live", "charge with sk_live_4eC39HqLyjWDarjtT1zdp7dc"),
    ("stripe-restricted", "use rk_live_51HxAbCdEfGhIjKlMnOpQrSt"),
    ("gitlab-pat", "clone with glpat-AbCdEf1234567890XyZa"),
    ("gitlab-runner", "register runner glrt-AbCdEf1234567890XyZa_q"),
    ("npm", "publish token npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"),
    ("npmrc", "//registry.npmjs.org/:_authToken=a1b2c3d4-e5f6-a7b8-c9d0-e1f2a3b4c5d6"),
    (
        "azure-storage",
        "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey="
        "lJzRc1YdHaAA2KCNJJ1tkYwF/+mKK6Ygw0NGe170Xu592euJv2wYUtBlV8z+qnlcNQSnIYVTkLWntUO1F8j8rQ==;",
    ),
    ("mysql-p", "run mysql -uroot -pS3cr3tPass! billing"),
    ("mysqldump-p", "mysqldump -u admin -pTopSecret42 shop > dump.sql"),
    ("sshpass", "sshpass -p 'W1nter2024' ssh deploy@host"),
    ("redis-cli", "redis-cli -h cache -a s3cr3tR3dis ping"),
    ("password-flag", "deploy --password=Tr0ub4dor&3 --yes"),
    ("password-is", "the staging db password is: hunter2hunter2"),
    ("password-quoted", "the admin password is 'correct-horse-battery'"),
    ("aws-access-key", "AKIAIOSFODNN7EXAMPLE is the deploy key"),
    ("aws-secret", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    ("aws-split", "the aws key is AKIAIOSFOD\nNN7EXAMPLE for the deploy user"),
    ("aws-secret-split", "aws secret key: wJalrXUtnFEMI/K7MDENG/\nbPxRfiCYEXAMPLEKEY"),
    ("github-classic", "token ghp_1234567890abcdefghijklmnopqrstuvwxAB"),
    ("github-fine", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV"),
    ("slack-bot", "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"),
    ("slack-webhook", "post to https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX"),
    ("discord-webhook", "https://discord.com/api/webhooks/123456789012345678/AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"),
    ("openai", "OPENAI key sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"),
    ("anthropic", "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-AbCd"),
    (
        "jwt",
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    ),
    ("private-key", "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----"),
    ("url-credentials", "postgres://app:Sup3rS3cret@db.internal:5432/app"),
    ("bearer", "curl -H 'Authorization: Bearer abcdefghijklmnop0123456789'"),
    ("sendgrid", "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"),
    ("twilio", "twilio SK1234567890abcdef1234567890abcdef"),
    (
        "pypi",
        "pypi-AgEIcHlwaS5vcmcCJDEyMzQ1Njc4LTEyMzQtMTIzNC0xMjM0LTEyMzQ1Njc4OTAxMgACJXsicGVybWlzc2lvbnMiOiAidXNlciIsICJ2ZXJzaW9uIjogMX0AAAYg",
    ),
    ("mailchimp", "mailchimp 0123456789abcdef0123456789abcdef-us12"),
    ("telegram", "bot 123456789:AAEhBOweik6ad9r_QXMENQjlrTfZJj3hZ8I"),
    ("square", "sq0csp-ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdefg"),
    ("shopify", "shpat_0123456789abcdef0123456789abcdef"),
    ("huggingface", "hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh"),
    ("digitalocean", "dop_v1_" + "a1" * 32),
    ("databricks", "dapi0123456789abcdef0123456789abcdef"),
    ("linear", "lin_api_" + "Ab1" * 13 + "X"),
    ("env-assignment", "DB_PASSWORD=supersecret123"),
    ("json-secret", '"client_secret": "a8f9d7s6f5g4h3j2"'),
    ("yaml-secret", "secret: s3cr3t-value"),
    ("basic-auth", "Authorization: Basic dXNlcjpwYXNzd29yZA=="),
]

HARMLESS: list[str] = [
    "the password reset flow sends an e-mail link",
    "store the api key in the vault, never in the repo",
    "token bucket rate limiting: 100 requests per minute",
    "commit 3f9a2c1e8b7d6f5a4c3b2a1f0e9d8c7b6a5f4e3d fixed the build",
    "request id 123e4567-e89b-12d3-a456-426614174000 in the logs",
    "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 is the image digest",
    "use sk-learn pipelines for the classifier",
    "the AKIA prefix marks AWS access key ids",
    "AIza-prefixed keys are Google's; we use none",
    "glpat tokens expire after 30 days",
    "npm install --save-dev typescript",
    "mysql -h localhost -P 3306 -u app billing",
    "mysql --password prompts when given without a value",
    "connect with psql -U app -d billing",
    "see https://example.com/docs/auth for the login flow",
    "version 2.14.1-rc.3 is the release candidate",
    "the password field is validated on the client",
    "set PASSWORD_MIN_LENGTH to 12 in the settings",
    "pin the keyboard layout to us-intl",
    "the monkey patch lives in tests/conftest.py",
    "run ./scripts/rotate-credentials.sh monthly",
    "secret santa list is in docs/party.md",
    "the Bearer scheme is described in RFC 6750",
    "path /usr/local/lib/python3.11/site-packages/detect_secrets",
]


@pytest.mark.parametrize(("kind", "text"), SECRETS, ids=[k for k, _ in SECRETS])
def test_secret_shape_is_detected(kind: str, text: str) -> None:
    assert detect(text), f"{kind}: not detected in {text!r}"
    masked = redact_detected(text)
    assert masked != text
    assert "[redacted]" in masked or "*" in masked


@pytest.mark.parametrize("text", HARMLESS)
def test_harmless_look_alike_is_not_flagged(text: str) -> None:
    assert detect(text) == [], [f.kind for f in detect(text)]
    assert redact_detected(text) == text


def test_table_sizes() -> None:
    assert len(SECRETS) >= 40 and len(HARMLESS) >= 20


FIELDS = ("name", "title", "description", "body", "keywords", "subject_key")


@pytest.mark.parametrize("field", FIELDS)
@pytest.mark.parametrize(
    ("kind", "secret"),
    [
        ("google", "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"),
        ("stripe", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"),
        ("gitlab", "glpat-AbCdEf1234567890XyZa"),
        ("npm", "npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"),
    ],
)
def test_policy_refuses_a_secret_in_any_field(field: str, kind: str, secret: str) -> None:
    args = {
        "name": "deploy-notes",
        "title": "Deploy notes",
        "description": "how we deploy",
        "body": "Deploys go through the pipeline.",
        "type": "project",
        "keywords": "deploy ci",
        "subject_key": "deploy.process",
    }
    args[field] = f"{args[field]} {secret}" if field != "name" else f"deploy-{secret}"
    assessment = assess_remember(args, None)
    assert Reason.SENSITIVE in assessment.reasons, (field, kind, assessment.reasons)
    assert any(f.field == field for f in assessment.sensitive), (field, [f.field for f in assessment.sensitive])


def test_reasonix_redaction_is_unchanged() -> None:
    # The Reasonix-compatible redaction keeps its exact behaviour: shapes only the broader
    # detector knows pass through it untouched.
    assert reasonix_redact("maps key AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY") == (
        "maps key AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"
    )
    assert reasonix_redact("password=hunter2") == "password=[redacted]"
