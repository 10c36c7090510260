"""MEM3xx: secrets. A memory file is committed, synced and pasted into prompts: no credential belongs there.

Reports never repeat a secret: the excerpt keeps at most its first four characters (Rule.mask).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from memfiles.lint.findings import ERROR, EVERYWHERE, LazyPattern, Rule, first_of, words
from memfiles.lint.gate import LONG_TOKEN

# Well-known credential shapes (issuer prefixes and lengths as published by each provider).
_KEY_SHAPES = (
    r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|APKA)[0-9A-Z]{16}\b",  # AWS access key id
    r"\bgh[pousr]_[A-Za-z0-9]{36,}\b|\bgithub_pat_[A-Za-z0-9_]{40,}\b",  # GitHub
    r"\bglpat-[A-Za-z0-9_-]{20,}\b",  # GitLab
    r"\bxox[abposr]-[A-Za-z0-9-]{10,}\b|\bhooks\.slack\.com/services/T[A-Z0-9]+/[A-Z0-9]+/[A-Za-z0-9]+",  # Slack
    r"\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}\b|\bwhsec_[A-Za-z0-9]{24,}\b",  # Stripe
    r"\bAIza[0-9A-Za-z_-]{35}\b|\bya29\.[0-9A-Za-z_-]{20,}",  # Google API key, OAuth token
    r"\bsk-(?:proj-|ant-(?:api|admin)\d\d-|svcacct-)?[A-Za-z0-9_-]{20,}\b",  # OpenAI, Anthropic
    r"\bhf_[A-Za-z]{30,}\b|\bnpm_[A-Za-z0-9]{36}\b|\bpypi-AgE[A-Za-z0-9_-]{40,}",  # Hugging Face, npm, PyPI
    r"\bSG\.[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}\b|\bSK[0-9a-f]{32}\b",  # SendGrid, Twilio
    r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}",  # JSON web token
    r"\b(?:DefaultEndpointsProtocol=\w+;)?AccountKey=[A-Za-z0-9+/=]{40,}",  # Azure storage
    r"\b[a-z][a-z0-9+.-]{0,30}://[^\s:/@]+:[^\s:/@]{3,}@[\w.-]+",  # credentials inside a URL (a bounded scheme:
    # unbounded, `a.a.a.…` made every letter the start of a scheme read to the line's end, quadratic)
)
_ASSIGNMENT = LazyPattern(
    r"(?i)\b(?:password|passwd|passphrase|pwd|pin|secret|client[_-]?secret|api[_-]?key|apikey|access[_-]?key|"
    r"secret[_-]?key|private[_-]?key|auth[_-]?token|access[_-]?token|refresh[_-]?token|token|bearer|"
    r"authorization)\b[\"']?\s*(?:[:=]|=>|\bis\b)\s*(?:bearer\s+|basic\s+)?[\"'`]?(?P<value>[^\s\"'`,;<>]{6,})"
)
# Values that name where a secret lives rather than being one.
_PLACEHOLDER = LazyPattern(
    r"(?i)^(?:\$\{?\w+\}?|%\w+%|\{\{.*\}\}|<.*>|\*+|x{4,}|\.\.\.+|changeme|redacted|hidden|example\w*|"
    r"your[_-]?\w+|none|null|required|optional|secret|password|token|env\b.*|os\.environ.*|getenv.*|"
    r"[a-z]+(?:[_-][a-z]+)*)$"
)
# Credentials that name themselves without `=` or `:`: an environment line whose name ends in what it holds
# (`DB_PASSWORD=…`, `GITHUB_TOKEN=…`), a command line's password flag (`curl -u user:pass`, `sshpass -p PW`,
# `mysql -pPW`, `--password X`), `password Hunter2`, a bearer token. Each names a value that is a secret by
# where it stands, so only a variable (`$PW`, `<pw>`, `***`) is let through.
_NAMED = LazyPattern(
    r"(?i)(?<![\w-])[a-z][a-z0-9_]*_(?:token|secret|password|passwd|pwd|api_?key|access_?key|secret_?key|"
    r"private_?key|auth_?token|credentials?)\s*=\s*[\"']?(?P<value>[^\s\"'`;]{4,})"
)
_FLAGS = LazyPattern(
    r"(?i)\bcurl\b[^\n|;&]{0,200}?\s(?:-u\s*|--user[\s=]+)[\"']?[^\s:\"']+:(?P<value>[^\s\"']+)"
    r"|\bsshpass\s+(?:-[a-oq-z]\S*\s+){0,4}-p\s*[\"']?(?P<value2>[^\s\"']{2,})"
    r"|\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b[^\n|;&]{0,200}?\s-p(?P<value3>[^\s\"'-][^\s\"']+)"
    r"|(?<![\w-])--pass(?:word)?(?:=|\s+)[\"']?(?P<value4>[^\s\"'-][^\s\"']+)"
)
_SAID = LazyPattern(r"(?i)\b(?:password|passwd|passphrase)\s+(?:(?:is|was|now)\s+)?[\"'`]?(?P<value>[^\s\"'`,;()]{5,})")
_BEARER = LazyPattern(r"(?i)\bbearer\s+(?P<value>[A-Za-z0-9._~+/-]{16,}=*)")
_PORTS = LazyPattern(r"^[\d:.]+(?:/(?:tcp|udp))?$")
_FILE_NAME = LazyPattern(r"\.[A-Za-z]{1,4}$")
_VARIABLE = LazyPattern(r"^(?:\$\{?\w+\}?|\$\(.*|%\w+%|\{\{.*\}\}|<.*>|\*+|x{4,}|\.\.\.+)$")
_LONG_TOKEN = LazyPattern(r"(?<![\w/+=.-])[A-Za-z0-9+/_=-]{24,}(?![\w/+=.-])")

# Anchors (Rule.anchors, syntax in memfiles.lint.gate); tokens of 24+ characters reach MEM301 and MEM304
# through the gate's long-token check.
ANCHORS: dict[str, list[str]] = {
    "MEM301": [
        *words(
            """akia asia agpa aida aroa anpa anva apka ghp_ gho_ ghu_ ghs_ ghr_ github_pat_ glpat- xox hooks$ sk_ rk_
            whsec_ aiza ya29$ sk- hf_ npm_ pypi- sg$ eyj accountkey defaultendpointsprotocol"""
        ),
        "//",
        LONG_TOKEN,
    ],
    "MEM302": ["-----begin"],
    "MEM303": words(
        """password passwd passphrase pwd pin$ secret client api access private auth refresh token bearer
        authorization curl$ sshpass mysql mariadb ~token$ ~secret$ ~password$ ~passwd$ ~pwd$ ~api_key$
        ~apikey$ ~access_key$ ~accesskey$ ~secret_key$ ~private_key$ ~credential$ ~credentials$"""
    ),
    "MEM304": [LONG_TOKEN],
}


def _assignment(line: str) -> Iterator[tuple[int, int]]:
    for match in _ASSIGNMENT.finditer(line):
        value = match.group("value")
        if not _PLACEHOLDER.match(value):
            yield match.start("value"), match.end("value")
    for match in _NAMED.finditer(line):
        if not _PLACEHOLDER.match(match.group("value")) and not match.group("value").startswith(("<", "$", "%", "{")):
            yield match.start("value"), match.end("value")
    for match in _FLAGS.finditer(line):
        group = next(name for name in ("value", "value2", "value3", "value4") if match.group(name) is not None)
        if group == "value3" and _PORTS.match(match.group(group)):
            continue  # `docker run mysql -p3306:3306` publishes a port
        if not _VARIABLE.match(match.group(group)):
            yield match.start(group), match.end(group)
    for match in _SAID.finditer(line):
        if password_like(match.group("value")):
            yield match.start("value"), match.end("value")
    for match in _BEARER.finditer(line):
        value = match.group("value")
        if any(c.isdigit() for c in value) and any(c.isalpha() for c in value):
            yield match.start("value"), match.end("value")


def is_variable(value: str) -> bool:
    """Whether a credential's value names where it comes from (`$PW`, `${TOKEN}`, `%PW%`, `<password>`, `***`)."""
    return bool(_VARIABLE.match(value))


