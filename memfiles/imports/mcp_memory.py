"""The MCP reference memory server's file (modelcontextprotocol/servers, `src/memory/`): one JSON object
per line, `{"type": "entity", "name", "entityType", "observations": [...]}` or `{"type": "relation",
"from", "to", "relationType"}`. Each observation is a memory about its entity; each relation is the
memory `FROM RELATIONTYPE TO`. A document `{"entities": [...], "relations": [...]}` is read too."""

from __future__ import annotations

from typing import Any

from memfiles.imports import Memory, Records, kind_of


def read(raw: list[tuple[int, Any]], where: str) -> Records:
    found = Records()
    items = raw
    if len(raw) == 1 and isinstance(raw[0][1], dict) and ("entities" in raw[0][1] or "relations" in raw[0][1]):
        whole, items = raw[0][1], []
        for field, kind in (("entities", "entity"), ("relations", "relation")):
            listed = whole.get(field, [])
            if not isinstance(listed, list):
                found.problems.append(f"{where}: `{field}` is {kind_of(listed)}, expected a list; skipped")
                continue
            for number, one in enumerate(listed, start=1):
                if isinstance(one, dict):
                    items.append((1, {**one, "type": kind}))
                else:
                    found.problems.append(f"{where}: {field} #{number} is {kind_of(one)}, expected an object; skipped")
    for number, item in items:
        if isinstance(item, str):
            found.problems.append(f"{where}:{number}: {item}; skipped")
        elif not isinstance(item, dict):
            found.problems.append(f"{where}:{number}: not a JSON object; skipped")
        elif item.get("type") == "entity" and isinstance(item.get("name"), str):
            name, observations = item["name"], item.get("observations") or []
            if not isinstance(observations, list):  # a string would be one memory per character
                found.problems.append(
                    f"{where}:{number}: entity {name}: `observations` is {kind_of(observations)}, "
                    "expected a list of strings; skipped"
                )
                continue
            for observation in observations:
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
