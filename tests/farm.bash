# A farm for the tests, on this machine: a single-node Slurm cluster
# (munged, slurmctld, slurmd) and an sshd on a loopback port, each started
# as the tests' own process in a folder of their own, with its own
# configuration, key, ports, logs and state, and stopped by the pid it was
# started with.  Nothing of the machine's own (/etc/slurm, /etc/munge,
# /etc/ssh, ~/.ssh, running daemons) is read or touched.
#
# Debian's packages: slurmctld, slurmd, slurm-client, munge,
# openssh-server, openssh-client (.ci/run installs them).

# free_port: a TCP port on 127.0.0.1 that nothing listens on, one of a
# range taken at random so that runs side by side do not collide.
free_port() {
	local p tries
	for tries in $(seq 50); do
		p=$((20000 + RANDOM % 20000))
		(exec 9<> "/dev/tcp/127.0.0.1/$p") 2> /dev/null || { echo "$p"; return 0; }
	done
	echo "free_port: no free port found in 50 tries" >&2
	return 1
}

# wait_for [-a PIDFILE]... SECONDS WHAT COMMAND...: runs COMMAND every
# 0.2 s until it succeeds; fails, saying WHAT did not happen, after
# SECONDS, or at once when a process of a PIDFILE (-a: alive) has exited.
wait_for() {
	local pidfiles=() limit what start=$SECONDS f
	while [ "$1" = -a ]; do pidfiles+=("$2"); shift 2; done
	limit=$1 what=$2
	shift 2
	until "$@" > /dev/null 2>&1; do
		for f in "${pidfiles[@]}"; do
			kill -0 "$(cat "$f")" 2> /dev/null ||
				{ echo "wait_for: $what: $(basename "$f" .pid) exited" >&2; return 1; }
		done
		if [ $((SECONDS - start)) -ge "$limit" ]; then
			echo "wait_for: $what not within ${limit}s" >&2
			return 1
		fi
		sleep 0.2
	done
}

# start_daemon DIR NAME COMMAND...: COMMAND (a daemon kept in the
# foreground) in the background, its output in DIR/NAME.out, its pid in
# DIR/NAME.pid.  It runs with the system's PATH, not the tests' (which
# has pleat in it), so that jobs find pleat only by what they are handed.
# File descriptor 3 is closed so that bats does not wait for it.
start_daemon() {
	local dir=$1 name=$2
	shift 2
	env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		"$@" > "$dir/$name.out" 2>&1 < /dev/null 3>&- &
	echo $! > "$dir/$name.pid"
}

# stop_daemons DIR NAME...: SIGTERM to the pids that start_daemon wrote
# for each NAME, then SIGKILL to any still there after 10 s.
stop_daemons() {
	local dir=$1 name pid pids=() i
	shift
	for name in "$@"; do
		[ -f "$dir/$name.pid" ] || continue
		pid=$(cat "$dir/$name.pid")
		kill -TERM "$pid" 2> /dev/null && pids+=("$pid")
		rm -f "$dir/$name.pid"
	done
	for i in $(seq 50); do
		for pid in "${pids[@]}"; do
			kill -0 "$pid" 2> /dev/null && break
			pid=
		done
		[ -z "$pid" ] && return 0
		sleep 0.2
	done
	for pid in "${pids[@]}"; do kill -KILL "$pid" 2> /dev/null || true; done
}

# slurm_missing: what of Slurm and munge is not installed, or nothing.
slurm_missing() {
	local p
	for p in munged mungekey slurmctld slurmd sbatch sinfo squeue scontrol; do
		command -v "$p" > /dev/null || PATH="$PATH:/usr/sbin" command -v "$p" > /dev/null ||
			echo "$p"
	done
}

# slurm_conf DIR: a slurm.conf for one node, this host, with the cores
# and memory slurmd finds here (slurmd -C), every path in DIR.
slurm_conf() {
	local dir=$1 node ctld_port slurmd_port
	node=$(slurmd -C | sed -n 's/^NodeName=\([^ ]*\) .*/\1/p')
	ctld_port=$(free_port) && slurmd_port=$(free_port) || return 1
	while [ "$slurmd_port" = "$ctld_port" ]; do slurmd_port=$(free_port) || return 1; done
	cat <<-EOF
	ClusterName=pleat-test
	SlurmctldHost=$node(127.0.0.1)
	SlurmctldPort=$ctld_port
	SlurmdPort=$slurmd_port
	SlurmUser=$(id -un)
	SlurmdUser=$(id -un)
	AuthType=auth/munge
	CredType=cred/munge
	AuthInfo=socket=$dir/munge.socket
	StateSaveLocation=$dir/state
	SlurmdSpoolDir=$dir/spool
	SlurmctldPidFile=$dir/slurmctld.pidfile
	SlurmdPidFile=$dir/slurmd.pidfile
	SlurmctldLogFile=$dir/slurmctld.log
	SlurmdLogFile=$dir/slurmd.log
	ProctrackType=proctrack/linuxproc
	TaskPlugin=task/none
	JobAcctGatherType=jobacct_gather/none
	AccountingStorageType=accounting_storage/none
	JobCompType=jobcomp/filetxt
	JobCompLoc=$dir/jobcomp.log
	SelectType=select/cons_tres
	SelectTypeParameters=CR_Core_Memory
	SchedulerType=sched/builtin
	MpiDefault=none
	ReturnToService=2
	KillWait=5
	MinJobAge=600
	SlurmctldTimeout=30
	SlurmdTimeout=30
	$(slurmd -C | head -1) NodeAddr=127.0.0.1 State=UNKNOWN
	PartitionName=farm Nodes=$node Default=YES MaxTime=INFINITE State=UP
	EOF
}