def password_like(value: str) -> bool:
    """Whether a word said after `password` is one: letters with digits, not a path, a file or a variable
    (`password Hunter2`, not `password manager`, `password reset.py` or `password $PW`)."""
    if _VARIABLE.match(value) or "/" in value or _FILE_NAME.search(value):
        return False
    return any(c.isalpha() for c in value) and any(c.isdigit() for c in value)


def entropy(token: str) -> float:
    """Shannon entropy of `token` in bits per character."""
    counts: dict[str, int] = {}
    for char in token:
        counts[char] = counts.get(char, 0) + 1
    total = len(token)
    return -sum(n / total * math.log2(n / total) for n in counts.values())


_ID_LABEL = LazyPattern(
    r"(?i)\b(?:id|no\.?|number|ref(?:erence)?|order|invoice|ticket|tracking|confirmation|booking|sku|receipt|case)"
    r"\s*[:#]?\s*$"
)


def _high_entropy(line: str) -> Iterator[tuple[int, int]]:
    for match in _LONG_TOKEN.finditer(line):
        token = match.group(0)
        start = match.start()
        if "://" in line[max(0, start - 200) : start] and not line[:start].rstrip().endswith(("=", ":")):
            continue  # part of a URL path: the exfiltration rules judge URLs
        if _ID_LABEL.search(line, max(0, start - 30), start):
            continue  # a labelled identifier (`Invoice ID: in_0KVn…`, `order no. 0222-INV-…`) names a record
        classes = sum(
            (any(c.islower() for c in token), any(c.isupper() for c in token), any(c.isdigit() for c in token))
        )
        if classes == 3 and entropy(token) >= 4.0:
            yield start, match.end()


