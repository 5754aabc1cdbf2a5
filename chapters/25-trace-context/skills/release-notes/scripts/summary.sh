#!/bin/sh
# Summarises the change log (assets/changes.tsv: a date, a kind and a
# sentence on each line, tab-separated, newest first) for release notes:
# how many changes of each kind since a date, and the newest of each.
# The model reads what this prints, a few lines, and never the log.
set -eu
here=$(dirname "$0")
log="$here/../assets/changes.tsv"
since=${1:-0000-00-00}
case "$since" in
    [0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]) ;;
    *) echo "summary.sh: give the date as YYYY-MM-DD, not $since" >&2; exit 2 ;;
esac
awk -F '\t' -v since="$since" '
    $1 >= since {
        total++
        count[$2]++
        if (!($2 in newest)) newest[$2] = $3
        if (first == "" || $1 < first) first = $1
    }
    END {
        if (total == 0) { print "no changes since " since; exit }
        printf "%d changes, %s to the newest\n", total, first
        split("added changed fixed removed", kinds, " ")
        for (i = 1; i <= 4; i++) {
            kind = kinds[i]
            if (kind in count)
                printf "%s %d, the newest: %s\n", kind, count[kind], newest[kind]
        }
    }
' "$log"
