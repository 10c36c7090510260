#!/usr/bin/env bash
# The support agent that asks again (SCENARIOS.md, story 1), replayed with `mem`.
#
# Session 1 (2026-09-01): the user says they are on the Enterprise plan and want email notifications
# only, and asks where order O-4471 is. Session 2 (the next day): "Set up an alert for me." Without
# memory the agent asks for the plan and the channel again; with memory both are in the block it gets
# at the start of session 2, so it does not ask.
#
# Needs `mem` on PATH and git (no git identity, nothing in ~). Uses its own temporary home and sets
# $MEM_NOW per step. Exits 1 if session 2's block lacks either fact.
set -euo pipefail

MEM_HOME="$(mktemp -d)"
export MEM_HOME
trap 'rm -rf "$MEM_HOME"' EXIT
export MEM_USER=alice

say() { printf '  %-7s %s\n' "$1:" "$2"; }
run() { # show a command (quoted as you would type it), run it, indent what it prints
  local shown="" arg
  for arg in "$@"; do
    case "$arg" in *[[:space:]\;]*) shown+=" \"$arg\"" ;; *) shown+=" $arg" ;; esac
  done
  printf '  $%s\n' "$shown"
  "$@" | sed 's/^/    /'
}

mem init >/dev/null
echo "memfiles: long-term memory for agents, in markdown files in a git repository."
echo "A support agent across two sessions, with a fresh memory home in $MEM_HOME."

export MEM_NOW=2026-09-01T10:00:00Z
printf '\n── Session 1 · %s ──────────────────────────────\n' "${MEM_NOW:0:10}"
say user "We're on the Enterprise plan. And please, email notifications only."
say agent "Noted. (It remembers two keyed facts.)"
run mem add plan_tier Enterprise --subject account_state --ref "session s-1, turn 1"
run mem add notification_channel email --ref "session s-1, turn 1"
say user "Where is my order O-4471?"
say agent "It is in transit, last scanned in Toronto. (At the end of the session it records what happened.)"
run mem episode "Asked where order O-4471 is; looked it up: in transit, last scanned in Toronto." \
  --session s-1 --entity "order O-4471" --event "looked up the shipment" --outcome success

export MEM_NOW=2026-09-02T09:00:00Z
printf '\n── Session 2 · %s ──────────────────────────────\n' "${MEM_NOW:0:10}"
echo "  Before the first message, the agent's prompt gets the memory block (\`mem render\`; the Claude Code"
echo "  hook \`mem recall --hook\` prints the same at session start):"
block=$(mem render)
printf '%s\n' "$block" | sed 's/^/    /'
say user "Set up an alert for me."

known=()
for key in plan_tier notification_channel; do
  value=$(sed -n "s/.*key=$key · .*value=\"\([^\"]*\)\".*/\1/p" <<<"$block")
  if [ -z "$value" ]; then
    echo "FAIL: session 2's block does not hold $key" >&2
    exit 1
  fi
  known+=("$key = $value")
done
say agent "Done: an alert for your Enterprise account, sent by email."
say user "Any news on my order?"
say agent "(Recalls what is relevant to the message.)"
run mem recall "any news on my order?"
say agent "Yesterday order O-4471 was in transit in Toronto; let me check where it is now."
printf '\nWithout memory the agent would ask "Which plan are you on?" and "Email or SMS?" again.\n'
printf 'With memory it no longer needs to ask for: %s; %s.\n' "${known[0]}" "${known[1]}"

printf '\nEverything is plain files and git commits:\n'
run git -C "$MEM_HOME" log --format=%s
printf '\nNext: `mem --help`, the README (Claude Code hooks, `mem mcp`), examples/finance/four_changes.sh.\n'