# slurm_start DIR: munged, slurmctld and slurmd, configured in DIR and
# started from there; exports SLURM_CONF for the client commands and
# waits (60 s at most) until sinfo shows the node idle.
slurm_start() {
	local dir=$1
	PATH="$PATH:/usr/sbin"
	mkdir -p "$dir/state" "$dir/spool"
	mungekey --create --keyfile="$dir/munge.key" > /dev/null 2>&1 ||
		dd if=/dev/urandom of="$dir/munge.key" bs=1024 count=1 2> /dev/null
	chmod 400 "$dir/munge.key"
	start_daemon "$dir" munged munged --foreground --force \
		--key-file="$dir/munge.key" --socket="$dir/munge.socket" \
		--pid-file="$dir/munged.pidfile" --log-file="$dir/munged.log" \
		--seed-file="$dir/munged.seed"
	wait_for -a "$dir/munged.pid" 20 "munged's socket" test -S "$dir/munge.socket" || return 1
	slurm_conf "$dir" > "$dir/slurm.conf" || return 1
	export SLURM_CONF="$dir/slurm.conf"
	start_daemon "$dir" slurmctld slurmctld -D -i -f "$SLURM_CONF"
	start_daemon "$dir" slurmd slurmd -D -f "$SLURM_CONF"
	wait_for -a "$dir/munged.pid" -a "$dir/slurmctld.pid" -a "$dir/slurmd.pid" \
		60 "the node idle in sinfo" slurm_idle
}

# slurm_idle: the cluster's one node is idle.
slurm_idle() {
	[ "$(sinfo -h -N -o %t)" = idle ]
}

# slurm_stop DIR: the daemons that slurm_start started, slurmd first.
slurm_stop() {
	stop_daemons "$1" slurmd slurmctld munged
}

# sshd_missing: what of OpenSSH is not installed, or nothing.
sshd_missing() {
	local p
	for p in sshd ssh ssh-keygen; do
		command -v "$p" > /dev/null || PATH="$PATH:/usr/sbin" command -v "$p" > /dev/null ||
			echo "$p"
	done
}

# sshd_start DIR HOST...: an sshd on a free port of 127.0.0.1 that lets
# this user in with a throwaway key, everything in DIR, and an ssh client
# configuration DIR/ssh_config that names it HOST (each HOST an alias
# for the same server, as hosts of a farm).  Exports PARALLEL_SSH, the
# ssh command GNU parallel runs, with that configuration.  sshd needs
# its privilege separation folder, /run/sshd, which its package's init
# script makes: made here the same way (root only) when missing.
sshd_start() {
	local dir=$1 port host
	shift
	PATH="$PATH:/usr/sbin"
	mkdir -p "$dir"
	chmod 700 "$dir"
	[ -d /run/sshd ] || { mkdir -p /run/sshd && chmod 755 /run/sshd; } || return 1
	ssh-keygen -q -t ed25519 -N '' -f "$dir/host_key" || return 1
	ssh-keygen -q -t ed25519 -N '' -f "$dir/user_key" || return 1
	cp "$dir/user_key.pub" "$dir/authorized_keys"
	port=$(free_port) || return 1
	cat > "$dir/sshd_config" <<-END
	ListenAddress 127.0.0.1
	Port $port
	HostKey $dir/host_key
	AuthorizedKeysFile $dir/authorized_keys
	PidFile $dir/sshd.pidfile
	PasswordAuthentication no
	KbdInteractiveAuthentication no
	PermitRootLogin prohibit-password
	StrictModes no
	UsePAM no
	END
	{
		for host in "$@"; do
			printf 'Host %s\n\tHostName 127.0.0.1\n\tPort %s\n' "$host" "$port"
		done
		printf 'Host *\n\tUser %s\n\tIdentityFile %s\n\tIdentitiesOnly yes\n' "$(id -un)" "$dir/user_key"
		printf '\tUserKnownHostsFile %s\n\tStrictHostKeyChecking yes\n\tBatchMode yes\n' "$dir/known_hosts"
	} > "$dir/ssh_config"
	for host in "$@"; do
		printf '[127.0.0.1]:%s %s\n' "$port" "$(cut -d' ' -f1,2 "$dir/host_key.pub")"
	done > "$dir/known_hosts"
	start_daemon "$dir" sshd "$(command -v sshd)" -D -e -f "$dir/sshd_config"
	export PARALLEL_SSH="ssh -F $dir/ssh_config"
	wait_for -a "$dir/sshd.pid" 20 "ssh to $1" ssh -F "$dir/ssh_config" "$1" true
}

# sshd_stop DIR: the sshd that sshd_start started.
sshd_stop() {
	stop_daemons "$1" sshd
}
