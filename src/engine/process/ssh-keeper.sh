#!/bin/sh
# The SSH connection hydra keeps to an ssh:// engine (ssh-connection.ts): sh -c <this> hydra-ssh
# <private dir> <ssh command...>, stdin a pipe from hydra that hydra never closes while it runs.
# Comment lines are dropped before it runs.
dir=$1
shift
# hydra's end of the pipe, kept as fd 3: an asynchronous list's stdin is /dev/null.
exec 3<&0
# The master connection, `ssh -M -N`, in the background of this shell.
"$@" </dev/null >/dev/null 2>&1 3<&- &
master=$!
# End of file (hydra is gone, however it ended: the kernel closes its end) or a line: the master
# goes. hydra's docker calls are over by then; the watchdog's, after a kill -9, connect on their own.
(
  read -r _ <&3
  kill -TERM "$master" 2>/dev/null
) &
reader=$!
exec 3<&-
# The master ends (asked to, or the connection dropped): nothing of it stays behind.
wait "$master"
kill -TERM "$reader" 2>/dev/null
rm -rf "$dir"
