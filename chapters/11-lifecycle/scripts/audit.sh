#!/bin/sh
# PostToolUse: every Bash call that ran goes into an audit log, one JSON
# line each, outside anything the model is shown.
cat >> "$CLAUDE_PROJECT_DIR/.claude/audit.jsonl"
echo >> "$CLAUDE_PROJECT_DIR/.claude/audit.jsonl"
