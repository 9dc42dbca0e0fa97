"""Secret detection and redaction (store-format §7; Reasonix redact_test.go cases)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reasonix_tui.core.agent.secrets import (
    EMAIL_PATTERN,
    REDACTED,
    findings,
    is_sensitive,
    mask,
    reasonix_redact,
    reasonix_sensitive,
    redact,
)


def kinds(text: str) -> list[str]:
    return [f.kind for f in findings(text)]


def assert_hidden(text: str, secret: str) -> None:
    """The secret is gone from both redactions and flagged by a finding covering it."""
    assert secret in text
    assert secret not in redact(text)
    start = text.index(secret)
    covered = [f for f in findings(text) if f.span[0] <= start + len(secret) - 1 and f.span[1] > start]
    assert covered, f"no finding covers {secret!r}: {findings(text)}"
    for f in findings(text):
        assert secret not in f.preview


# --- Reasonix's own redact_test.go --------------------------------------------------------


def test_common_secret_shapes() -> None:
    text = "\n".join(
        [
            "DEEPSEEK_API_KEY=sk-real-secret-value-123456",
            "Authorization: Bearer ghp_abcdefghijklmnopqrstuvwxyz",
            "token xoxb-123456789012-abcdefabcdef",
            "jwt eyJabc.def.ghi",
        ]
    )
    got = reasonix_redact(text)
    for leaked in (
        "sk-real-secret-value-123456",
        "ghp_abcdefghijklmnopqrstuvwxyz",
        "xoxb-123456789012-abcdefabcdef",
        "eyJabc.def.ghi",
    ):
        assert leaked not in got
    assert "DEEPSEEK_API_KEY=sk-rea" in got
    assert "Authorization: Bearer [redacted]" in got
    assert kinds(text) == ["secret-assignment", "authorization", "slack-token", "jwt"]


def test_json_quoted_keys() -> None:
    text = 'http 401: {"access_token":"sk-live-secret","x-api-key":"header-secret","password":"pw-secret"}'
    got = reasonix_redact(text)
    for leaked in ("sk-live-secret", "header-secret", "pw-secret"):
        assert leaked not in got
        assert_hidden(text, leaked)
    assert '"access_token":"' in got and "http 401" in got
    assert reasonix_redact(got) == got


def test_cookie_headers() -> None:
    text = "Cookie: session=cookie-secret\nSet-Cookie: sid=abc123def456; Path=/; HttpOnly"
    got = reasonix_redact(text)
    assert "Cookie: session=[redacted]" in got
    assert "Set-Cookie: sid=[redacted]" in got
    assert "HttpOnly" in got
    assert "cookie-secret" not in got and "abc123def456" not in got
    assert reasonix_redact(got) == got
    assert set(kinds(text)) == {"cookie"}


def test_authorization_schemes_and_bare() -> None:
    text = "\n".join(
        [
            "Authorization: Basic dXNlcjpwYXNzd29yZA==",
            "Proxy-Authorization: Digest username-hash-abcdef0123456789",
            "Authorization: dXNlcjpwYXNzd29yZC1yYXc=",
        ]
    )
    got = reasonix_redact(text)
    assert "Authorization: Basic [redacted]" in got
    assert "Digest [redacted]" in got
    assert "Authorization: [redacted]" in got
    assert reasonix_redact(got) == got
    assert kinds(text) == ["authorization"] * 3


@pytest.mark.parametrize("scheme", ["Bearer", "Basic", "Digest", "Negotiate", "NTLM", "Token", "Bot", "ApiKey"])
def test_every_authorization_scheme(scheme: str) -> None:
    text = f"Authorization: {scheme} c2VjcmV0LXZhbHVl"
    assert reasonix_redact(text) == f"Authorization: {scheme} [redacted]"
    assert_hidden(text, "c2VjcmV0LXZhbHVl")


def test_authorization_key_suffixes() -> None:
    for key in ("X-Authorization", "proxy_authorization", "upstream.Authorization"):
        assert reasonix_redact(f"{key}=abc") == f"{key}=[redacted]"


def test_url_userinfo() -> None:
    text = "proxy request failed: https://proxy-user:pa@ss@proxy.example.com:8443/connect"
    got = reasonix_redact(text)
    assert "https://[redacted]@proxy.example.com:8443/connect" in got
    for leaked in ("proxy-user", "pa@ss"):
        assert leaked not in got
    assert reasonix_redact(got) == got
    assert "url-userinfo" in kinds(text)


def test_idempotent_and_pwd_left_alone() -> None:
    text = "\n".join(
        [
            "DEEPSEEK_API_KEY=sk-real-secret-value-123456",
            "Authorization: Bearer ghp_abcdefghijklmnopqrstuvwxyz",
            "DB_PWD='hunter2-swordfish'",
            "plain text with PWD=/home/user/project untouched",
        ]
    )
    once = reasonix_redact(text)
    assert reasonix_redact(once) == once
    pwd = "PWD=/home/user/project\nOLDPWD=/home/user\nDB_PWD=hunter2-swordfish-123"
    got = reasonix_redact(pwd)
    assert "PWD=/home/user/project" in got and "OLDPWD=/home/user" in got
    assert "hunter2-swordfish-123" not in got


# --- every shape of §7 -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "secret", "kind"),
    [
        ("OPENAI_API_KEY=abcdefghijklmnop", "abcdefghijklmnop", "secret-assignment"),
        ("aws_access_key: AbCdEfGhIjKlMnOp", "AbCdEfGhIjKlMnOp", "secret-assignment"),
        ("ssh-private-key=hello-world-1234", "hello-world-1234", "secret-assignment"),
        ("client_secret = 'topsecretvalue'", "topsecretvalue", "secret-assignment"),
        ("REFRESH_TOKEN=abc", "abc", "secret-assignment"),
        ("db password: hunter2", "hunter2", "secret-assignment"),
        ("MYSQL-PWD=zzz", "zzz", "secret-assignment"),
        ("ldap_passwd=qqq", "qqq", "secret-assignment"),
        ('{"apiKey": "k-123"}', "k-123", "secret-assignment"),
        ("Set-Cookie: sid=opaque; Secure", "opaque", "cookie"),
        ("curl -H 'Bearer abcdefghijklmnop1234'", "abcdefghijklmnop1234", "bearer-token"),
        ("key sk-abcdefghijkl1 here", "sk-abcdefghijkl1", "openai-key"),
        ("sk-proj-abcdefghijklmnop", "sk-proj-abcdefghijklmnop", "openai-key"),
        ("rk-abcdefghijklmn", "rk-abcdefghijklmn", "openai-key"),
        ("ghp_abcdefghijklmnopqrst", "ghp_abcdefghijklmnopqrst", "github-token"),
        ("gho_abcdefghijklmnopqrst", "gho_abcdefghijklmnopqrst", "github-token"),
        ("ghu_abcdefghijklmnopqrst", "ghu_abcdefghijklmnopqrst", "github-token"),
        ("ghs_abcdefghijklmnopqrst", "ghs_abcdefghijklmnopqrst", "github-token"),
        ("ghr_abcdefghijklmnopqrst", "ghr_abcdefghijklmnopqrst", "github-token"),
        ("github_pat_11ABCDEFG0123456789abc", "github_pat_11ABCDEFG0123456789abc", "github-token"),
        ("xoxa-0123456789abcdef", "xoxa-0123456789abcdef", "slack-token"),
        ("xoxp-0123456789abcdef", "xoxp-0123456789abcdef", "slack-token"),
        ("xoxr-0123456789abcdef", "xoxr-0123456789abcdef", "slack-token"),
        ("xoxs-0123456789abcdef", "xoxs-0123456789abcdef", "slack-token"),
        ("AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE", "aws-access-key"),
        ("ASIAIOSFODNN7EXAMPLE", "ASIAIOSFODNN7EXAMPLE", "aws-access-key"),
        (
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig-nature_x",
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig-nature_x",
            "jwt",
        ),
        ("git clone https://bob:s3cret@git.example.com/repo", "bob:s3cret", "url-userinfo"),
        ("ftp://anon@ftp.example.org/pub", "anon", "url-userinfo"),
        ("mail release-owner@example.test now", "release-owner@example.test", "email"),
        (
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk=\n-----END OPENSSH PRIVATE KEY-----",
            "b3BlbnNzaC1rZXk=",
            "private-key",
        ),
        ("-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg\n-----END PRIVATE KEY-----", "MIIEvQIBADANBg", "private-key"),
        (
            "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----",
            "MIIEpAIBAAKCAQEA",
            "private-key",
        ),
        ("-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIB\n", "MHcCAQEEIB", "private-key"),
        ("-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBF\n-----END PGP PRIVATE KEY BLOCK-----", "lQOYBF", "private-key"),
    ],
)
def test_every_shape(text: str, secret: str, kind: str) -> None:
    assert kind in kinds(text)
    assert_hidden(text, secret)
    assert is_sensitive(text)


def test_reasonix_sensitive_covers_the_policy_extras() -> None:
    assert reasonix_sensitive("contact release-owner@example.test.")
    assert reasonix_sensitive("the header reads begin private key")
    assert reasonix_sensitive("BEGIN OPENSSH PRIVATE KEY")
    # Reasonix's own test misses RSA blocks; we flag them (the spec's list is a floor).
    assert not reasonix_sensitive("-----BEGIN RSA PRIVATE KEY-----")
    assert is_sensitive("-----BEGIN RSA PRIVATE KEY-----")


def test_finding_spans_point_at_the_secret() -> None:
    text = "note: 日本語 DEEPSEEK_API_KEY=sk-real-secret-value-123456 and x@example.com"
    fs = findings(text)
    assert [f.kind for f in fs] == ["secret-assignment", "email"]
    assert text[fs[0].span[0] : fs[0].span[1]] == "sk-real-secret-value-123456"
    assert text[fs[1].span[0] : fs[1].span[1]] == "x@example.com"
    assert fs[0].preview == "DEEPSEEK_API_KEY=sk-rea*****************3456"
    assert fs[1].preview == "x***@example.com"
    assert fs[0].label == "a secret assigned to a credential-named key"


def test_mask_rules() -> None:
    assert mask("short-value1") == REDACTED  # 12 bytes
    assert mask("abcdefghijklm") == "abcd*****jklm"
    assert mask("sk-abcdefghijk") == "sk-abc****hijk"
    assert mask("   ") == REDACTED


def test_bearer_lowercase_is_replaced_whole_like_go() -> None:
    assert reasonix_redact("bearer abcdefghijklmnopqrst") == "Bearer [redacted]"
    assert reasonix_redact("Bearer abcdefghijklmnopqrst") == "Bearer abcd************qrst"


# --- near misses that must not fire ------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "PWD=/home/user/project",
        "OLDPWD=/home/user",
        "the password is stored in the vault",  # no separator after the key
        "tokenizer: bm25 with cjk bigrams",  # "tokenizer" contains TOKEN but the value... see below
        "Bearer short123",  # under 16
        "sk-short",  # under 12 after sk-
        "ask-abcdefghijklmnop",  # no word boundary before sk-
        "ghp_tooshort123",
        "xoxb-short",
        "AKIA1234",  # too short
        "AKIAabcdefghijklmnop",  # lowercase
        "eyJonly.two",
        "https://example.com/path@v2",  # @ after the path
        "git@github.com:org/repo.git",  # no dot label after the colon? domain github.com matches → see test below
        "user @ example",
        "a@b",
        "keyword: release",
        "Cookie policy: we use none",
        "BEGIN PUBLIC KEY",
        "-----BEGIN CERTIFICATE-----",
        "Release artifacts are published from main-v2.",
        "",
    ],
)
def test_near_misses(text: str) -> None:
    if text == "tokenizer: bm25 with cjk bigrams":
        # A credential-named key ("tokenizer" contains TOKEN) with a value is redacted by
        # Reasonix too; keep the behaviour identical and document it here.
        assert reasonix_redact(text) != text
        return
    if text.startswith("git@github.com"):
        assert kinds(text) == ["email"]  # the policy's e-mail regex matches scp-style git URLs
        return
    assert findings(text) == [], findings(text)
    assert redact(text) == text
    assert reasonix_redact(text) == text
    assert not is_sensitive(text)
    assert not reasonix_sensitive(text)


def test_already_redacted_values_stay() -> None:
    for text in (
        "password=[redacted]",
        "api_key=****",
        "Authorization: Bearer [redacted]",
        "https://[redacted]@h.example/x",
    ):
        assert reasonix_redact(text) == text
        assert findings(text) == []


def test_long_input_is_linear_enough() -> None:
    # Pathological shapes for naive backtracking: long runs of scheme/e-mail characters.
    blob = ("a-" * 50_000) + " " + ("a." * 50_000)
    assert findings(blob) == []
    secret = "sk-real-secret-value-1234567890"
    transcript = "".join(f"message {i} DEEPSEEK_API_KEY={secret} Authorization: Bearer {secret}\n" for i in range(2000))
    got = reasonix_redact(transcript)
    assert secret not in got
    assert reasonix_redact(got) == got


# --- the anchored searches equal the plain regexes ---------------------------------------

_ALPHABET = st.sampled_from(list("ab.:/@-_ xK1é\n") + ["://", "@e.co", "https", "a@b.cd"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_ALPHABET, max_size=30).map("".join))
def test_email_search_matches_plain_regex(text: str) -> None:
    plain = re.compile(EMAIL_PATTERN.encode()[4:], re.IGNORECASE)
    data = text.encode()
    expected = [(m.start(), m.end()) for m in plain.finditer(data)]
    from reasonix_tui.core.agent.secrets import _email_spans

    assert list(_email_spans(data)) == expected


_URL = re.compile(rb"(?i)\b([a-z][a-z0-9+.-]*://)([^/\t\n\f\r ]+)@")


@settings(max_examples=300, deadline=None)
@given(st.lists(_ALPHABET, max_size=30).map("".join))
def test_userinfo_search_matches_plain_regex(text: str) -> None:
    from reasonix_tui.core.agent.secrets import _edits_url_userinfo

    data = text.encode()
    expected = _URL.sub(rb"\1[redacted]@", data)
    out = bytearray()
    last = 0
    for start, end, repl, _kind, _prefix in _edits_url_userinfo(data):
        out += data[last:start] + repl
        last = end
    out += data[last:]
    assert bytes(out) == expected
