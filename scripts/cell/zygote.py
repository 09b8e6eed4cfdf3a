"""A fork server for jobs that each need a process of their own that has imported torch and
nothing else yet: loading one library alone, reading the kernel table after dlopening a set.

Start it right after `import torch`, before anything of the package is loaded: it forks a child
per job, so every job starts in a process the same as a fresh `python -c 'import torch; ...'`,
without paying torch's import again (2-3 s a job, several jobs a library). A job that aborts,
segfaults or hangs takes only its child: its result says how it ended, as a subprocess's would.

    zygote = Zygote(run_job)     # run_job(argv) -> a JSON-able report, in the child
    zygote.run([argv, argv...])  # [{"returncode", "stdout", "stderr", "timed_out"}], in the order given
    zygote.close()
"""
import json
import os
import signal
import sys
import tempfile
import time
import traceback


class Zygote:
    def __init__(self, run_job, timeout=600, own_group=False):
        """own_group: each child leads a process group of its own, and a child past its timeout
        is killed with every process it started (a job that forks servers of its own)."""
        self.run_job, self.timeout, self.owner = run_job, timeout, os.getpid()
        self.own_group = own_group
        requests_r, requests_w = os.pipe()
        answers_r, answers_w = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        self.pid = os.fork()
        if self.pid == 0:
            os.close(requests_w)
            os.close(answers_r)
            code = 0
            try:
                self.serve(os.fdopen(requests_r), os.fdopen(answers_w, "w"))
            except BaseException:  # noqa: BLE001 - the parent sees the pipe close and says so
                traceback.print_exc()
                code = 1
            os._exit(code)
        os.close(requests_r)
        os.close(answers_w)
        self.requests, self.answers = os.fdopen(requests_w, "w"), os.fdopen(answers_r)

    def run(self, jobs):
        """Each job (the argv run_job gets) in a child of its own, as many at once as this
        machine has cores: [{"returncode": N or -SIGNAL, "stdout": report JSON, "stderr": ...,
        "timed_out": whether it was killed at its timeout}]."""
        if not jobs:
            return []
        self.requests.write(json.dumps(jobs) + "\n")
        self.requests.flush()
        line = self.answers.readline()
        if not line:
            raise RuntimeError("the fork server died (see the log above)")
        return json.loads(line)

    def close(self):
        """The fork server ends once every process that holds it (a child forked after it, too)
        has closed it; the one that started it waits for it."""
        self.requests.close()
        if os.getpid() == self.owner:
            os.waitpid(self.pid, 0)

    def serve(self, requests, answers):
        for line in requests:
            answers.write(json.dumps(self.run_children(json.loads(line))) + "\n")
            answers.flush()

    def run_children(self, jobs):
        results, running, pending, killed = [None] * len(jobs), {}, list(enumerate(jobs)), set()
        width = max(1, os.cpu_count() or 1)
        while pending or running:
            while pending and len(running) < width:
                index, argv = pending.pop(0)
                out, err = tempfile.TemporaryFile(), tempfile.TemporaryFile()
                pid = os.fork()
                if pid == 0:
                    self.child(argv, out, err)
                running[pid] = (index, out, err, time.monotonic() + self.timeout)
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                for child, (_, _, _, deadline) in running.items():
                    if time.monotonic() > deadline and child not in killed:
                        killed.add(child)
                        self.kill(child)
                time.sleep(0.01)
                continue
            index, out, err, _ = running.pop(pid)
            out.seek(0)
            err.seek(0)
            results[index] = {"returncode": os.waitstatus_to_exitcode(status),
                              "stdout": out.read().decode("utf-8", "replace"),
                              "stderr": err.read().decode("utf-8", "replace"),
                              "timed_out": pid in killed}
            killed.discard(pid)
            out.close()
            err.close()
        return results

    def kill(self, child):
        try:
            if self.own_group:
                os.killpg(child, signal.SIGKILL)
            else:
                os.kill(child, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def child(self, argv, out, err):
        """Never returns: the report goes to `out`, anything printed (the job's or a library's own
        output at load time) to `err`."""
        code = 0
        try:
            if self.own_group:
                os.setpgid(0, 0)
            os.dup2(err.fileno(), 1)
            os.dup2(err.fileno(), 2)
            report = self.run_job(argv)
            out.write(json.dumps(report).encode())
            out.flush()
        except BaseException:  # noqa: BLE001 - a job that raises says so in its stderr
            traceback.print_exc()
            code = 1
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)
