#!/usr/bin/env bash
# Installs the Debian packages the test suite needs when they are missing, and makes sure
# PostgreSQL and Redis answer. Idempotent: on a prepared machine it only checks.
set -euo pipefail

need=()
have() { command -v "$1" >/dev/null 2>&1; }
have clang || need+=(clang)
have clang-format || need+=(clang-format)
have llc || need+=(llvm)
[ -f /usr/include/bpf/bpf_helpers.h ] || need+=(libbpf-dev)
have bpftool || need+=(bpftool)
have tc || need+=(iproute2)
have nft || need+=(nftables)
# The iptables fallback of fw3 routers, tested with both backends (test/e2e/datapath/iptables-e2e.test.ts).
{ have iptables-legacy && have iptables-nft; } || need+=(iptables)
have tcpdump || need+=(tcpdump)
have iperf3 || need+=(iperf3)
have ping || need+=(iputils-ping)
have ethtool || need+=(ethtool)
# test/e2e/datapath/tx-ring-send.py (frames with their headers in page fragments)
have python3 || need+=(python3)
[ -x /usr/sbin/sshd ] || need+=(openssh-server)
have ssh-keygen || need+=(openssh-client)
have chromium || need+=(chromium)
# promtool checks the /metrics exposition.
have promtool || need+=(prometheus)
# The load-balancer test puts Debian's HAProxy in front of two replicas (docs/SCALING.md).
[ -x /usr/sbin/haproxy ] || need+=(haproxy)
have redis-server || need+=(redis-server)
# The restart tests run a PostgreSQL cluster of their own (initdb, pg_ctl): test/support/private-postgres.ts.
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || need+=(postgresql)
# wf-tcx cross-built for routers (bpf/build.sh) and run under qemu-user in its test.
for triple in mipsel-linux-gnu mips-linux-gnu aarch64-linux-gnu; do have "$triple-gcc" || need+=("gcc-$triple"); done
[ -f /usr/mipsel-linux-gnu/lib/libc.a ] || need+=(libc6-dev-mipsel-cross)
[ -f /usr/mips-linux-gnu/lib/libc.a ] || need+=(libc6-dev-mips-cross)
[ -f /usr/aarch64-linux-gnu/lib/libc.a ] || need+=(libc6-dev-arm64-cross)
have qemu-mipsel-static || need+=(qemu-user-static)
# The router lab (lab/, test/lab/): real MIPS kernels under QEMU's system emulation; the image
# scripts install what only their builds need (cross compilers' extras, kernel build tools).
have qemu-system-mipsel || need+=(qemu-system-mips)
have cpio || need+=(cpio)
have socat || need+=(socat)

if ((${#need[@]})); then
  echo "test setup: installing ${need[*]}"
  if [ "$(id -u)" != 0 ]; then
    echo "test setup: root is needed to install packages and to run the kernel tests" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

# The kernel tests pin BPF objects; bpffs is mounted on most systems, not all containers.
if ! mount | grep -q ' /sys/fs/bpf type bpf'; then
  mount -t bpf bpf /sys/fs/bpf 2>/dev/null || echo "test setup: could not mount bpffs at /sys/fs/bpf" >&2
fi

if ! pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then
  echo "test setup: starting PostgreSQL"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start
fi
if ! (redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null | grep -q PONG); then
  echo "test setup: starting Redis"
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no
fi
