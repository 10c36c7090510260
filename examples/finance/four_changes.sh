#!/usr/bin/env bash
# The personal-finance assistant that remembered too much (SCENARIOS.md, story 3): the four changes of
# its rebuild, replayed from a raw conversation log and measured before and after.
#
# turns.tsv is the log: 50 turns (user and assistant) in 8 sessions, March to August 2026. For each user
# turn it also holds the keyed fact the rebuilt assistant extracts from it, if any, and for each session
# the episode summary the rebuilt assistant writes when the session ends.
#
# BEFORE, the old design: every turn stored as it came, retrieved as the top 10 by similarity. It had no
#   write path, so here each turn is written straight into a scratch home as an episode file, and
#   `mem recall` ranks them with decay off.
# AFTER, the same log through `mem`, with the four changes:
#   1. keyed facts (goal, risk_tolerance, income_band, …) apart from episodes;
#   2. supersession: a newer statement supersedes the old value, which stays as history;
#   3. recency weighting of episodes: exp(-age_days/45), a half-life of 31 days;
#   4. the write guard: instruction-shaped values are refused at write.
# Then the August question, "How should I invest my bonus?", against both, and a before/after table.
#
# Needs `mem` on PATH and git; uses its own temporary homes and sets $MEM_NOW per step. Exits 1 if the
# August block holds a superseded fact or an instruction-shaped memory was stored.
set -euo pipefail

log="$(cd "$(dirname "$0")" && pwd)/turns.tsv"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export MEM_USER=dana
BEFORE="$work/before"
AFTER="$work/after"
QUESTION="How should I invest my bonus?"
ASKED=2026-08-20
HALF_LIFE=31 # days: exp(-age/45) = exp(-age·ln2/31.2)

turns() { tail -n +2 "$log"; } # the log without its header line
tokens() { sed -n 's/^block: \([0-9]*\) tokens.*/\1/p'; } # from `mem recall --explain`'s last line
instruction_shaped() {                                  # files holding text the write guard refuses (MEM1xx errors)
  { mem lint --select MEM1 --format json "$1" || true; } |
    awk -F'"' '/"path":/ {path = $4} /"severity": "error"/ {print path}' | sort -u | wc -l | tr -d ' '
}

sessions=$(turns | cut -f3 | sort -u | wc -l | tr -d ' ')
printf 'The personal-finance assistant that remembered too much, replayed from %s:\n' "examples/finance/turns.tsv"
printf '%s turns in %s sessions, March to August 2026; then in August: "%s"\n\n' \
  "$(turns | cut -f4 | grep -vcx summary)" "$sessions" "$QUESTION"
printf '== BEFORE: every turn stored, top 10 by similarity ==\n'
mem init "$BEFORE" >/dev/null
while IFS=$'\t' read -r turn date session role text _; do
  [ "$role" = summary ] && continue # the old design wrote no summaries
  folder="$BEFORE/users/dana/episodes/${date:0:4}/${date:5:2}"
  mkdir -p "$folder"
  printf -- '---\nid: e-%012x\nscope: user:dana\nsession: %s\nstarted_at: %s\nsource: import\n---\n%s\n' \
    "$turn" "$session" "$date" "$text" >"$folder/${date}T00-00-00Z-turn-$(printf %02d "$turn").md"
done < <(turns)
before_memories=$(find "$BEFORE/users/dana/episodes" -name '*.md' | wc -l | tr -d ' ')
echo "stored $before_memories turns for dana, as they came (no keys, no guard)"

printf '\n== AFTER: the same log through mem ==\n'
mem init "$AFTER" >/dev/null
export MEM_HOME="$AFTER"
session_seen=""
while IFS=$'\t' read -r turn date session role text key subject value; do
  export MEM_NOW="$date"
  if [ "$session" != "$session_seen" ]; then
    printf '\n### %s, session %s\n' "$date" "$session"
    session_seen="$session"
  fi
  if [ "$role" = summary ]; then # change 1: what happened is an episode, one per session
    stale=()
    [ "$key" != "-" ] && stale=(--invalidates "$key=$value")
    mem episode "$text" --session "$session" --at "$date" --outcome success ${stale[@]+"${stale[@]}"} >/dev/null
    printf '  episode   %s%s\n' "$text" "${stale[@]+ (invalidates $key)}"
    continue
  fi
  [ "$key" = "-" ] && continue # questions, answers, small talk: in the session's episode, not facts
  # changes 1, 2 and 4: a keyed fact through the guarded write path
  outcome=$(mem add "$key" "$value" --subject "$subject" --at "$date" --ref "session $session, turn $turn") || true
  printf '  turn %-3s %s = "%s": %s\n' "$turn" "$key" "$value" "$outcome"
