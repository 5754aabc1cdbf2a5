#!/bin/bash
# A PreToolUse hook for Bash: blocks any command that starts with rm.
# Claude Code's canonical example, plus one line that makes it fail
# closed: without jq it cannot read the command, so it blocks everything.
if ! command -v jq >/dev/null 2>&1; then
  echo "Blocked: jq is not installed, so this hook cannot read the command" >&2
  exit 2
fi
input=$(cat)
command=$(jq -r '.tool_input.command' <<<"$input") || {
  echo "Blocked: the hook could not read the tool input" >&2
  exit 2
}
if [[ "$command" == rm* ]]; then
  echo "Blocked: rm commands are not allowed" >&2
  exit 2
fi
exit 0
