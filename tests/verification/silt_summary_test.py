#!/usr/bin/python3
"""The quickstart's summary page for an MPM run (issue 36, item 3): on a GPU machine the quickstart
runs scenes/mpm_snow_obstacle.json after the dam break and summarises it with
scripts/silt_summary.py; that branch cannot run in CI (no GPU), so this runs the same scene on the
CPU, coarse and short, and checks the page the summary writes: the scene's name and solver, the
frames to the end time, the preview strip naming the run's previews, and no flood sections.

Usage: silt_summary_test.py <silt executable> <repository root> <scratch dir>"""
import os
import re
import shutil
import subprocess
import sys

silt, root, out = sys.argv[1], sys.argv[2], sys.argv[3]
shutil.rmtree(out, ignore_errors=True)
subprocess.run([silt, "run", os.path.join(root, "scenes", "mpm_snow_obstacle.json"), "-q",
                "--backend", "cpu", "--set", "run.end_time=0.05", "--set", "domain.dx=0.08",
                "--out", out], check=True)
r = subprocess.run(["/usr/bin/python3", os.path.join(root, "scripts", "silt_summary.py"), out,
                    "--wall", "1.5"], check=True, capture_output=True, text=True)
page = open(os.path.join(out, "summary.html")).read()
previews = sorted(f for f in os.listdir(out) if re.fullmatch(r"preview_\d+\.png", f))
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


check("summary: open" in r.stdout and "summary.html" in r.stdout, "the summary names its page")
check("(mpm)</h1>" in page and "snow" in page, "the page names the scene and the solver")
check(len(previews) >= 2, f"the run wrote previews ({len(previews)})")
strip = re.findall(r'<img src="(preview_\d+\.png)"', page)
check(len(strip) == min(6, len(previews)) and all(f in previews for f in strip),
      f"the preview strip shows the run's previews ({strip})")
check("s simulated in 1.5 s of wall time" in page, "the speed line")
check("mass_balance" not in page.split("<li>files")[0] and "Gauges" not in page,
      "no flood sections on an MPM page")
print(f"{len(failures)} failures")
sys.exit(1 if failures else 0)
