#!/usr/bin/env bash
# sshd-test.sh DIR PORT runs a real OpenSSH server on 127.0.0.1:PORT in the
# foreground, for the SSH server's end-to-end tests. It needs root (it adds
# users and a sudoers drop-in) and openssh-server + sudo (scripts/deps.sh).
#
# It sets up, idempotently:
#   - two users with /bin/bash: mcptray-sudo (sudo asks for the password) and
#     mcptray-nopw (sudo NOPASSWD), both with the password read from
#     $SSHD_TEST_PASSWORD (through chpasswd's stdin, never argv);
#   - $SSHD_TEST_AUTHORIZED_KEY (one public key line), when set, in both
#     users' ~/.ssh/authorized_keys;
#   - /etc/sudoers.d/mcptray-test (checked with visudo);
#   - host keys (ed25519 and ecdsa) and sshd_config in DIR: key and password
#     logins, no PAM, listening on 127.0.0.1 only.
# Then it execs sshd -D -e: the caller stops it with SIGTERM; its log goes
# to stderr.
set -euo pipefail

if (($# != 2)); then
	echo "usage: $0 DIR PORT" >&2
	exit 2
fi
dir=$1
port=$2
: "${SSHD_TEST_PASSWORD:?SSHD_TEST_PASSWORD must be set}"
[[ $(id -u) -eq 0 ]] || { echo "sshd-test: must run as root" >&2; exit 1; }
[[ -x /usr/sbin/sshd ]] || { echo "sshd-test: /usr/sbin/sshd is missing (run scripts/deps.sh)" >&2; exit 1; }
command -v sudo >/dev/null || { echo "sshd-test: sudo is missing (run scripts/deps.sh)" >&2; exit 1; }

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

for user in mcptray-sudo mcptray-nopw; do
	id "$user" >/dev/null 2>&1 || useradd --create-home --shell /bin/bash "$user"
	printf '%s:%s\n' "$user" "$SSHD_TEST_PASSWORD" | chpasswd
	home=$(getent passwd "$user" | cut -d: -f6)
	install -d -m 0700 -o "$user" -g "$user" "$home/.ssh"
	if [[ -n ${SSHD_TEST_AUTHORIZED_KEY:-} ]]; then
		printf '%s\n' "$SSHD_TEST_AUTHORIZED_KEY" >"$home/.ssh/authorized_keys"
		chown "$user:$user" "$home/.ssh/authorized_keys"
		chmod 0600 "$home/.ssh/authorized_keys"
	fi
done

sudoers=$(mktemp)
cat >"$sudoers" <<'EOF'
# mcptray's SSH tests (scripts/sshd-test.sh)
Defaults:mcptray-sudo lecture=never
Defaults:mcptray-nopw lecture=never
mcptray-sudo ALL=(ALL:ALL) ALL
mcptray-nopw ALL=(ALL:ALL) NOPASSWD: ALL
EOF
visudo -cqf "$sudoers"
install -m 0440 "$sudoers" /etc/sudoers.d/mcptray-test
rm -f "$sudoers"

for type in ed25519 ecdsa; do
	[[ -f $dir/ssh_host_${type}_key ]] || ssh-keygen -q -t "$type" -N '' -C "mcptray-test" -f "$dir/ssh_host_${type}_key"
done

cat >"$dir/sshd_config" <<EOF
ListenAddress 127.0.0.1
Port $port
HostKey $dir/ssh_host_ed25519_key
HostKey $dir/ssh_host_ecdsa_key
PidFile $dir/sshd.pid
UsePAM no
PasswordAuthentication yes
KbdInteractiveAuthentication no
PubkeyAuthentication yes
PermitRootLogin no
AllowUsers mcptray-sudo mcptray-nopw
Subsystem sftp internal-sftp
LogLevel INFO
EOF

# sshd's privilege separation directory.
install -d -m 0755 /run/sshd
exec /usr/sbin/sshd -D -e -f "$dir/sshd_config"
