"""What a write decided: the one outcome type of the Python API, the CLI and the MCP server.

A write either decides something and returns it as an `Outcome` — a fact added, reinforced,
superseded, in conflict, proposed for review, or refused by the guard or a policy (with the rule and
why); an episode recorded, quarantined (stored, but held back from every reader until a person
accepts it: `rule` and `why` say what the guard found), or already there — or it goes wrong and
raises a `memfiles.errors.MemError` (a file that does not parse, a bad id or key, a git failure).
FORMAT.md, "Outcome rules", says which fact outcome a write gets. `line()` is the text `mem add` and
`mem episode` print; `to_dict()` their `--json`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Kind = Literal[
    "added", "reinforced", "superseded", "conflict", "proposed", "recorded", "quarantined", "exists", "refused"
]


class Outcome(BaseModel):
    """What one write decided; `kind == "refused"` means nothing was written (`rule` and `why` say why)."""

    model_config = ConfigDict(extra="forbid", defer_build=True, frozen=True)

    kind: Kind
    scope: str
    key: str | None = Field(default=None, description="the fact's key (None for an episode)")
    fact_id: str | None = Field(default=None, description="the fact added, reinforced, proposed or superseding")
    ids: list[str] = Field(default_factory=list, description="superseded: [old, new]; conflict: the rivals")
    episode_id: str | None = Field(default=None, description="the episode recorded or found")
    path: str | None = Field(default=None, description="the episode's file, relative to the home")
    rule: str | None = Field(default=None, description="refused or quarantined: the rule or policy code, e.g. MEM101")
    why: str | None = Field(default=None, description="refused or quarantined: what was wrong, in words")
    masked: int = Field(default=0, description="an episode: the distinct secrets masked in its text before writing")

    @property
    def refused(self) -> bool:
        """True when nothing was written."""
        return self.kind == "refused"

    def line(self) -> str:
        """The one line `mem add` (or `mem episode`) prints for this outcome."""
        if self.kind == "refused":
            return f"refused: {self.rule}: {self.why}"
        if self.kind in ("recorded", "exists"):
            return f"{self.kind} {self.episode_id} {self.path}{self._masked()}"
        if self.kind == "quarantined":
            held = "held back until a person accepts it (mem review)"
            return f"quarantined {self.episode_id} {self.path}: {self.why}; {held}{self._masked()}"
        if self.kind == "superseded":
            return f"superseded {self.ids[0]} -> {self.ids[1]}"
        if self.kind == "conflict":
            return "conflict " + " ".join(self.ids)
        return f"{self.kind} {self.fact_id}"

    def _masked(self) -> str:
        if not self.masked:
            return ""
        what = "a secret" if self.masked == 1 else f"{self.masked} secrets"
        return f" ({what} masked as <masked> before writing; a real secret typed or sent in clear should be rotated)"

    def to_dict(self) -> dict[str, object]:
        """The outcome as `--json` prints it: a fact's outcome, an episode's, or an episode's refusal."""
        if self.key is not None:
            return {
                "outcome": self.kind,
                "scope": self.scope,
                "key": self.key,
                "fact_id": self.fact_id,
                "ids": list(self.ids),
                "rule": self.rule,
                "why": self.why,
            }
        if self.kind == "refused":
            return {"outcome": self.kind, "rule": self.rule, "why": self.why}
        out: dict[str, object] = {"outcome": self.kind, "id": self.episode_id, "path": self.path, "scope": self.scope}
        if self.kind == "quarantined":
            out.update(rule=self.rule, why=self.why)
        if self.masked:
            out["masked"] = self.masked
        return out
