"""The MCP reference memory server's file (modelcontextprotocol/servers, `src/memory/`): one JSON object
per line, `{"type": "entity", "name", "entityType", "observations": [...]}` or `{"type": "relation",
"from", "to", "relationType"}`. Each observation is a memory about its entity; each relation is the
memory `FROM RELATIONTYPE TO`. A document `{"entities": [...], "relations": [...]}` is read too."""

from __future__ import annotations

from typing import Any

from memfiles.imports import Memory, Records


def read(raw: list[tuple[int, Any]], where: str) -> Records:
    found = Records()
    items = raw
    if len(raw) == 1 and isinstance(raw[0][1], dict) and ("entities" in raw[0][1] or "relations" in raw[0][1]):
        whole = raw[0][1]
        items = [(1, {"type": "entity", **e}) for e in whole.get("entities", []) if isinstance(e, dict)]
        items += [(1, {"type": "relation", **r}) for r in whole.get("relations", []) if isinstance(r, dict)]
    for number, item in items:
        if isinstance(item, str):
            found.problems.append(f"{where}:{number}: {item}; skipped")
        elif not isinstance(item, dict):
            found.problems.append(f"{where}:{number}: not a JSON object; skipped")
        elif item.get("type") == "entity" and isinstance(item.get("name"), str):
            name = item["name"]
            for observation in item.get("observations") or []:
                if isinstance(observation, str) and observation.strip():
                    text = " ".join(observation.split())
                    found.memories.append(
                        Memory(f"{name}: {text}", f"mcp-memory {where}:{number} entity {name}", about=name)
                    )
        elif item.get("type") == "relation" and all(
            isinstance(item.get(k), str) for k in ("from", "to", "relationType")
        ):
            text = f"{item['from']} {item['relationType']} {item['to']}"
            found.memories.append(Memory(text, f"mcp-memory {where}:{number} relation", about=item["from"]))
        elif item.get("type") not in ("entity", "relation"):
            continue  # a line type this reader does not know: ignored
        else:
            found.problems.append(f"{where}:{number}: {item.get('type')} without its fields; skipped")
    return found