done < <(turns)

export MEM_NOW="$ASKED"
printf '\n== %s: "%s" ==\n' "$ASKED" "$QUESTION"
printf '\nBEFORE, the top 10 turns by similarity (March: "any bonus goes to the deposit" comes first, so the\n'
printf 'answer is "keep it liquid for your house deposit", six weeks after the flat was bought):\n'
before_args=(--home "$BEFORE" recall "$QUESTION" --kind episodes -k 10 --half-life 0 --min-score 0)
explained=$(mem "${before_args[@]}" --explain)
sed '/^<\/memories>$/q' <<<"$explained"
before_tokens=$(tokens <<<"$explained")
# Turns whose fact a later turn changed: what supersession would have retired.
stale_turns=$(awk -F'\t' 'NR > 1 && $4 == "user" && $6 != "-" && $6 != "constraint" {
  turn[NR] = $1; key[NR] = $6; value[NR] = $8; latest[$6] = $8 }
  END { for (r in turn) if (value[r] != latest[key[r]]) print turn[r] }' "$log")
before_stale=0
for hex in $(grep -o 'e-[0-9a-f]\{12\}' <<<"$explained" | cut -c3-); do # ids from the --explain table
  if grep -qx "$((16#$hex))" <<<"$stale_turns"; then before_stale=$((before_stale + 1)); fi
done
before_instructions=$(instruction_shaped "$BEFORE")

printf '\nAFTER (change 3), the episodes for the question without decay, then with a %s-day half-life:\n' "$HALF_LIFE"
mem recall "$QUESTION" --kind episodes -k 3 --half-life 0 | sed -n '2,4p'
echo "  ---"
mem recall "$QUESTION" --kind episodes -k 3 --half-life "$HALF_LIFE" | sed -n '2,4p'

printf '\nAFTER, the block the assistant gets (facts never decay; superseded ones are history):\n'
explained=$(mem recall "$QUESTION" --half-life "$HALF_LIFE" --explain)
after_block=$(sed '/^<\/memories>$/q' <<<"$explained")
printf '%s\n' "$after_block"
after_tokens=$(tokens <<<"$explained")
facts_json=$(mem show --all --json)
after_facts=$(grep -cE '"status": "(active|conflict)"' <<<"$facts_json" || true)
after_episodes=$(find "$AFTER/users/dana/episodes" -name '*.md' | wc -l | tr -d ' ')
after_stale=0
while IFS= read -r old; do
  [ -n "$old" ] && grep -qF "value=\"$old\"" <<<"$after_block" && after_stale=$((after_stale + 1))
done < <(awk -F'"' '/"value":/ {value = $4} /"status": "superseded"/ {print value}' <<<"$facts_json")
after_instructions=$(instruction_shaped "$AFTER")

printf '\nThe goal, now and as believed on 1 May:\n'
mem recall goal --kind facts | sed -n 2p
mem recall goal --kind facts --as-of 2026-05-01 | sed -n 2p

printf '\n== before and after ==\n'
row() { printf '%-39s %-12s %-22s %s\n' "$@"; }
row "" before after "changed by"
row "memories stored for dana" "$before_memories turns" "$after_facts facts + $after_episodes episodes" "1. keyed facts apart from episodes"
row "tokens per request (the August block)" "$before_tokens" "$after_tokens" "1 and 3 (recency weighting)"
row "superseded facts in the August block" "$before_stale" "$after_stale" "2. supersession"
row "instruction-shaped memories stored" "$before_instructions" "$after_instructions" "4. the write guard"
echo "(tokens: the offline estimate of \`mem recall --explain\`; superseded: turns whose fact a later turn changed)"

if [ "$after_stale" -ne 0 ] || [ "$after_instructions" -ne 0 ]; then
  echo "FAIL: the rebuilt memory rendered a superseded fact or stored an instruction" >&2
  exit 1
fi
