#!/usr/bin/env python3
"""README.md, line by line: runs every command of its ```sh blocks, as written and in order, from
the repository's root after scripts/quickstart.sh (the quickstart's own run and summary are done
first, as the quickstart ends; its install and build are this build tree, which must be the
root's build/ as the README's paths say), and fails naming the first command that fails. What the
commands write (the --out folders, silt-out/dam_break, .venv) is removed first.

Not run here: the lines that start with scripts/install-deps.sh, scripts/quickstart.sh,
scripts/test.sh or scripts/fuzz.sh (the install and test scripts: CI runs test.sh itself) and the
"Building by hand" block's cmake and ctest lines (they are what CI's test.sh does, and ctest
cannot run itself). `silt run --view` is run until its run has ended and its page still answers,
then stopped with Ctrl-C (it serves until then). The venv line needs PyPI for pip's build tools
(scikit-build-core, nanobind), as the README's readers do.

usage: readme_test.py SOURCE_DIR BUILD_DIR
"""
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request

NOT_HERE = re.compile(r"^(scripts/(install-deps|quickstart|test|fuzz)\.sh|cmake |ctest )")
COMMAND_TIMEOUT_S = 900  # the venv line builds the bindings when the tree has none yet


def commands(readme):
    """The lines of the ```sh blocks, in order (continuation lines joined)."""
    out, block, pending = [], False, ""
    for line in open(readme):
        line = line.rstrip("\n")
        if line.startswith("```"):
            block = line.strip() == "```sh" if not block else False
            continue
        if not block or not line.strip():
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        out.append(pending + line)
        pending = ""
    return out


def free(port):
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


def run_view(cmd, cwd, env, log_dir):
    """`silt run --view PORT ...`: the page answers during the run and after it has ended;
    Ctrl-C then ends it with exit 0."""
    port = int(re.search(r"--view (?:[\d.]+:)?(\d+)", cmd).group(1))
    if not free(port):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        new = s.getsockname()[1]
        s.close()
        print(f"readme: port {port} is in use here; the viewer line runs on {new}")
        cmd = cmd.replace(f"--view {port}", f"--view {new}")
        port = new
    log = open(os.path.join(log_dir, "readme_view.log"), "w+")  # the build tree, not the source
    p = subprocess.Popen(["bash", "-c", "exec " + cmd.split("#")[0]], cwd=cwd, env=env,
                         stdout=log, stderr=subprocess.STDOUT)
    page, finished = None, False
    deadline = time.time() + 300
    while time.time() < deadline and p.poll() is None:
        try:
            page = urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5).read()
        except OSError:
            page = None
        log.seek(0)
        finished = "finished:" in log.read()
        if finished and page:
            break
        time.sleep(0.5)
    alive = p.poll() is None
    p.send_signal(signal.SIGINT)
    try:
        rc = p.wait(30)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = "killed"
    log.seek(0)
    text = log.read()
    if not (page and finished and alive and rc == 0):
        raise SystemExit(f"readme: FAILED: {cmd}\n  page {'served' if page else 'not served'}, "
                         f"run {'ended' if finished else 'not ended'}, still serving after it: "
                         f"{alive}, exit after Ctrl-C: {rc}\n{text[-3000:]}")
    print(f"readme: ok (the page answered after the run ended; Ctrl-C, exit 0): {cmd}")


def tree_state(build):
    """A library object's modification time and the cache's SILT_BUILD_TESTS: README says its
    `pip install .` builds in the CLI's tree and reuses its objects (scikit-build-core once deleted
    the tree's cache and objects when an earlier install came from another environment)."""
    obj = os.path.join(build, "src/silt/core/CMakeFiles/silt_core.dir/error.cpp.o")
    cache = open(os.path.join(build, "CMakeCache.txt")).read()
    tests = re.search(r"^SILT_BUILD_TESTS:BOOL=(\w+)", cache, re.M)
    return (os.stat(obj).st_mtime_ns if os.path.exists(obj) else None,
            tests.group(1) if tests else None)


def main():
    source, build = (os.path.realpath(a) for a in sys.argv[1:3])
    if build != os.path.join(source, "build"):
        print(f"SKIPPED: this tree ({build}) is not the README's build/ ({source}/build)")
        sys.exit(77)
    work = source
    env = dict(os.environ, OMP_NUM_THREADS="2")
    env.pop("PYTHONPATH", None)
    # What scripts/quickstart.sh ends with (its install and build are this tree).
    todo = ["build/apps/silt/silt run --backend auto --overwrite --out silt-out/dam_break",
            "/usr/bin/python3 scripts/silt_summary.py silt-out/dam_break"]
    todo += [c for c in commands(os.path.join(source, "README.md")) if not NOT_HERE.match(c)]
    skipped = [c for c in commands(os.path.join(source, "README.md")) if NOT_HERE.match(c)]
    # A run does not write into a folder that holds files: start from none.
    made = {"silt-out/dam_break", ".venv"} | {m for c in todo for m in re.findall(r"--out (\S+)", c)}
    for path in sorted(made):
        shutil.rmtree(os.path.join(work, path), ignore_errors=True)
    print("readme: not run here (install and test scripts, the by-hand build): " +
          "; ".join(skipped))
    for cmd in todo:
        if "--view" in cmd and " run " in cmd:
            run_view(cmd, work, env, build)
            continue
        t0 = time.time()
        kept = tree_state(build) if "pip install ." in cmd else None
        r = subprocess.run(["bash", "-c", cmd], cwd=work, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=COMMAND_TIMEOUT_S)
        if r.returncode != 0:
            raise SystemExit(f"readme: FAILED (exit {r.returncode}): {cmd}\n{r.stdout[-4000:]}")
        if kept is not None and tree_state(build) != kept:
            raise SystemExit(f"readme: FAILED: {cmd} did not reuse the CLI's build tree (an "
                             f"object or the cache's SILT_BUILD_TESTS changed: {kept} -> "
                             f"{tree_state(build)}): it compiled the library again")
        tail = r.stdout.strip().splitlines()[-1:] or [""]
        print(f"readme: ok in {time.time() - t0:.1f} s: {cmd}\n    {tail[0][:300]}")
    summary = os.path.join(work, "silt-out/dam_break/summary.html")
    if "Maximum depth" not in open(summary).read():
        raise SystemExit(f"readme: {summary} has no maximum depth map")
    print(f"readme: all {len(todo)} commands ran")


if __name__ == "__main__":
    main()
