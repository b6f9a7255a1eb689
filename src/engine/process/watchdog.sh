#!/bin/sh
# A race's watchdog (watchdog.ts): sh -c <this> hydra-watchdog <run id> <grace in tenths of a
# second> <marker variable>, stdin a pipe from hydra. Comment lines are dropped before it runs.
run=$1
tenths=$2
marker=$3
# Blocks until hydra says the race is over, or is gone (end of file).
IFS= read -r line
[ "$line" = 'done' ] && exit 0
# The run's processes: those whose environment holds the marker.
pids() { grep -lzx "$marker=$run" /proc/[0-9]*/environ 2>/dev/null | sed 's#^/proc/##; s#/environ$##'; }
list=$(pids)
[ -n "$list" ] || exit 0
# shellcheck disable=SC2086 # one argument per pid
kill -TERM $list 2>/dev/null
waited=0
while [ "$waited" -lt "$tenths" ] && [ -n "$(pids)" ]; do
  sleep 0.1
  waited=$((waited + 1))
done
list=$(pids)
# shellcheck disable=SC2086 # one argument per pid
[ -z "$list" ] || kill -KILL $list 2>/dev/null
exit 0
