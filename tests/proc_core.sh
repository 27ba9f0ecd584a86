#!/bin/sh
# Death by SIGSEGV and SIGABRT with core dumps enabled: the report is written, then the program
# dies as it would have, by the same signal and with a core dump (the kernel's "core dumped"
# bit in the wait status, compared with the same program run without tprof). Skipped where this
# machine does not dump core (a core_pattern that discards it, a hard limit of 0).
. "$TS/lib.sh"
# Run a command with RLIMIT_CORE raised, in $WORK (a relative core_pattern writes there); print
# "<signal> <core dumped>", or "exit <status>".
waited() {
  (cd "$WORK" && python3 -c '
import os, resource, sys
pid = os.fork()
if pid == 0:
    soft, hard = resource.getrlimit(resource.RLIMIT_CORE)
    resource.setrlimit(resource.RLIMIT_CORE, (hard, hard))
    fd = os.open(os.devnull, os.O_WRONLY)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.execvp(sys.argv[1], sys.argv[1:])
_, st = os.waitpid(pid, 0)
if os.WIFSIGNALED(st):
    print(os.WTERMSIG(st), int(os.WCOREDUMP(st)))
else:
    print("exit", os.WEXITSTATUS(st))
' "$@")
}
for case in SEGV:11 ABRT:6; do
  sig=${case%:*}; num=${case#*:}
  native=$(waited "$TB/victims/v_signal" $sig)
  case $native in
    "$num 1") ;;
    "$num 0") echo "SKIP: this machine does not dump core (core_pattern $(cat /proc/sys/kernel/core_pattern), hard limit $(ulimit -H -c))"; exit 77 ;;
    *) fail "SIG$sig natively: $native" ;;
  esac
  rm -f "$WORK"/core*
  got=$(waited env TPROF_OUTPUT=none TPROF_JSON="$WORK/$sig.json" LD_PRELOAD="$TPROF_SO" "$TB/victims/v_signal" $sig)
  [ "$got" = "$native" ] || fail "SIG$sig under tprof: $got (signal, core dumped), natively $native"
  jcheck "$WORK/$sig.json" "site('main')['live_at_exit_bytes'] == 12345" \
    "'report written on signal $sig' in d['notes']"
  rm -f "$WORK"/core*
done
exit 0
