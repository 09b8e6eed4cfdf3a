#!/usr/bin/env python3
# Compiler launcher: runs the rest of its command line and appends
# "wall_s cpu_s maxrss_kib output" to $TUWRAP_LOG, else to tu.log beside this script
# (cpu = user + sys of the compiler processes).
import os, sys, time
argv = sys.argv[1:]
t0 = time.monotonic()
pid = os.fork()
if pid == 0:
    os.execvp(argv[0], argv)
_, status, ru = os.wait4(pid, 0)
dt = time.monotonic() - t0
out = argv[argv.index('-o') + 1] if '-o' in argv else '?'
with open(os.environ.get('TUWRAP_LOG') or os.path.join(os.path.dirname(os.path.abspath(__file__)), 'tu.log'), 'a') as f:
    f.write(f"{dt:.2f}\t{ru.ru_utime + ru.ru_stime:.2f}\t{ru.ru_maxrss}\t{out}\n")
sys.exit(os.waitstatus_to_exitcode(status))
