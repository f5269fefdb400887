#!/usr/bin/env python3
"""Faults during `silt run` on the CPU backend, each checked from the outside (ctest, label
verification): the run stops with one clear message and the right exit code, the frames it wrote
are complete, frames.csv lists exactly them, and no temporary file is left.

  silt_run_faults.py SILT SOURCE_DIR WORK_DIR CASE

  full_disk       MPM fountain with a file size limit (RLIMIT_FSIZE, as root too) that a later,
                  larger frame exceeds: exit 1, one error naming that frame's file, the earlier
                  frames complete.
  full_disk_vdb   the same with OpenVDB points (particles_NNNN.vdb): OpenVDB's own writer checked no
                  write, so a cut file was listed as complete (issue 39); now exit 1 naming
                  particles_0005.vdb, frames 0-4 complete (vdb_print reads them without error).
  full_disk_nc,   shallow water writing NetCDF (one file a frame) / GeoTIFF into a 512 KB tmpfs (mounted for the test;
  full_disk_tif   skipped, exit 77, where mounting is not allowed): exit 1, one error naming the
                  frame's file and "no space left", no crash or HDF5 message, the earlier frames
                  complete (gdalinfo opens each), gauges.csv without a cut row.
  full_disk_start a tmpfs already full before the first file, shallow water and MPM: exit 1, one
                  error naming resolved_scene.json and "No space left on device" (it said "No
                  such file or directory": errno was read before the close that failed).
  folder_removed  shallow water: the output folder is deleted mid-run: exit 1, one error naming an
                  output file in it (not its temporary name), and nothing written there again.
  folder_removed_mpm  the same for MPM particle frames.
  sigint          MPM fountain, SIGINT after frame 2: exit 130, one "stopped by SIGINT" line.
  sigterm         shallow water, SIGTERM after frame 2: exit 143, one "stopped by SIGTERM" line.
  sigterm_setup   MPM with a mesh collider whose distance field takes ~40 s to build (a 0.8 m box
                  at 2 mm voxels), SIGTERM 2 s into the set-up: exit 143 within 10 s, one line
                  saying which set-up work was stopped by SIGTERM (before, the set-up ran to its
                  end and the signal was seen only between frames).
"""
import os
import re
import shutil
import signal
import subprocess
import sys
import time

TIMEOUT_S = 300  # any one run; the cases stop theirs after a few frames


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def fountain_args(source, out, frames, fmt="ply"):
    # A coarse fountain: ~380 particles per emitted ball, one ball per frame, so each PLY frame
    # is ~12 KB larger than the one before (a VDB frame ~9 KB).
    return [os.path.join(source, "scenes", "mpm_fountain.json"), "--backend", "cpu", "--out", out,
            "--set", "domain.dx=0.01", "--set", "run.end_time=null",
            "--set", f"run.frames={frames}", "--set", "outputs.png=false",
            "--set", f'outputs.formats=["{fmt}"]']


def vdb_complete(path):
    """vdb_print reads every grid of the file without an error (OpenVDB's own reader)."""
    tool = shutil.which("vdb_print")
    if tool is None:
        return os.path.getsize(path) > 0
    p = subprocess.run([tool, "-l", path], capture_output=True, text=True, errors="replace")
    return p.returncode == 0 and "ERROR" not in p.stdout + p.stderr


def dam_break_args(source, out):
    return [os.path.join(source, "scenes", "dam_break.json"), "--backend", "cpu", "--out", out,
            "--set", "run.end_time=600", "--set", "run.output_interval=0.6",
            "--set", 'outputs.png="none"', "--set", 'outputs.formats=["asc"]']


def listed_frames(out):
    """Frame indices in frames.csv (header checked), or [] when it does not exist yet."""
    path = os.path.join(out, "frames.csv")
    if not os.path.exists(path):
        return []
    lines = open(path).read().splitlines()
    if not lines or lines[0] != "frame,time_s":
        fail(f"{path}: header is {lines[:1]}")
    return [int(line.split(",")[0]) for line in lines[1:]]


