#!/usr/bin/env python3
"""The live viewer's frame rate (issue 15): what a client of `silt run --view` receives, and what
watching costs the stepping. Prints numbers, asserts nothing.

Runs the scene twice with outputs off: once without --view (stepping alone, from the ms/step that
`silt run` prints per frame, and the wall time from its first frame line to its last), once
with --view and one WebSocket client connected from the start that counts the frames, bytes,
points and simulated time it receives, acknowledging each as the page does (docs/viewer.md,
"Protocol"). The client reads with the standard library only (a minimal RFC 6455 reader for
server frames), so the GPU machine needs no Python package beyond python3.

  bench/view_rate.py [--silt build/apps/silt/silt] [--backend cuda] [--case snow|cube|fountain|dam_break|column]
                     [--port 8090] [--frames N] [--csv FILE]

snow is scenes/mpm_snow_obstacle.json at dx = 0.00293 (1.33M particles, issue 19's size).
"""
import argparse
import base64
import json
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OFF = ["--set", "outputs.formats=[]", "--set", "outputs.png=false"]


def case_args(case, frames):
    scene = lambda n: os.path.join(ROOT, "scenes", n)  # noqa: E731
    f = ["--set", f"run.frames={frames}", "--set", "run.end_time=null"] if frames else []
    if case == "snow":
        return [scene("mpm_snow_obstacle.json"), "--set", "domain.dx=0.00293", *OFF, *f]
    if case == "column":  # a CPU smoke run of the script: 2,493 particles
        return [scene("mpm_sand_column.json"), "--set", "domain.dx=0.03125", *OFF, *f]
    if case == "cube":
        return [scene("mpm_bench_cube.json"), *OFF, *f]
    if case == "fountain":
        return [scene("mpm_fountain.json"), *OFF, *f]
    if case == "dam_break":
        return [scene("dam_break.json"), "--set", "grid.nx=4096", "--set", "grid.ny=4096",
                "--set", "grid.dx=0.048828125", "--set", "run.end_time=7",
                "--set", "run.output_interval=7", "--set", 'outputs.png="none"',
                "--set", "outputs.formats=[]"]
    sys.exit(f"unknown case {case}")


def send(s, opcode, payload):
    """One client message (masked, as RFC 6455 asks of clients; under 126 bytes)."""
    mask = os.urandom(4)
    s.sendall(bytes([0x80 | opcode, 0x80 | len(payload)]) + mask +
              bytes(c ^ mask[i % 4] for i, c in enumerate(payload)))


