#!/usr/bin/env bash
# An sshd on 127.0.0.1 through which the ssh:// container tests reach this machine's engine
# (test/system/container/ssh-engine.test.ts): `bash scripts/test-sshd.sh <dir>`, run by .ci/run, and by the
# test itself where .ci/run has not run. Everything is made in <dir> (new, 0700): host keys, a key
# pair for the test, sshd_config and the pid file; ssh_config and bin/ssh, a wrapper that runs ssh
# with `-F ssh_config` (that key, that known_hosts, batch mode), so the user's ~/.ssh, which OpenSSH
# finds from the passwd entry whatever HOME says, is neither read nor written; and `address`,
# ssh://<user>@127.0.0.1:<port>. A test puts <dir>/bin first on PATH: the docker CLI and hydra find
# ssh there. Stop it with `kill "$(cat <dir>/sshd.pid)"`. Exit 2: no sshd or ssh here. More
# arguments are more sshd_config lines (a test of a server that refuses something).
set -euo pipefail
dir=$1
shift
sshd=$(command -v sshd || true)
[ -n "$sshd" ] || [ ! -x /usr/sbin/sshd ] || sshd=/usr/sbin/sshd
ssh=$(command -v ssh || true)
if [ -z "$sshd" ] || [ -z "$ssh" ]; then
  echo "test-sshd: no sshd or ssh on this machine (Debian: apt-get install openssh-server openssh-client)" >&2
  exit 2
fi
user=$(id -un)
mkdir -p "$dir/bin"
chmod 700 "$dir"
ssh-keygen -q -t ed25519 -N '' -C hydra-test-host -f "$dir/host_key"
ssh-keygen -q -t ed25519 -N '' -C hydra-test-client -f "$dir/client_key"
cp "$dir/client_key.pub" "$dir/authorized_keys"
# root's sshd needs its privilege separation directory.
[ "$(id -u)" != 0 ] || mkdir -p /run/sshd
# A free port: sshd binds before it goes to the background, and exits non-zero when it cannot.
port=''
for _ in $(seq 1 20); do
  candidate=$((20000 + RANDOM % 40000))
  # The extra lines first: sshd takes the first value it reads for a keyword.
  : >"$dir/sshd_config"
  for line in "$@"; do printf '%s\n' "$line" >>"$dir/sshd_config"; done
  cat >>"$dir/sshd_config" <<EOF
Port $candidate
ListenAddress 127.0.0.1
HostKey $dir/host_key
AuthorizedKeysFile $dir/authorized_keys
PidFile $dir/sshd.pid
StrictModes no
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
UsePAM no
MaxStartups 100:30:200
LogLevel ERROR
EOF
  if "$sshd" -f "$dir/sshd_config" -E "$dir/sshd.log"; then
    port=$candidate
    break
  fi
done
if [ -z "$port" ]; then
  echo "test-sshd: sshd did not start; its log ($dir/sshd.log):" >&2
  tail -n 20 "$dir/sshd.log" >&2 || true
  exit 1
fi
printf '[127.0.0.1]:%s %s\n' "$port" "$(cat "$dir/host_key.pub")" >"$dir/known_hosts"
cat >"$dir/ssh_config" <<EOF
Host *
  IdentityFile $dir/client_key
  IdentitiesOnly yes
  UserKnownHostsFile $dir/known_hosts
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking yes
  BatchMode yes
EOF
printf '#!/bin/sh\nexec '\''%s'\'' -F '\''%s'\'' "$@"\n' "$ssh" "$dir/ssh_config" >"$dir/bin/ssh"
chmod 755 "$dir/bin/ssh"
for _ in $(seq 1 50); do
  [ -s "$dir/sshd.pid" ] && break
  sleep 0.1
done
"$dir/bin/ssh" -p "$port" "$user@127.0.0.1" true
printf 'ssh://%s@127.0.0.1:%s\n' "$user" "$port" >"$dir/address"
