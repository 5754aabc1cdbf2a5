#!/bin/sh
# SessionStart: plain stdout is context for the model's first message.
echo "Project rule: before you say the release is ready, run ./run-tests.sh and quote its result."