class Reader(threading.Thread):
    """Connects to ws://127.0.0.1:port/ws and counts what arrives until stop()."""

    def __init__(self, port):
        super().__init__(daemon=True)
        self.port, self.frames, self.bytes, self.points = port, 0, 0, 0
        self.times, self.arrivals, self.counts, self.done = [], [], [], False

    def recv_exact(self, s, n):
        b = bytearray()
        while len(b) < n:
            chunk = s.recv(min(n - len(b), 1 << 20))
            if not chunk:
                raise EOFError
            b += chunk
        return bytes(b)

    def run(self):
        s = socket.create_connection(("127.0.0.1", self.port))
        key = base64.b64encode(os.urandom(16)).decode()
        s.sendall((f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                   f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                   f"Sec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            head += s.recv(1)
        try:
            while not self.done:
                b0, b1 = self.recv_exact(s, 2)
                n = b1 & 0x7F
                if n == 126:
                    n = struct.unpack(">H", self.recv_exact(s, 2))[0]
                elif n == 127:
                    n = struct.unpack(">Q", self.recv_exact(s, 8))[0]
                payload = self.recv_exact(s, n)
                if b0 & 0x0F == 2 and payload[:4] == b"SILT":
                    hl = struct.unpack("<I", payload[4:8])[0]
                    h = json.loads(payload[8:8 + hl])
                    if h["type"] in ("mpm", "swe"):
                        send(s, 0x1, b'{"cmd": "shown"}')  # as the page does: the next may come
                        self.frames += 1
                        self.bytes += n
                        self.points += h.get("count", h.get("nx", 0) * h.get("ny", 0))
                        self.counts.append(h.get("count", 0))
                        self.times.append(h["time"])
                        self.arrivals.append(time.time())
                elif b0 & 0x0F == 9:  # ping: answer with a pong
                    send(s, 0xA, payload)
        except (EOFError, OSError):
            pass


def ms_per_step(log):
    rows = re.findall(r"steps +(\d+) +([\d.]+) ms/step", log)
    steps = sum(int(s) for s, _ in rows)
    ms = sum(int(s) * float(m) for s, m in rows)
    return (ms / steps if steps else float("nan")), steps, ms / 1000


def run(silt, args, view_port=None):
    cmd = [silt, "run", *args]
    if view_port:
        cmd += ["--view", f"127.0.0.1:{view_port}"]
    print("+", " ".join(cmd), flush=True)
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    log, reader, t_first, t_done, frames = "", None, None, None, []
    for line in p.stderr:
        log += line
        if view_port and reader is None and "viewer: http" in line:
            reader = Reader(view_port)
            reader.start()
            t_first = time.time()
        if re.match(r"frame +\d+", line):
            frames.append(time.time())
        if "the run is complete" in line:
            t_done = time.time()
            break
    if view_port:
        p.send_signal(signal.SIGTERM)
    log += p.stderr.read() if p.stderr else ""
    p.wait()
    # Wall time from the first frame line to the last: the frame loop, set-up and exit left out.
    loop = frames[-1] - frames[0] if len(frames) > 1 else float("nan")
    return log, reader, t_first, t_done, loop


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--silt", default=os.path.join(ROOT, "build", "apps", "silt", "silt"))
    ap.add_argument("--backend", default="cuda")
    ap.add_argument("--case", default="snow")
    ap.add_argument("--port", type=int, default=8090)
    ap.add_argument("--frames", type=int, default=0, help="frames to run (0: the scene's)")
    ap.add_argument("--csv", default="")
    a = ap.parse_args()
    args = case_args(a.case, a.frames) + ["--backend", a.backend, "--overwrite",
                                          "--out", f"/tmp/silt-view-rate-{a.case}"]
    base_log, _, _, _, base_loop = run(a.silt, args)
    base_ms, base_steps, base_s = ms_per_step(base_log)
    log, r, t0, t1, view_loop = run(a.silt, args, a.port)
    view_ms, view_steps, view_s = ms_per_step(log)
    if r is None or t1 is None:
        print(log[-3000:])
        sys.exit("the viewed run did not complete")
    r.done = True
    arr = [t for t in r.arrivals if t <= t1]
    span = (arr[-1] - arr[0]) if len(arr) > 1 else float("nan")
    fps = (len(arr) - 1) / span if len(arr) > 1 else 0.0
    mean_count = sum(r.counts) / max(len(r.counts), 1)
    rows = [
        ("case", a.case), ("backend", a.backend),
        ("stepping alone, ms/step", f"{base_ms:.4f}"), ("with a viewer, ms/step", f"{view_ms:.4f}"),
        ("stepping overhead of watching", f"{(view_ms - base_ms) / base_ms * 100:.1f}%"),
        ("frames received while running", len(arr)), ("received frames/s", f"{fps:.2f}"),
        ("points per frame (mean)", f"{mean_count:.0f}"),
        ("points/s on the wire", f"{r.points / max(span, 1e-9):.3g}"),
        ("MB/s on the wire", f"{r.bytes / max(span, 1e-9) / 1e6:.1f}"),
        ("simulated time received", f"{r.times[0]:.4f} .. {r.times[-1]:.4f} s" if r.times else "-"),
        ("run wall time from URL to end, s", f"{t1 - t0:.2f}"),
        # What watching costs a user: the stepping thread also copies each frame it sends off the
        # device, which ms/step does not count.
        ("frame loop wall, alone, s", f"{base_loop:.2f}"),
        ("frame loop wall, watched, s", f"{view_loop:.2f}"),
        ("wall overhead of watching", f"{(view_loop / base_loop - 1) * 100:.1f}%"),
    ]
    for k, v in rows:
        print(f"{k:36} {v}")
    if a.csv:
        with open(a.csv, "w") as f:
            f.write(",".join(k for k, _ in rows) + "\n" + ",".join(str(v) for _, v in rows) + "\n")


if __name__ == "__main__":
    main()
