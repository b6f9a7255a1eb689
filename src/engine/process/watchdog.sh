#!/bin/sh
# A race's watchdog (watchdog.ts): sh -c <this> hydra-watchdog <run id> <grace in tenths of a
# second> <marker variable> <container label> <helper marker variable> <this hydra's helper
# marker> <table>, stdin a pipe from hydra. <table>: `proc` (read /proc), or the option that makes
# ps print environments (`-E` on macOS, `-e` on the BSDs). Comment lines are dropped before it runs.
run=$1
tenths=$2
marker=$3
label=$4
helper=$5
owner=$6
table=$7
# The engine hosts where the race started containers, one a line: hydra writes `host <host>` for
# each (`host ` alone: the engine of the environment). The process groups hydra started and has
# not seen end: `group <pgid>`, then `ended <pgid>`. Blocks until hydra says the race is over
# (`done`), or is gone (end of file).
hosts=''
announced=0
groups=' '
while IFS= read -r line; do
  case $line in
    done) exit 0 ;;
    'host '*)
      announced=1
      hosts="$hosts${line#host }
"
      ;;
    'group '*[!0-9]* | 'ended '*[!0-9]*) ;;
    'group '?*) groups="$groups${line#group } " ;;
    'ended '?*)
      pgid=${line#ended }
      case $groups in
        *" $pgid "*) groups="${groups%%" $pgid "*} ${groups#*" $pgid "}" ;;
      esac
      ;;
  esac
done
# The run's processes: those whose environment holds the marker; and the sandbox library's
# helpers that this hydra started (its socat bridges, sandbox/helper-marker.ts). Without /proc, ps
# prints each environment after the command, a word a variable.
pids() {
  if [ "$table" = proc ]; then
    grep -lzx -e "$marker=$run" -e "$helper=$owner" /proc/[0-9]*/environ 2>/dev/null | sed 's#^/proc/##; s#/environ$##'
  else
    ps -axww "$table" -o pid=,command= 2>/dev/null |
      awk -v run="$marker=$run" -v helper="$helper=$owner" '{ for (i = 2; i <= NF; i++) if ($i == run || $i == helper) { print $1; next } }'
  fi
}
# The recorded process groups that still have a member.
live_groups() {
  for pgid in $groups; do
    kill -0 "-$pgid" 2>/dev/null && printf '%s ' "$pgid"
  done
}
signal_all() {
  # shellcheck disable=SC2086 # one argument per pid
  [ -z "$1" ] || kill "-$2" $1 2>/dev/null
  for pgid in $3; do
    kill "-$2" "-$pgid" 2>/dev/null
  done
}
list=$(pids)
# The Unix sockets the helpers listen on, read before they end: socat removes its own on SIGTERM,
# not on SIGKILL (the helpers are Linux's: without /proc there are none).
sockets=''
[ "$table" = proc ] && sockets=$(grep -lzx "$helper=$owner" /proc/[0-9]*/environ 2>/dev/null | sed 's#/environ$#/cmdline#' |
  while IFS= read -r file; do tr '\0' '\n' <"$file" 2>/dev/null | sed -n 's/^UNIX-LISTEN:\([^,]*\),.*/\1/p'; done)
alive=$(live_groups)
if [ -n "$list$alive" ]; then
  signal_all "$list" TERM "$alive"
  # Every tenth of a second with /proc; ps costs more, so every half second with it.
  step=1
  [ "$table" = proc ] || step=5
  waited=0
  while [ "$waited" -lt "$tenths" ] && [ -n "$(pids)$(live_groups)" ]; do
    sleep "0.$step"
    waited=$((waited + step))
  done
  signal_all "$(pids)" KILL "$(live_groups)"
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
