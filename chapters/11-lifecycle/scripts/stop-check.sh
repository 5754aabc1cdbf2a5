#!/bin/sh
# Stop: the first final answer is refused (exit 2: stderr goes back to the
# model); once the run goes on because of that (stop_hook_active), the end
# is allowed, so the hook can never keep the loop going by itself.
input=$(cat)
case "$input" in
*'"stop_hook_active":true'*) exit 0 ;;
esac
echo "Not yet: run ./run-tests.sh and quote its result before you answer." >&2
exit 2
