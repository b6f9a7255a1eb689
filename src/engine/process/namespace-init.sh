#!/bin/sh
# PID 1 of an agent's PID namespace (containment.ts): sh -c <this> hydra-init <status file>
# <grace in seconds, or off> <n> [<mount program> <drop> <uid> <gid> (<overlay options> <target>) x n]
# <file> <args...>. <drop>: the unshare that maps the agent back to the user's ids, or -.
# Comment lines are dropped before it runs.
status=$1
grace=$2
mounts=$3
shift 3
drop=-
# The shared directories (share-mount.ts), mounted in this namespace only: no other process sees them.
if [ "$mounts" -gt 0 ]; then
  mounter=$1
  drop=$2
  uid=$3
  gid=$4
  shift 4
  while [ "$mounts" -gt 0 ]; do
    if ! "$mounter" -t overlay hydra-share -o "$1" "$2"; then printf '{"exitCode":null,"spawnError":"EMOUNT"}' >"$status"; exit 126; fi
    shift 2
    mounts=$((mounts - 1))
  done
fi
# The agent's file is a path (containedCommand resolved it), never a builtin or function.
case $1 in
  */*) ;;
  *) printf '{"exitCode":null,"spawnError":"ENOENT"}' >"$status"; exit 127 ;;
esac
if [ ! -e "$1" ]; then printf '{"exitCode":null,"spawnError":"ENOENT"}' >"$status"; exit 127; fi
if [ -d "$1" ] || [ ! -x "$1" ]; then printf '{"exitCode":null,"spawnError":"EACCES"}' >"$status"; exit 126; fi
# The namespace's watchdog: end of file on fd 3 means hydra is gone; deaf to the group's signals.
if [ "$grace" != off ]; then (trap "" TERM INT HUP QUIT; read -r _ <&3; kill -TERM -1; sleep "$grace"; kill -KILL -1) & fi
if [ "$drop" = - ]; then
  "$@" 3<&-
else
  "$drop" --user --map-user="$uid" --map-group="$gid" -- "$@" 3<&-
fi
code=$?
printf '{"exitCode":%d}' "$code" >"$status"
exit "$code"
