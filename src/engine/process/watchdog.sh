#!/bin/sh
# A race's watchdog (watchdog.ts): sh -c <this> hydra-watchdog <run id> <grace in tenths of a
# second> <marker variable> <container label> <helper marker variable> <this hydra's helper
# marker>, stdin a pipe from hydra. Comment lines are dropped before it runs.
run=$1
tenths=$2
marker=$3
label=$4
helper=$5
owner=$6
# The engine hosts where the race started containers, one a line: hydra writes `host <host>` for
# each (`host ` alone: the engine of the environment). Blocks until hydra says the race is over
# (`done`), or is gone (end of file).
hosts=''
announced=0
while IFS= read -r line; do
  case $line in
    done) exit 0 ;;
    'host '*)
      announced=1
      hosts="$hosts${line#host }
"
      ;;
  esac
done
# The run's processes: those whose environment holds the marker; and the sandbox library's
# helpers that this hydra started (its socat bridges, sandbox/helper-marker.ts).
pids() {
  grep -lzx -e "$marker=$run" -e "$helper=$owner" /proc/[0-9]*/environ 2>/dev/null | sed 's#^/proc/##; s#/environ$##'
}
list=$(pids)
# The Unix sockets the helpers listen on, read before they end: socat removes its own on SIGTERM,
# not on SIGKILL.
sockets=$(grep -lzx "$helper=$owner" /proc/[0-9]*/environ 2>/dev/null | sed 's#/environ$#/cmdline#' |
  while IFS= read -r file; do tr '\0' '\n' <"$file" 2>/dev/null | sed -n 's/^UNIX-LISTEN:\([^,]*\),.*/\1/p'; done)
if [ -n "$list" ]; then
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
fi
printf '%s\n' "$sockets" | while IFS= read -r socket; do
  [ -S "$socket" ] && rm -f "$socket"
done
[ "$announced" = 1 ] || exit 0
# The run's containers and volumes on each host, by label; the volumes labelled to be kept (an
# agent's session store, for `hydra continue`) stay for `hydra clean`. A host hydra checked is an
# argument, never code; an engine that does not answer costs at most 30 s a call.
limit=''
command -v timeout >/dev/null 2>&1 && limit='timeout 30'
engine() {
  at=$1
  shift
  # shellcheck disable=SC2086 # $limit is a command and its argument, or nothing
  if [ -z "$at" ]; then $limit docker "$@"; else $limit docker --host="$at" "$@"; fi
}
printf '%s' "$hosts" | sort -u | while IFS= read -r host; do
  case $host in
    *[!A-Za-z0-9._~:/@%+=,\[\]-]*) continue ;;
    '' | *://*) ;;
    *) continue ;;
  esac
  ids=$(engine "$host" ps -aq --filter "label=$label=$run" 2>/dev/null)
  # shellcheck disable=SC2086 # one argument per container id
  [ -z "$ids" ] || engine "$host" rm -f -v $ids >/dev/null 2>&1
  volumes=$(engine "$host" volume ls --filter "label=$label=$run" --format '{{.Name}} {{.Label "io.hydra.keep"}}' 2>/dev/null | sed -n 's/^\([^ ]*\) *$/\1/p')
  # shellcheck disable=SC2086 # one argument per volume name
  [ -z "$volumes" ] || engine "$host" volume rm -f $volumes >/dev/null 2>&1
done
exit 0