RULES: list[Rule] = [
    Rule(
        "MEM301",
        ERROR,
        "api-key",
        "cloud and API key shapes (AWS, GitHub, GitLab, Slack, Stripe, Google, OpenAI, Anthropic, JWT, URL passwords)",
        "a key in memory is committed to git, synced to every machine and pasted into prompts",
        "revoke the key, delete it from the file (and from git history), keep it in a secret manager",
        first_of(*_KEY_SHAPES),
        view="raw",
        mask=True,
        example="deploy key AKIAIOSFODNN7EXAMPL3",
        near_miss="uses AWS in region eu-west-1",
        caught=(
            "token ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
            # text the keyword gate could get wrong (memfiles.lint.gate): glued quotes, odd spacing, leetspeak
            "twilio SK0123456789abcdef0123456789abcdef",
        ),
    ),
    Rule(
        "MEM302",
        ERROR,
        "private-key",
        "PEM private key blocks (`-----BEGIN … PRIVATE KEY-----`)",
        "a private key in memory is a private key published to everyone who can read the home",
        "revoke the key and delete the block (and purge it from git history)",
        first_of(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"),
        view="raw",
        mask=True,
        example="-----BEGIN OPENSSH PRIVATE KEY-----",
        near_miss="-----BEGIN PUBLIC KEY-----",
    ),
    Rule(
        "MEM303",
        ERROR,
        "credential-assignment",
        "`password=`, `token:`, `api_key =` and similar assignments with a literal value",
        "credentials written as facts end up in prompts, logs and git history",
        "store a pointer instead ('password is in the team vault'), never the value",
        _assignment,
        view="raw",
        mask=True,
        example="wifi password: Tr0ub4dor&3",
        near_miss="password is in the team vault",
        caught=("api_key = 'x9Qm2LpZ7vR4'",),
    ),
    Rule(
        "MEM304",
        ERROR,
        "high-entropy-token",
        "long random-looking tokens (24+ characters mixing upper case, lower case and digits, ≥ 4 bits/char)",
        "unlabelled keys and session tokens look exactly like this",
        "delete the token; if it is not secret (a public id), suppress the line with a reason",
        _high_entropy,
        view="raw",
        mask=True,
        example="session cookie 9fK2xQ7LmZ4vT1bN8cR3yW6hJ0pD5sGe",
        near_miss="order number ORD-2026-000123-CONFIRMED",
    ),
]


def mask(secret: str) -> str:
    """A secret with everything but (for long ones) its first four characters replaced by `*`."""
    shown = secret[:4] if len(secret) >= 16 else ""
    return shown + "*" * min(max(len(secret) - len(shown), 4), 12)


RULES = [rule.with_anchors(tuple(ANCHORS[rule.code]), EVERYWHERE) for rule in RULES]