def ply_complete(path):
    """True when the binary PLY's size is exactly its header plus its vertex count x stride."""
    sizes = {"char": 1, "uchar": 1, "int8": 1, "uint8": 1, "short": 2, "ushort": 2, "int16": 2,
             "uint16": 2, "int": 4, "uint": 4, "int32": 4, "uint32": 4, "float": 4,
             "float32": 4, "double": 8, "float64": 8}
    raw = open(path, "rb").read()
    end = raw.find(b"end_header\n")
    if end < 0:
        return False
    header = raw[:end].decode("ascii", "replace").splitlines()
    count, stride = None, 0
    for line in header:
        w = line.split()
        if w[:2] == ["element", "vertex"]:
            count = int(w[2])
        elif w and w[0] == "property" and count is not None:
            stride += sizes[w[1]]
    return count is not None and len(raw) == end + len(b"end_header\n") + count * stride


def asc_complete(path):
    """True when the ESRI ASCII raster holds nrows rows of ncols values after its header."""
    lines = open(path).read().split("\n")
    head = {}
    rows = []
    for line in lines:
        w = line.split()
        if not w:
            continue
        if w[0][0].isalpha() and len(w) == 2:  # ncols, nrows, xllcorner, NODATA_value, ...
            head[w[0].lower()] = w[1]
        else:
            rows.append(w)
    return ("ncols" in head and "nrows" in head and len(rows) == int(head["nrows"])
            and all(len(r) == int(head["ncols"]) for r in rows))


def frames_on_disk(out, pattern):
    got = {}
    for name in os.listdir(out):
        m = re.fullmatch(pattern, name)
        if m:
            got.setdefault(int(m.group(1)), []).append(os.path.join(out, name))
    return got


def check_outputs(out, pattern, complete, files_per_frame):
    """frames.csv lists exactly the frames on disk, 0..n without a gap, each complete; no
    temporary file is left. Returns the last frame."""
    temps = [n for n in os.listdir(out) if ".part" in n or ".tmp" in n]
    if temps:
        fail(f"temporary files left in {out}: {temps}")
    listed = listed_frames(out)
    on_disk = frames_on_disk(out, pattern)
    if listed != list(range(len(listed))):
        fail(f"frames.csv lists {listed}, not 0..n in order")
    if sorted(on_disk) != listed:
        fail(f"frames.csv lists {listed} but the folder holds frames {sorted(on_disk)}")
    for k, paths in on_disk.items():
        if len(paths) != files_per_frame:
            fail(f"frame {k} has {len(paths)} files, {files_per_frame} expected: {paths}")
        for p in paths:
            if not complete(p):
                fail(f"{p} is not complete")
    return listed[-1] if listed else -1


def start(silt, args, **kw):
    return subprocess.Popen([silt, "run"] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=dict(os.environ, OMP_NUM_THREADS="2"), **kw)


def finish(proc):
    try:
        out, err = proc.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        fail("the run did not end")
    print(err, end="")
    return proc.returncode, err


def wait_for_frame(proc, out, k):
    """Waits until frames.csv lists frame k (the run still going)."""
    t0 = time.monotonic()
    while k not in listed_frames(out):
        if proc.poll() is not None:
            print(proc.stderr.read())
            fail(f"the run ended (code {proc.returncode}) before frame {k} was written")
        if time.monotonic() - t0 > TIMEOUT_S:
            proc.kill()
            fail(f"frame {k} not written within {TIMEOUT_S} s")
        time.sleep(0.02)


def one_line(err, prefix):
    lines = [line for line in err.splitlines() if line.startswith("silt: ")]
    if len(lines) != 1 or not lines[0].startswith(prefix):
        fail(f"expected one message starting '{prefix}', got {lines}")
    return lines[0]


def case_full_disk(silt, source, work, fmt="ply"):
    ref = os.path.join(work, "reference")
    code, err = finish(start(silt, fountain_args(source, ref, 8, fmt)))
    if code != 0:
        fail(f"reference run failed with code {code}")
    sizes = [os.path.getsize(os.path.join(ref, f"particles_{k:04d}.{fmt}")) for k in range(9)]
    small = max(os.path.getsize(os.path.join(ref, n)) for n in os.listdir(ref)
                if not n.startswith("particles_"))
    if not (small < sizes[4] < sizes[5]):
        fail(f"frame sizes {sizes} (other files up to {small} bytes) do not grow as expected")
    limit = (sizes[4] + sizes[5]) // 2  # frames 0-4 fit, frame 5 does not
    out = os.path.join(work, "limited")

    def limit_file_size():
        import resource
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    # SIGXFSZ is left at its default (restore_signals): silt itself must ignore it and report the
    # failed write.
    code, err = finish(start(silt, fountain_args(source, out, 8, fmt), preexec_fn=limit_file_size))
    if code != 1:
        fail(f"exit code {code}, 1 expected")
    line = one_line(err, "silt: error:")
    if f"particles_0005.{fmt}" not in line or "too large" not in line.lower():
        fail(f"the message does not name particles_0005.{fmt} and the reason: {line}")
    last = check_outputs(out, rf"particles_(\d{{4}})\.{fmt}",
                         ply_complete if fmt == "ply" else vdb_complete, 1)
    if last != 4:
        fail(f"frames 0 to {last} written, 0 to 4 expected")


