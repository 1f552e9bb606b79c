#!/usr/bin/env python3
"""Runs a tessera-graph command and checks what it did (the CLI's ctests).

usage: cli_check.py [--exit N] [--stderr TEXT]... [--stdout-empty] [--cuda-fallback PROGRAM HOST]
                    [KEY=JSON]... -- COMMAND [ARGS]...

  --exit N        expected exit status (default 0)
  --stderr TEXT   stderr must contain TEXT
  --stdout-empty  nothing on stdout (the command stopped before loading anything)
  --cuda-fallback PROGRAM HOST
                  a CUDA build: without a GPU (nvidia-smi lists none) stderr has
                  exactly one line "PROGRAM: no CUDA device (<reason>); running on
                  HOST" and the JSON execution_space is HOST; with one, the run is
                  on "Cuda" and there is no such line (or, if the driver refused,
                  the line is there and the run is on HOST)
  KEY=JSON        stdout is exactly one JSON object whose member KEY (a dotted
                  path: result.triangles, result.top_vertices.0.vertex) equals
                  the JSON value (45, "bfs", true)
"""
import json
import re
import shutil
import subprocess
import sys


def gpu_listed():
    """Whether nvidia-smi lists a GPU: the machine's answer, not the program's."""
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    try:
        out = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return out.returncode == 0 and "GPU" in out.stdout


def fallback_problems(program, host, stderr, obj):
    line = re.compile(r"^%s: no CUDA device \(.+\); running on %s$" % (re.escape(program), re.escape(host)))
    notices = [l for l in stderr.splitlines() if "no CUDA device" in l]
    good = [l for l in notices if line.match(l)]
    space = obj.get("execution_space") if isinstance(obj, dict) else None
    problems = []
    if len(notices) > 1 or len(notices) != len(good):
        problems.append("the no-device notice is not exactly one line '%s: no CUDA device (<reason>); running on %s': %r"
                        % (program, host, notices))
    if good:
        if space != host:
            problems.append("the notice says %s but execution_space is %r" % (host, space))
    elif gpu_listed():
        if space != "Cuda":
            problems.append("a GPU is present and no notice, but execution_space is %r, not 'Cuda'" % space)
    else:
        problems.append("nvidia-smi lists no GPU, yet stderr has no notice '%s: no CUDA device (...); running on %s'"
                        % (program, host))
    return problems


def main(argv):
    if "--" not in argv:
        sys.exit(__doc__)
    split = argv.index("--")
    opts, command = argv[:split], argv[split + 1:]
    want_exit, stderr_parts, stdout_empty, members, fallback = 0, [], False, [], None
    i = 0
    while i < len(opts):
        a = opts[i]
        if a == "--exit":
            want_exit = int(opts[i + 1])
            i += 1
        elif a == "--stderr":
            stderr_parts.append(opts[i + 1])
            i += 1
        elif a == "--stdout-empty":
            stdout_empty = True
        elif a == "--cuda-fallback":
            fallback = (opts[i + 1], opts[i + 2])
            i += 2
        elif "=" in a:
            key, value = a.split("=", 1)
            members.append((key, json.loads(value)))
        else:
            sys.exit("cli_check.py: unknown option " + a)
        i += 1

    run = subprocess.run(command, capture_output=True, text=True)
    problems = []
    if run.returncode != want_exit:
        problems.append("exit status %d, expected %d" % (run.returncode, want_exit))
    for part in stderr_parts:
        if part not in run.stderr:
            problems.append("stderr lacks %r" % part)
    if stdout_empty and run.stdout.strip():
        problems.append("stdout is not empty")
    obj = None
    if members or fallback:
        try:
            obj = json.loads(run.stdout)  # exactly one JSON value, nothing else
        except json.JSONDecodeError as e:
            obj = None
            problems.append("stdout is not one JSON object: %s" % e)
        if obj is not None and not isinstance(obj, dict):
            problems.append("stdout is JSON but not an object")
        elif obj is not None:
            for key in ("graph", "vertices", "edges", "algorithm", "time_seconds", "threads"):
                if key not in obj:
                    problems.append("no member %r" % key)
            for key, want in members:
                got = obj
                for part in key.split("."):
                    if isinstance(got, list) and part.isdigit() and int(part) < len(got):
                        got = got[int(part)]
                    elif isinstance(got, dict) and part in got:
                        got = got[part]
                    else:
                        got = KeyError(key)
                        break
                if isinstance(got, KeyError):
                    problems.append("no member %s" % key)
                elif got != want:
                    problems.append("%s is %r, expected %r" % (key, got, want))
    if fallback:
        problems += fallback_problems(fallback[0], fallback[1], run.stderr, obj)
    if problems:
        print("command: " + " ".join(command))
        print("stdout:\n" + run.stdout)
        print("stderr:\n" + run.stderr)
        for p in problems:
            print("FAILED: " + p)
        return 1
    print("ok: " + " ".join(command))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
