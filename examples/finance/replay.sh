#!/usr/bin/env bash
# The personal-finance assistant that remembered too much (SCENARIOS.md, story 3), replayed with `mem`.
#
# March: "I'm saving for a house deposit." July 11: the user buys a flat (an episode that makes the
# goal stale). July 18: a new goal, and `mem consolidate` applies the episodes: the purchase
# supersedes the deposit goal, the new goal becomes active, the March episode folds into a digest.
# August: "How should I invest my bonus?" The old design retrieved the March goal and advised keeping
# the money liquid "for your house deposit"; here the superseded goal is history, so the August block
# cannot mention it.
#
# Needs `mem` on PATH and git. Uses its own temporary home and clock ($MEM_NOW per step); exits 1 if
# the August block mentions the house deposit or is over 480 estimated tokens.
set -euo pipefail

MEM_HOME="$(mktemp -d)/home"
export MEM_HOME
trap 'rm -rf "$(dirname "$MEM_HOME")"' EXIT
export MEM_USER=dana

step() { printf '\n### %s: %s\n' "$MEM_NOW" "$1"; }

mem init >/dev/null

export MEM_NOW=2026-03-14
step "the user states a goal and how they invest"
mem add goal "save for house deposit" --subject goal --ref "session s-3, turn 2"
mem add risk_tolerance "moderate, happy investing in index funds" --subject user_attribute
mem episode "Talked about saving for a house deposit; set up a monthly transfer into a savings account." \
  --session s-3 --entity "house deposit" --outcome success --fact goal="save for house deposit"

export MEM_NOW=2026-06-20
step "an ordinary session about investing"
mem episode "Reviewed the index fund portfolio: returns on track, no change to how the user invests." \
  --session s-19 --entity portfolio --outcome success

export MEM_NOW=2026-07-11T16:00:00Z
step "the property purchase (an episode that makes the goal stale)"
mem episode "The user completed the purchase of their flat; the house deposit was paid from savings." \
  --session s-27 --at 2026-07-11T15:30:00Z --entity "property purchase" \
  --event "the user confirmed completion of the purchase" --event "the deposit left the savings account" \
  --outcome success --invalidates goal="bought the house"

export MEM_NOW=2026-07-18
step "a new goal; consolidation applies the episodes: the purchase supersedes the deposit goal"
mem episode --from-json - <<'JSON'
{"summary": "Now that the flat is bought, the user wants to build an emergency fund first.",
 "session": "s-28", "entities": ["emergency fund"], "outcome": "success",
 "facts": [{"key": "goal", "value": "build emergency fund", "subject": "goal", "confidence": "stated"}]}
JSON
mem consolidate
mem history goal

export MEM_NOW=2026-08-20
step "How should I invest my bonus?"
block=$(mem recall "investing a bonus")
printf '%s\n' "$block"
mem recall "investing a bonus" --explain | tail -n 1
tokens=$(mem recall "investing a bonus" --explain | sed -n 's/^block: \([0-9]*\) tokens.*/\1/p')

step "what we believe about the goal now, and what we believed on 1 May"
mem recall goal --kind facts
mem recall goal --kind facts --as-of 2026-05-01

if grep -qi "house deposit" <<<"$block"; then
  echo "FAIL: the August block mentions the house deposit" >&2
  exit 1
fi
if [ "$tokens" -gt 480 ]; then
  echo "FAIL: the August block is $tokens estimated tokens, over 480" >&2
  exit 1
fi
printf '\nOK: no house deposit in the August block; %s estimated tokens (limit 480)\n' "$tokens"