SKIPPED = 77  # ctest SKIP_RETURN_CODE


def case_full_disk_gdal(silt, source, work, ext):
    disk = os.path.join(work, "disk")
    os.makedirs(disk)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", disk],
                      stderr=subprocess.DEVNULL).returncode != 0:
        print("skipped: cannot mount a tmpfs here (needs root with CAP_SYS_ADMIN)")
        sys.exit(SKIPPED)
    try:
        out = os.path.join(disk, "out")
        args = [os.path.join(source, "scenes", "river_spill.json"), "--backend", "cpu", "--out",
                out, "--set", "run.end_time=3600", "--set", "run.output_interval=10",
                "--set", 'outputs.png="none"', "--set", f'outputs.formats=["{ext}"]',
                "--set", 'outputs.fields=["depth"]', "--set", 'outputs.netcdf="frames"']
        code, err = finish(start(silt, args))
        if code != 1:
            fail(f"exit code {code}, 1 expected")
        if "HDF5" in err or "egmentation" in err:
            fail(f"HDF5 or a crash speaks at exit: {err}")
        line = one_line(err, "silt: error:")
        named = re.search(r"'([^']+)'", line)
        if not named or os.path.dirname(named.group(1)) != out or "no space left" not in line:
            fail(f"the message does not name a file in {out} and 'no space left': {line}")
        gdalinfo = shutil.which("gdalinfo")
        last = check_outputs(out, rf"depth_(\d{{4}})\.{ext}",
                             lambda p: gdalinfo is None or subprocess.run(
                                 [gdalinfo, p], stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL).returncode == 0, 1)
        if last < 1:
            fail(f"only frames 0 to {last} written before the disk was full")
        rows = open(os.path.join(out, "gauges.csv")).read().split("\n")
        if rows[-1] != "" or len({r.count(",") for r in rows[:-1]}) != 1:
            fail("gauges.csv has a cut row")
        print(f"frames 0 to {last} complete, then: {line}")
    finally:
        subprocess.run(["umount", disk])


def case_full_disk_start(silt, source, work):
    disk = os.path.join(work, "disk")
    os.makedirs(disk)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", disk],
                      stderr=subprocess.DEVNULL).returncode != 0:
        print("skipped: cannot mount a tmpfs here (needs root with CAP_SYS_ADMIN)")
        sys.exit(SKIPPED)
    try:
        fd = os.open(os.path.join(disk, "fill"), os.O_WRONLY | os.O_CREAT)
        try:
            while os.write(fd, b"\0" * 4096) > 0:
                pass
        except OSError:  # full
            pass
        os.close(fd)
        for name, args in (("swe", dam_break_args(source, os.path.join(disk, "swe"))),
                           ("mpm", fountain_args(source, os.path.join(disk, "mpm"), 2))):
            code, err = finish(start(silt, args))
            line = one_line(err, "silt: error:")
            if code != 1 or "resolved_scene.json" not in line or "No space left" not in line:
                fail(f"{name}: exit {code}, expected 1 and one error naming resolved_scene.json "
                     f"and 'No space left on device': {line}")
            print(f"{name}: {line}")
    finally:
        subprocess.run(["umount", disk])


def case_folder_removed(silt, source, work, mpm=False):
    out = os.path.join(work, "removed")
    proc = start(silt, fountain_args(source, out, 400) if mpm else dam_break_args(source, out))
    wait_for_frame(proc, out, 2)
    t0 = time.monotonic()
    while os.path.exists(out):  # a file being written may appear while the tree is removed
        shutil.rmtree(out, ignore_errors=True)
        if time.monotonic() - t0 > 30:
            fail(f"cannot remove {out}")
    code, err = finish(proc)
    if code != 1:
        fail(f"exit code {code}, 1 expected")
    line = one_line(err, "silt: error:")
    named = re.search(r"'([^']+)'", line)
    if not named or os.path.dirname(named.group(1)) != out:
        fail(f"the message does not name a file in {out}: {line}")
    if os.path.basename(named.group(1)).startswith("."):
        fail(f"the message names a temporary file, not the output: {line}")
    if os.path.exists(out):
        fail(f"{out} was written again after it was removed: {os.listdir(out)}")


def case_signal(silt, source, work, sig, mpm):
    name = signal.Signals(sig).name
    out = os.path.join(work, name.lower())
    args = fountain_args(source, out, 600) if mpm else dam_break_args(source, out)
    proc = start(silt, args)
    wait_for_frame(proc, out, 2)
    proc.send_signal(sig)
    code, err = finish(proc)
    if code != 128 + sig:
        fail(f"exit code {code}, {128 + sig} expected")
    line = one_line(err, f"silt: stopped by {name} after frame ")
    said = int(re.search(r"after frame (\d+)", line).group(1))
    if mpm:
        last = check_outputs(out, r"particles_(\d{4})\.ply", ply_complete, 1)
    else:
        last = check_outputs(out, r"[a-z_]+_(\d{4})\.asc", asc_complete, 4)
    if last != said or last < 2:
        fail(f"the message says frames 0 to {said}, the folder holds frames 0 to {last}")


def case_signal_setup(silt, work):
    lo, hi = (0.1, 0.1, 0.1), (0.9, 0.9, 0.9)
    faces = [(0, 2, 3), (0, 3, 1), (4, 5, 7), (4, 7, 6), (0, 1, 5), (0, 5, 4), (2, 6, 7),
             (2, 7, 3), (0, 4, 6), (0, 6, 2), (1, 3, 7), (1, 7, 5)]
    with open(os.path.join(work, "box.obj"), "w") as o:
        for c in range(8):
            o.write("v %g %g %g\n" % tuple(hi[a] if (c >> a) & 1 else lo[a] for a in range(3)))
        for f in faces:
            o.write("f %d %d %d\n" % tuple(i + 1 for i in f))
    scene = os.path.join(work, "slow_setup.json")
    with open(scene, "w") as o:
        o.write('{"solver": "mpm", "name": "slow_setup", '
                '"domain": {"min": [0, 0, 0], "max": [1, 1, 1], "dx": 0.05}, '
                '"materials": [{"name": "sand", "kind": "sand"}], '
                '"sources": [{"name": "blk", "material": "sand", "shape": "box", '
                '"min": [0, 0.92, 0], "max": [0.2, 0.98, 0.2]}], '
                '"colliders": [{"name": "block", "kind": "mesh", "file": "box.obj", '
                '"voxel": 0.002}], '
                '"run": {"fps": 60, "frames": 2}, "outputs": {"formats": []}}')
    proc = start(silt, [scene, "--backend", "cpu", "--out", os.path.join(work, "out")])
    time.sleep(2.0)
    if proc.poll() is not None:
        print(proc.stderr.read())
        fail(f"the run ended (code {proc.returncode}) before the signal")
    proc.send_signal(signal.SIGTERM)
    sent = time.monotonic()
    try:
        _, err = proc.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        fail("SIGTERM during set-up did not stop the run within 10 s")
    print(err, end="")
    print(f"stopped {time.monotonic() - sent:.2f} s after the signal")
    if proc.returncode != 128 + signal.SIGTERM:
        fail(f"exit code {proc.returncode}, {128 + signal.SIGTERM} expected")
    one_line(err, "silt: stopped during collider 'block'")
    if "by SIGTERM; nothing was run" not in err:
        fail("the message does not say SIGTERM stopped it before anything ran")


def main():
    silt, source, work, case = sys.argv[1:5]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    if case == "full_disk":
        case_full_disk(silt, source, work)
    elif case == "full_disk_vdb":
        case_full_disk(silt, source, work, "vdb")
    elif case in ("full_disk_nc", "full_disk_tif"):
        case_full_disk_gdal(silt, source, work, case[-3:].lstrip("_"))
    elif case == "full_disk_start":
        case_full_disk_start(silt, source, work)
    elif case == "folder_removed":
        case_folder_removed(silt, source, work)
    elif case == "folder_removed_mpm":
        case_folder_removed(silt, source, work, mpm=True)
    elif case == "sigint":
        case_signal(silt, source, work, signal.SIGINT, True)
    elif case == "sigterm":
        case_signal(silt, source, work, signal.SIGTERM, False)
    elif case == "sigterm_setup":
        case_signal_setup(silt, work)
    else:
        fail(f"unknown case {case}")
    print(f"{case}: ok")


if __name__ == "__main__":
    main()
