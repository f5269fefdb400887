#!/usr/bin/env python3
"""The live viewer (`silt run --view`), checked from the outside on the CPU backend (ctest, label
verification). Each case starts its own run on a loopback port and ends it with SIGTERM.

  silt_view_test.py SILT SOURCE_DIR WORK_DIR CASE [SHOTS_DIR]

  mpm_browser    the sand column in headless Chromium: sand-coloured particles where the column
                 stands and none in the empty corner, the simulated time advancing between two
                 screenshots, steps/s shown, pause stopping it (the page's time and silt's frame lines), step
                 taking exactly one frame, resume going on.
  swe_browser    the embedded dam break, paused by a client from the start: deep blue water in the
                 reservoir, the grey dry dam, lighter water in the tailwater; resumed from the
                 page, time advancing; a click on the reservoir gauge plots its depth series (10 m
                 at first); pause stopping the steps.
  port_in_use    a port something else listens on: exit 1 and one error naming the address.
  bad_requests   paths outside the page (/../../etc/passwd, encoded and nested forms) are 404
                 and never return the file; the page and three.js are served; the server listens
                 on the loopback address only.
  bad_clients    malformed WebSocket messages get an error reply; a run paused by a browser that
                 then leaves goes on; clients that disconnect in the
                 middle of a frame and a client that never reads: the run goes on and a well-behaved
                 client still receives frames with the time advancing.
  hostile_frames a text frame whose payload is not UTF-8 (the byte 0xFF, alone and inside a JSON
                 string) gets an error reply and the run goes on (it aborted the process:
                 the reply quoting the byte threw on a civetweb thread).
  crowded        sockets from one address (127.0.0.2) that send nothing, trickle a request
                 header (slowloris) or hold an idle WebSocket do not lock a browser on another
                 address out; beyond the per-address limit they are closed at once, and the idle
                 ones are closed by the server's timeouts.
  paced_client   frames wait for the page's {"cmd": "shown"}: a client that acknowledges none gets
                 two while the run goes on, and no others are made for it; one acknowledgement
                 lets exactly one more through, the newest state; acknowledging each, frames flow.
  replay         `silt view DIR` of a finished MPM run (PLY frames) and of a finished dam break
                 (depth rasters, gauges): a client receives the scene, the terrain, the frames in
                 order of time (the MPM ones with every particle of the file), and the gauge
                 history; a folder that is not a run's is an error naming the file.
  unwatched      `--view` with no browser connected changes nothing: the dam break's rasters and
                 gauges and the sand column's PLY frames are byte-identical to a run without it.
  replay_tools   `silt view` of a dam break in Chromium: the slider scrubs to a frame (it stays
                 there paused), step goes one on; the panel says "frame n of N", no steps/s; the
                 colour menu offers the four fields written, the colour bar names field and units;
                 the read-out under the cursor (10 m over the reservoir, dry on the dam, the speed
                 in the breach); two gauges 1 m apart have labels that do not overlap; the PNG of
                 the view (the reservoir blue) and the PNG button's download.
  live_slider    a live MPM run: the slider goes back to an earlier frame and the page stays there
                 while the run goes on; "live" returns to the newest frames.
  ended_run      an MPM run that ends before a browser connects: the page has all 7 frames on its
                 slider; colour by pressure (stress written), the particle under the cursor
                 (sand and its pressure; none above the column); the PNG; exit 0 on SIGTERM. A
                 dam break likewise keeps its 5 output frames (not its gauge stops), each with
                 depth, level, speed, max depth and hazard class.
SHOTS_DIR: where the browser cases also leave their screenshots (docs/images/ in the repository).
"""
import asyncio
import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import threading
import time

START_TIMEOUT_S = 120  # until silt prints the viewer's URL (the CPU machine may be loaded)


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Run:
    """`silt run ... --view 127.0.0.1:PORT` in the background, its stderr collected."""

    def __init__(self, silt, args, work, port=None):
        self.port = port or free_port()
        os.makedirs(work, exist_ok=True)
        self.log_path = os.path.join(work, "silt.log")
        self.log = open(self.log_path, "w")
        env = dict(os.environ, OMP_WAIT_POLICY="PASSIVE", OMP_NUM_THREADS="1")
        cmd = [silt, "run", *args, "--backend", "cpu", "--out", os.path.join(work, "out"),
               "--view", f"127.0.0.1:{self.port}"]
        print("+", " ".join(cmd))
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=self.log, env=env)
        self.url = f"http://127.0.0.1:{self.port}/"
        deadline = time.time() + START_TIMEOUT_S
        while "viewer: http" not in self.text():
            if self.proc.poll() is not None:
                fail(f"silt ended ({self.proc.returncode}) before serving:\n{self.text()}")
            if time.time() > deadline:
                self.stop()
                fail(f"no viewer URL after {START_TIMEOUT_S} s:\n{self.text()}")
            time.sleep(0.1)

    def text(self):
        self.log.flush()
        return open(self.log_path).read()

    def frame_lines(self):
        return len(re.findall(r"^frame +\d+", self.text(), re.M))

    def alive(self):
        return self.proc.poll() is None

    def stop(self):
        if self.alive():
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                fail("silt did not stop within 60 s of SIGTERM")
        self.log.close()


def sand_column(source):
    # ~2,800 particles (dx 1/32), frames without end, nothing written: only the viewer watches.
    return [os.path.join(source, "scenes", "mpm_sand_column.json"), "--set", "domain.dx=0.03125",
            "--set", "run.frames=100000", "--set", "outputs.formats=[]",
            "--set", "outputs.png=false"]


def dam_break():
    # The embedded default scene (no scene file), long enough to watch, nothing but gauges written.
    return ["--set", "run.end_time=100000", "--set", "run.output_interval=50000",
            "--set", 'outputs.png="none"', "--set", "outputs.formats=[]"]


# ----------------------------------------------------------------------------------- browser

class Browser:
    def __init__(self, url, width=960, height=640, downloads=None):
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
        opts = webdriver.ChromeOptions()
        if downloads:
            opts.add_experimental_option("prefs", {"download.default_directory": downloads,
                                                   "download.prompt_for_download": False})
        for a in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                  "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
                  "--ignore-gpu-blocklist", f"--window-size={width},{height}",
                  "--force-device-scale-factor=1"]:
            opts.add_argument(a)
        opts.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
        driver = shutil.which("chromedriver") or "/usr/bin/chromedriver"
        self.d = webdriver.Chrome(service=Service(driver), options=opts)
        self.d.set_window_size(width, height)
        self.d.get(url)

    def js(self, expr):
        return self.d.execute_script("return " + expr)

    def wait(self, expr, timeout, what):
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                if self.js(expr):
                    return
            except Exception:  # the page is still loading
                pass
            time.sleep(0.1)
        fail(f"timed out after {timeout} s waiting for {what} ({expr})")

    def time(self):
        return self.js("silt.time")

    def shot(self, path):
        from PIL import Image
        self.d.save_screenshot(path)
        return Image.open(path).convert("RGB")

    def click(self, element_id):
        self.d.find_element("id", element_id).click()

    def slide(self, k):
        """Moves the time slider to frame k (as a drag that ends there does)."""
        self.js(f"""(() => {{ const s = document.getElementById('slider'); s.value = {k};
            s.dispatchEvent(new Event('input')); s.dispatchEvent(new Event('change'));
            return true; }})()""")

    def text(self, element_id):
        return self.js(f"document.getElementById('{element_id}').textContent")

    def shown(self, element_id):
        return self.js(f"document.getElementById('{element_id}').getClientRects().length > 0")

    def colour_by(self, value):
        from selenium.webdriver.support.ui import Select
        Select(self.d.find_element("id", "colour")).select_by_value(value)

    def point_at(self, p):
        """Moves the mouse over scene point p (silt.project) and returns what the page reads
        out there."""
        from selenium.webdriver.common.action_chains import ActionChains
        q, size = self.js(f"silt.project({list(p)})"), self.js("[innerWidth, innerHeight]")
        stage = self.d.find_element("id", "stage")
        ActionChains(self.d).move_to_element_with_offset(
            stage, int(q[0] - size[0] / 2), int(q[1] - size[1] / 2)).perform()
        time.sleep(0.3)
        return self.js("silt.hoverText")

    def snapshot(self):
        """The page's PNG of its view (what the PNG button saves), decoded."""
        import base64
        import io
        from PIL import Image
        url = self.js("silt.snapshot()")
        if not url.startswith("data:image/png;base64,"):
            fail(f"the snapshot is not a PNG data URL: {url[:40]!r}")
        return Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))).convert("RGB")

    def quit(self):
        self.d.quit()


def patch_fraction(img, centre, half, test):
    """Fraction of the pixels within `half` px of centre that pass test(r, g, b)."""
    cx, cy = int(round(centre[0])), int(round(centre[1]))
    n = hit = 0
    for y in range(max(0, cy - half), min(img.height, cy + half + 1)):
        for x in range(max(0, cx - half), min(img.width, cx + half + 1)):
            n += 1
            hit += bool(test(*img.getpixel((x, y))))
    return hit / max(n, 1)


def near(c, ref, tol):
    return all(abs(a - b) <= tol for a, b in zip(c, ref))


def keep_shot(src, shots, name):
    if shots:
        os.makedirs(shots, exist_ok=True)
        shutil.copy(src, os.path.join(shots, name))


def check_pause(b, run, progress_of, settle_s=1.0, watch_s=2.5):
    """Pause from the page: the page's time and the run's progress stop; resume: they go on."""
    holds = run.text().count("viewer: paused at")
    b.click("pause")
    b.wait("silt.status && silt.status.paused", 20, "the status to say paused")
    # The run finishes the frame it is on and waits (it logs so); that frame then reaches the page.
    deadline = time.time() + 60
    while run.text().count("viewer: paused at") == holds:
        if time.time() > deadline:
            fail("the run did not report waiting within 60 s of the pause")
        time.sleep(0.1)
    time.sleep(settle_s)
    t0, p0 = b.time(), progress_of()
    time.sleep(watch_s)
    t1, p1 = b.time(), progress_of()
    if t1 != t0 or p1 != p0:
        fail(f"paused, yet the page's time went {t0} -> {t1} and the run {p0} -> {p1}")
    print(f"paused: time stays {t0} s, run progress stays {p0} for {watch_s} s")
    return t0


def mpm_browser(silt, source, work, shots):
    run = Run(silt, sand_column(source), work)
    b = None
    try:
        b = Browser(run.url)
        b.wait("silt.framesReceived > 0", 60, "a first frame")
        b.wait("document.getElementById('shown').textContent.indexOf('particles') >= 0", 10, "the counts")
        t1 = b.time()
        img1 = b.shot(os.path.join(work, "mpm_1.png"))
        time.sleep(2.0)
        t2 = b.time()
        img2 = b.shot(os.path.join(work, "mpm_2.png"))
        if not t2 > t1:
            fail(f"the simulated time did not advance between two screenshots: {t1} -> {t2}")
        print(f"time advances: {t1:.4f} s -> {t2:.4f} s")
        b.wait("silt.status && silt.status.steps_per_s > 0", 10, "a positive steps/s")
        sps = b.js("document.getElementById('sps').textContent")
        if not sps.isdigit() or int(sps) <= 0:
            fail(f"the panel's steps/s reads '{sps}'")
        # Sand (palette 214,178,112, shaded by light and depth): red > green > blue, clearly warm.
        sand = lambda r, g, b_: r > g > b_ and r - b_ > 35
        for img, name in ((img1, "first"), (img2, "second")):
            # The column's lower part stays where it stood (the sand spreads from the base out).
            column = b.js("silt.project([0.5, 0.09, 0.5])")
            empty = b.js("silt.project([0.5, 0.42, 0.5])")  # above the 0.35 m column top
            f_col = patch_fraction(img, column, 6, sand)
            f_empty = patch_fraction(img, empty, 6, sand)
            print(f"{name} screenshot: sand pixels {f_col:.2f} at the column, {f_empty:.2f} above it")
            if f_col < 0.5:
                fail(f"{name} screenshot: only {f_col:.2f} of the pixels at the column are sand-coloured")
            if f_empty > 0.02:
                fail(f"{name} screenshot: {f_empty:.2f} of the pixels in empty space are sand-coloured")
        bg = img1.getpixel((img1.width - 5, 5))
        if not near(bg, (30, 34, 40), 6):
            fail(f"the background at the top right is {bg}, not the page's (30, 34, 40)")
        keep_shot(os.path.join(work, "mpm_2.png"), shots, "viewer_mpm.png")
        t_paused = check_pause(b, run, run.frame_lines)
        # Step: one frame (1/60 s of simulated time), then paused again.
        frames = run.frame_lines()
        b.click("step")
        b.wait(f"silt.time > {t_paused}", 30, "the stepped frame")
        time.sleep(1.5)
        dt = b.time() - t_paused
        if abs(dt - 1 / 60) > 1e-4 or run.frame_lines() != frames + 1:
            fail(f"step took {dt} s and {run.frame_lines() - frames} frames, not 1/60 s and one")
        print(f"step: one frame, {dt:.5f} s")
        b.click("pause")  # the button reads 'resume' while paused
        b.wait(f"silt.time > {t_paused + 0.05}", 60, "the time to advance after resume")
        print("resumed: time advances")
        if not b.js("silt.lastHeader.full === true"):
            print("note: the last frame was a subset")
    finally:
        if b:
            b.quit()
        run.stop()


def swe_browser(silt, source, work, shots):
    # The reservoir stays deeper than the tailwater for ~20 simulated seconds only (then the wave
    # has filled the tailwater), which the CPU steps in a second or two, before a browser is up:
    # a client pauses the run as soon as it serves, the page shows that early state (the frame
    # the run paused on), and the page resumes it afterwards.
    run = Run(silt, dam_break(), work)
    holder = ws_handshake(run.port)
    ws_send_text(holder, '{"cmd": "pause"}')
    b = None
    try:
        b = Browser(run.url)
        b.wait("silt.framesReceived > 0 && silt.status && silt.status.paused", 60,
               "the first frame, paused")
        holder.close()  # the page is connected: the run stays paused
        time.sleep(0.5)
        t0 = b.time()
        img = b.shot(os.path.join(work, "swe_1.png"))
        print(f"paused at {t0:.4f} s")
        blue = lambda r, g, b_: b_ > r + 40 and b_ > g
        grey = lambda r, g, b_: max(r, g, b_) - min(r, g, b_) < 12 and r > 90
        checks = [("reservoir (x 30 m, y 60 m), 10 m of water", [30, 60], blue, 0.9),
                  ("dam (x 100 m, y 40 m), dry", [100, 40], grey, 0.9),
                  ("tailwater (x 170 m, y 60 m), ~5 m of water", [170, 60], blue, 0.9)]
        for what, p, test, need in checks:
            f = patch_fraction(img, b.js(f"silt.project({p})"), 3, test)
            print(f"{what}: {f:.2f} of the pixels as expected")
            if f < need:
                fail(f"{what}: only {f:.2f} of the pixels have the expected colour")
        deep = img.getpixel(tuple(int(v) for v in b.js("silt.project([30, 60])")))
        shallow = img.getpixel(tuple(int(v) for v in b.js("silt.project([170, 60])")))
        if not sum(deep) < sum(shallow):
            fail(f"10 m of water {deep} is not darker than 5 m {shallow} (the Blues ramp)")
        keep_shot(os.path.join(work, "swe_1.png"), shots, "viewer_swe.png")
        b.click("pause")  # the button reads 'resume' while paused
        b.wait(f"silt.time > {t0}", 30, "the time to advance after resume")
        t1 = b.time()
        b.shot(os.path.join(work, "swe_2.png"))
        time.sleep(2.0)
        t2 = b.time()
        b.shot(os.path.join(work, "swe_3.png"))
        if not t2 > t1:
            fail(f"the simulated time did not advance between two screenshots: {t1} -> {t2}")
        print(f"resumed: time advances {t1:.4f} s -> {t2:.4f} s")
        # A click on the reservoir gauge shows its depth series: ~10 m, falling as the reservoir empties.
        from selenium.webdriver.common.action_chains import ActionChains
        q, size = b.js("silt.project([50, 130])"), b.js("[innerWidth, innerHeight]")
        canvas = b.d.find_element("css selector", "#stage canvas")
        ActionChains(b.d).move_to_element_with_offset(
            canvas, int(q[0] - size[0] / 2), int(q[1] - size[1] / 2)).click().perform()
        b.wait("getComputedStyle(document.getElementById('gaugebox')).display === 'block'", 10,
               "the gauge's plot")
        title = b.js("document.getElementById('gauge-title').textContent")
        rows = b.js("silt.view.series.length")
        first = b.js("silt.view.series[0][1]")
        drawn = b.js("""(() => { const c = document.getElementById('gauge-plot');
            const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data; let n = 0;
            for (let k = 0; k < d.length; k += 4) if (d[k] > d[k + 2] + 50) ++n;  // yellowish
            return n; })()""")
        print(f"gauge: '{title}', {rows} samples, first depth {first:.3f} m, {drawn} plot pixels")
        if "reservoir" not in title or rows < 10 or abs(first - 10) > 0.05 or drawn < 100:
            fail(f"the reservoir gauge's plot: title '{title}', {rows} rows, first {first}, {drawn} px")
        b.shot(os.path.join(work, "swe_gauge.png"))
        check_pause(b, run, lambda: b.js("silt.status.steps"))
        b.click("pause")
        b.wait(f"silt.status.steps > 0 && !silt.status.paused", 20, "resume")
    finally:
        if b:
            b.quit()
        run.stop()


# ----------------------------------------------------------------------------------- bad input

def port_in_use(silt, source, work, shots):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        port = s.getsockname()[1]
        env = dict(os.environ, OMP_NUM_THREADS="1")
        p = subprocess.run([silt, "run", *dam_break(), "--backend", "cpu", "--out",
                            os.path.join(work, "out"), "--view", f"127.0.0.1:{port}"],
                           capture_output=True, text=True, timeout=120, env=env)
    print(p.stderr.strip())
    if p.returncode != 1:
        fail(f"exit code {p.returncode}, expected 1")
    errors = [l for l in p.stderr.splitlines() if "error" in l]
    if len(errors) != 1 or f"127.0.0.1:{port}" not in errors[0] or "in use" not in errors[0]:
        fail(f"expected one error naming 127.0.0.1:{port} and 'in use', got {errors}")
    for bad in ["70000", "host:", "abc", "::1:80"] + ([] if civetweb_has_ipv6() else ["[::1]:0"]):
        p = subprocess.run([silt, "run", "--view", bad, "--backend", "cpu"], capture_output=True,
                           text=True, timeout=60)
        if p.returncode != 1 or f"--view '{bad}'" not in p.stderr:
            fail(f"--view {bad}: exit {p.returncode}, stderr {p.stderr!r}")


def civetweb_has_ipv6():
    """Whether the civetweb silt links was built with IPv6 (feature 8; Debian's is not)."""
    import ctypes
    try:
        return bool(ctypes.CDLL("libcivetweb.so.1").mg_check_feature(8))
    except OSError:
        return False


def raw_get(port, path):
    """GET path exactly as given (no client-side normalisation): (status, body)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), body


def bad_requests(silt, source, work, shots):
    run = Run(silt, dam_break(), work)
    try:
        for path in ["/", "/index.html", "/viewer.js", "/three/three.min.js"]:
            status, body = raw_get(run.port, path)
            if status != 200 or not body:
                fail(f"GET {path}: {status}, {len(body)} bytes")
        status, body = raw_get(run.port, "/")
        if b"silt viewer" not in body:
            fail("GET / is not the viewer's page")
        refused = ["/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/..%2f..%2f..%2fetc%2fpasswd",
                   "/three/../../../../etc/passwd", "/three/..%2f..%2f..%2f..%2fetc/passwd",
                   "//etc/passwd", "/etc/passwd", "/viewer.js/../../../etc/passwd",
                   "/%2e%2e%2f%2e%2e%2fetc%2fpasswd", "/three/build/three.min.js", "/ws/../etc/passwd",
                   "/../../../../../../proc/self/environ", "/%252e%252e/etc/passwd"]
        for path in refused:
            status, body = raw_get(run.port, path)
            if status == 200 or b"root:" in body or b"PATH=" in body:
                fail(f"GET {path}: {status}, body {body[:80]!r}")
        print(f"{len(refused)} paths outside the page refused (404)")
        if not run.alive():
            fail("silt ended while serving requests")
        # Loopback only: the machine's other addresses do not answer.
        others = []
        try:
            for _, _, _, _, addr in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
                others.append(addr[0])
        except socket.gaierror:
            pass
        if shutil.which("hostname"):
            others += subprocess.run(["hostname", "-I"], capture_output=True, text=True).stdout.split()
        others = sorted(set(others))
        for addr in [a for a in others if ":" not in a and not a.startswith("127.")]:
            with socket.socket() as s:
                s.settimeout(3)
                if s.connect_ex((addr, run.port)) == 0:
                    fail(f"the viewer answers on {addr}:{run.port}; it should listen on 127.0.0.1 only")
            print(f"not listening on {addr}")
        if not [a for a in others if ":" not in a and not a.startswith("127.")]:
            print("note: this machine has no other IPv4 address to try")
    finally:
        run.stop()


def ws_handshake(port, rcvbuf=None):
    """A raw WebSocket connection (so a test can misbehave at the byte level)."""
    s = socket.socket()
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.connect(("127.0.0.1", port))
    s.sendall(b"GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
              b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
    head = b""
    while b"\r\n\r\n" not in head:
        head += s.recv(1)
    if b" 101 " not in head:
        fail(f"no WebSocket upgrade: {head[:80]!r}")
    return s


# What a page says once it has handled a frame; the server sends a client at most
# FRAMES_IN_FLIGHT frames it has not acknowledged (view::Client::kFramesInFlight).
SHOWN = '{"cmd": "shown"}'
FRAMES_IN_FLIGHT = 2


def ws_send_text(s, text):
    """One text message from a raw client (masked, as RFC 6455 asks of clients; under 126 bytes)."""
    data = text.encode()
    mask = os.urandom(4)
    s.sendall(bytes([0x81, 0x80 | len(data)]) + mask + bytes(c ^ mask[i % 4] for i, c in enumerate(data)))


def ws_send_frame(s, payload, opcode=0x1):
    """One WebSocket frame of raw bytes from a raw client (masked; under 126 bytes)."""
    mask = os.urandom(4)
    s.sendall(bytes([0x80 | opcode, 0x80 | len(payload)]) + mask +
              bytes(c ^ mask[i % 4] for i, c in enumerate(payload)))


def ws_read_text(s, timeout):
    """The payload of the next text frame the server sends a raw client (binary frames skipped)."""
    s.settimeout(timeout)
    buf = b""

    def need(n):  # reads no further than this frame: the next call starts at the next one
        nonlocal buf
        while len(buf) < n:
            chunk = s.recv(n - len(buf))
            if not chunk:
                fail("the server closed the connection")
            buf += chunk
    while True:
        need(2)
        opcode, n, at = buf[0] & 0xF, buf[1] & 0x7F, 2
        if n == 126:
            need(4)
            n, at = struct.unpack(">H", buf[2:4])[0], 4
        elif n == 127:
            need(10)
            n, at = struct.unpack(">Q", buf[2:10])[0], 10
        need(at + n)
        payload, buf = buf[at:at + n], buf[at + n:]
        if opcode == 0x1:
            return payload


async def receive(ws, seconds, ack=True):
    """What arrives on `ws` for `seconds`: (binary frame headers, text messages), each mpm / swe
    frame acknowledged as the page does unless ack is False."""
    headers, texts, end = [], [], time.time() + seconds
    while time.time() < end:
        try:
            m = await asyncio.wait_for(ws.recv(), timeout=max(0.05, end - time.time()))
        except asyncio.TimeoutError:
            break
        if isinstance(m, bytes):
            n = struct.unpack("<I", m[4:8])[0]
            h = json.loads(m[8:8 + n])
            headers.append(h)
            if ack and h["type"] in ("mpm", "swe"):
                await ws.send(SHOWN)
        else:
            texts.append(json.loads(m))
    return headers, texts


def frame_times(headers):
    return [h["time"] for h in headers if h["type"] in ("mpm", "swe")]


async def watch(port, seconds, send=()):
    """A well-behaved client: sends `send`, then counts frames (acknowledging each) and error
    replies for `seconds`."""
    import websockets
    async with websockets.connect(f"ws://127.0.0.1:{port}/ws", max_size=None) as ws:
        for m in send:
            await ws.send(m)
        headers, texts = await receive(ws, seconds)
    times = frame_times(headers)
    return len(times), [j["message"] for j in texts if j["type"] == "error"], times


def bad_clients(silt, source, work, shots):
    run = Run(silt, sand_column(source), work)
    try:
        malformed = ["not json", '{"cmd": "explode"}', '{"cmd": 3}', "[]", '{"cmd":"pause","x":1}',
                     b"\x00\x01binary", "x" * 10000]
        frames, errors, _ = asyncio.run(watch(run.port, 3, malformed))
        print(f"malformed: {len(errors)} error replies, e.g. {errors[:2]}")
        if len(errors) != len(malformed):
            fail(f"{len(malformed)} malformed messages, {len(errors)} error replies: {errors}")
        # A browser that pauses the run and leaves: the last one leaving resumes it.
        asyncio.run(watch(run.port, 1.5, ['{"cmd": "pause"}']))
        lines = run.frame_lines()
        time.sleep(3)
        if not run.frame_lines() > lines or "the last browser left" not in run.text():
            fail("the run stayed paused after the browser that paused it left")
        print("paused by a browser that left: the run goes on")
        # Mid-frame disconnects: read a few bytes of a frame, then reset the connection.
        for _ in range(8):
            s = ws_handshake(run.port)
            s.settimeout(10)
            s.recv(64)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            s.close()
        # A client that never reads, with a small receive buffer, stays connected meanwhile.
        stalled = ws_handshake(run.port, rcvbuf=4096)
        frames, errors, times = asyncio.run(watch(run.port, 4))
        print(f"with a stalled client: {frames} frames in 4 s, time {times[:1]} -> {times[-1:]}")
        if frames < 5 or not times or not times[-1] > times[0]:
            fail(f"a good client got {frames} frames, times {times[:1]}..{times[-1:]}")
        if not run.alive():
            fail(f"silt ended:\n{run.text()}")
        lines = run.frame_lines()
        time.sleep(2)
        if not run.frame_lines() > lines:
            fail("the run stopped stepping with a stalled client connected")
        stalled.close()
    finally:
        run.stop()


def hostile_frames(silt, source, work, shots):
    run = Run(silt, sand_column(source), work)
    try:
        for payload in (b"\xff", b'{"cmd": "\xff"}', b'{"cmd": "pause\xc3"}', b"\xc3\x28"):
            s = ws_handshake(run.port)
            ws_send_frame(s, payload)
            deadline = time.time() + 20
            while True:
                reply = json.loads(ws_read_text(s, 20))
                if reply.get("type") == "error":
                    break
                if time.time() > deadline:
                    fail(f"no error reply to the text frame {payload!r}")
            s.close()
            print(f"text frame {payload!r}: error reply {reply['message'][:60]!r}")
            time.sleep(0.5)
            if not run.alive():
                fail(f"silt ended after the text frame {payload!r}:\n{run.text()}")
        lines = run.frame_lines()
        frames, _, times = asyncio.run(watch(run.port, 3))
        if frames < 3 or not run.frame_lines() > lines:
            fail(f"after the bad frames: {frames} frames to a good client, run {lines} -> "
                 f"{run.frame_lines()} frame lines")
        print(f"the run goes on: {frames} frames to a good client in 3 s")
    finally:
        run.stop()


def crowd_socket(port, send=b""):
    """A socket from 127.0.0.2 (another address than the good client's) to the viewer."""
    s = socket.socket()
    s.bind(("127.0.0.2", 0))
    s.settimeout(10)
    s.connect(("127.0.0.1", port))
    if send:
        s.sendall(send)
    return s


def closed_within(s, seconds):
    """True when the server closes (or resets) s within `seconds`, whatever it sent before."""
    s.settimeout(min(1.0, seconds))
    end = time.time() + seconds
    while time.time() < end:
        try:
            if not s.recv(65536):
                return True
        except socket.timeout:
            continue
        except OSError:
            return True
    return False


def crowded(silt, source, work, shots):
    run = Run(silt, sand_column(source), work)
    held = []
    try:
        # Issue 39: 24 idle sockets (civetweb's 24 threads) or 150 slowloris ones locked every
        # viewer out while the run went on.
        for _ in range(60):
            held.append(crowd_socket(run.port))  # silent
        for _ in range(60):
            held.append(crowd_socket(run.port, b"GET / HTTP/1.1\r\nHost: x\r\n"))  # slowloris
        for _ in range(30):
            try:
                held.append(crowd_socket(run.port, b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: "
                                         b"websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: "
                                         b"dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"))
            except OSError:
                pass
        time.sleep(1)
        t0 = time.time()
        frames, _, times = asyncio.run(watch(run.port, 4))
        print(f"{len(held)} sockets from 127.0.0.2: a client on 127.0.0.1 got {frames} frames in "
              f"4 s (connected after {time.time() - t0 - 4:.2f} s)")
        if frames < 3:
            fail(f"with {len(held)} sockets held from another address, a good client got "
                 f"{frames} frames")
        # Beyond the per-address limit the server closed them at once; the rest time out.
        closed = sum(closed_within(s, 0.05) for s in held)
        print(f"closed at once (over the per-address limit): {closed} of {len(held)}")
        if closed < len(held) - 20:
            fail(f"only {closed} of {len(held)} sockets from one address were refused")
        silent = crowd_socket(run.port)
        trickle = crowd_socket(run.port, b"GET / HTTP/1.1\r\n")
        for s in held:
            s.close()
        held = [silent, trickle]
        for what, s, limit in (("a silent socket", silent, 20), ("a slowloris header", trickle, 20)):
            t = time.time()
            if not closed_within(s, limit):
                fail(f"{what} was not closed within {limit} s")
            print(f"{what}: closed after {time.time() - t:.1f} s")
        # An idle WebSocket that answers no ping is closed after six unanswered pings.
        idle = ws_handshake(run.port)
        held.append(idle)
        t = time.time()
        if not closed_within(idle, 60):
            fail("an idle WebSocket that answers no ping was not closed within 60 s")
        print(f"an idle WebSocket: closed after {time.time() - t:.1f} s")
        if not run.alive():
            fail(f"silt ended:\n{run.text()}")
    finally:
        for s in held:
            s.close()
        run.stop()


async def paced(port):
    """A client that handles no frame for 3 s, then one, then every frame: (frame times before,
    after the one acknowledgement, during the last 2 s)."""
    import websockets

    async def frames_for(ws, seconds, ack):
        return frame_times((await receive(ws, seconds, ack))[0])

    async with websockets.connect(f"ws://127.0.0.1:{port}/ws", max_size=None) as ws:
        headers, texts = await receive(ws, 3, False)
        held = frame_times(headers)
        # Frames the viewer made meanwhile (its status says, 4 times a second).
        sent = [j["frames_sent"] for j in texts if j["type"] == "status"]
        await ws.send(SHOWN)
        one = await frames_for(ws, 2, False)
        await ws.send(SHOWN)
        await ws.send(SHOWN)
        flowing = await frames_for(ws, 2, True)
    return held, sent, one, flowing


def paced_client(silt, source, work, shots):
    """Frames wait for the page: a client that acknowledges none gets FRAMES_IN_FLIGHT while the
    run goes on; one acknowledgement lets exactly one more through, the newest state."""
    run = Run(silt, sand_column(source), work)
    try:
        lines = run.frame_lines()
        held, sent, one, flowing = asyncio.run(paced(run.port))
        ran = run.frame_lines() - lines
        made = sent[-1] - sent[0] if sent else -1
        print(f"unacknowledged: {len(held)} frames in 3 s (times {held[:4]}), the viewer made "
              f"{made} meanwhile; after one 'shown': {len(one)} ({one[:4]}); acknowledging: "
              f"{len(flowing)} in 2 s; the run wrote {ran} frame lines meanwhile")
        if len(held) != FRAMES_IN_FLIGHT:
            fail(f"a client that acknowledged nothing got {len(held)} frames in 3 s, expected "
                 f"{FRAMES_IN_FLIGHT}")
        # Frames nobody can take are not made (copied off the device, encoded) at all.
        if len(sent) < 8 or not 0 <= made <= FRAMES_IN_FLIGHT:
            fail(f"the viewer made {made} frames ({len(sent)} status messages) while its one "
                 f"client could take {FRAMES_IN_FLIGHT}")
        if len(one) != 1:
            fail(f"one 'shown' let {len(one)} frames through, expected 1")
        # The newest state, not the next one in line: the run went on for 3 s in between.
        if not one[0] > held[-1] + 3 / 60:
            fail(f"the frame after the acknowledgement is at {one[0]} s, barely after {held[-1]} s")
        if len(flowing) < 5 or ran < 10:
            fail(f"acknowledging every frame: {len(flowing)} frames in 2 s; the run: {ran} frames")
        if not run.alive():
            fail(f"silt ended:\n{run.text()}")
    finally:
        run.stop()


async def replay_client(port, seconds):
    """What a client of `silt view` gets: (hello scene, terrain seen, frame headers, gauge rows)."""
    import websockets
    async with websockets.connect(f"ws://127.0.0.1:{port}/ws", max_size=None) as ws:
        headers, texts = await receive(ws, seconds)
    scene = next((j["scene"] for j in texts if j["type"] == "hello"), None)
    gauges = [len(j["rows"]) for j in texts if j["type"] == "gauge_history"]
    return (scene, any(h["type"] == "terrain" for h in headers),
            [h for h in headers if h["type"] != "terrain"], gauges[-1] if gauges else 0)


async def replay_pause(port):
    """A replay paused by its client (the frame loop's hold hook, as in a live run): frames while
    running, at most the one in flight and the last frame again while paused, frames again after
    resume."""
    import websockets
    async with websockets.connect(f"ws://127.0.0.1:{port}/ws", max_size=None) as ws:
        running = frame_times((await receive(ws, 1.5))[0])
        await ws.send('{"cmd": "pause"}')
        paused = frame_times((await receive(ws, 2.0))[0])
        await ws.send('{"cmd": "resume"}')
        resumed = frame_times((await receive(ws, 2.0))[0])
    return running, paused, resumed


def replay(silt, source, work, shots):
    env = dict(os.environ, OMP_NUM_THREADS="1")
    mpm_out, swe_out = os.path.join(work, "mpm"), os.path.join(work, "swe")
    subprocess.run([silt, "run", *sand_column(source)[:1], "--set", "domain.dx=0.03125",
                    "--set", "run.frames=6", "--set", 'outputs.formats=["ply"]',
                    "--set", "outputs.png=false", "--backend", "cpu", "--out", mpm_out],
                   check=True, capture_output=True, env=env, timeout=300)
    subprocess.run([silt, "run", "--set", "run.end_time=2.4", "--set", "run.output_interval=0.6",
                    "--set", 'outputs.png="none"', "--set", 'outputs.formats=["asc"]',
                    "--backend", "cpu", "--out", swe_out],
                   check=True, capture_output=True, env=env, timeout=300)
    for out, solver, nframes in ((mpm_out, "mpm", 7), (swe_out, "swe", 5)):
        port = free_port()
        log = open(os.path.join(work, f"view_{solver}.log"), "w")
        p = subprocess.Popen([silt, "view", out, "--view", f"127.0.0.1:{port}"],
                             stdout=subprocess.DEVNULL, stderr=log)
        try:
            deadline = time.time() + 60
            while "silt view:" not in open(log.name).read():
                if p.poll() is not None or time.time() > deadline:
                    fail(f"silt view {out} did not start: {open(log.name).read()}")
                time.sleep(0.1)
            scene, terrain, frames, gauges = asyncio.run(replay_client(port, 6))
            running, paused, resumed = asyncio.run(replay_pause(port))
        finally:
            p.send_signal(signal.SIGTERM)
            rc = p.wait(30)
        times = [h["time"] for h in frames]
        print(f"{solver} replay: {len(frames)} frames, times {times[:nframes + 1]}, terrain "
              f"{terrain}, {gauges} gauge rows, exit {rc}")
        if scene is None or scene["solver"] != solver:
            fail(f"{solver} replay: hello {scene}")
        if len(frames) < nframes or times[:nframes] != sorted(times[:nframes]) or times[0] != 0:
            fail(f"{solver} replay: frames at {times}, expected {nframes} in order from 0")
        if solver == "mpm" and not all(h["full"] and h["count"] == frames[0]["count"] for h in frames):
            fail("mpm replay: frames without every particle")
        if solver == "swe" and (not terrain or gauges < 20):
            fail(f"swe replay: terrain {terrain}, {gauges} gauge rows (24 written)")
        print(f"{solver} replay paused: frames {running} running, {paused} paused, {resumed} "
              "after resume")
        if len(running) < 2 or len(paused) > 2 or len(resumed) < 2:
            fail(f"{solver} replay: {len(running)} frames running, {len(paused)} paused (at most "
                 f"the one in flight and the last again), {len(resumed)} after resume")
        if rc != 0:
            fail(f"silt view exited {rc} on SIGTERM")
    p = subprocess.run([silt, "view", work, "--view", f"127.0.0.1:{free_port()}"],
                       capture_output=True, text=True, timeout=60)
    if p.returncode != 1 or "resolved_scene.json" not in p.stderr:
        fail(f"silt view of a folder that is not a run's: exit {p.returncode}, {p.stderr!r}")


def unwatched(silt, source, work, shots):
    env = dict(os.environ, OMP_NUM_THREADS="1")
    cases = {"swe": ["--set", "run.end_time=1.2", "--set", "run.output_interval=0.6",
                     "--set", 'outputs.png="none"', "--set", 'outputs.formats=["asc"]'],
             "mpm": [*sand_column(source)[:3], "--set", "run.frames=4",
                     "--set", 'outputs.formats=["ply"]', "--set", "outputs.png=false"]}
    for name, args in cases.items():
        outs = []
        for view in (False, True):
            out = os.path.join(work, f"{name}_{'view' if view else 'plain'}")
            cmd = [silt, "run", *args, "--backend", "cpu", "--out", out]
            if view:
                cmd += ["--view", f"127.0.0.1:{free_port()}"]
            p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                 env=env)
            log = ""
            for line in p.stderr:  # a watched run lingers after its last frame: end it then
                log += line
                if "the run is complete" in line:
                    p.send_signal(signal.SIGTERM)
            p.wait(300)
            if p.returncode != 0:
                fail(f"{' '.join(cmd)}: exit {p.returncode}\n{log}")
            outs.append(out)
        files = sorted(f for f in os.listdir(outs[0]) if f.endswith((".asc", ".ply", ".csv")))
        if len(files) < 3:
            fail(f"{name}: only {files} written")
        for f in files:
            a, b = (open(os.path.join(o, f), "rb").read() for o in outs)
            if a != b:
                fail(f"{name}: {f} differs between the run with --view (nobody watching) and without")
        print(f"{name}: {len(files)} files identical with and without --view")


def dam_break_replay_folder(silt, out):
    """A finished dam break with four fields per frame (5 frames) and two gauges 1 m apart."""
    gauges = ('[{"name": "reservoir", "x": 50, "y": 130}, {"name": "gauge_a", "x": 150, '
              '"y": 130}, {"name": "gauge_b", "x": 151, "y": 130.5}]')
    subprocess.run([silt, "run", "--set", "run.end_time=2.4", "--set", "run.output_interval=0.6",
                    "--set", 'outputs.png="none"', "--set", 'outputs.formats=["asc"]',
                    "--set", 'outputs.fields=["depth","velocity","level","max_depth"]',
                    "--set", f"outputs.gauges.points={gauges}", "--backend", "cpu", "--out", out],
                   check=True, capture_output=True, env=dict(os.environ, OMP_NUM_THREADS="1"),
                   timeout=300)


def view_folder(silt, out, work):
    """`silt view OUT` in the background: (process, url)."""
    port = free_port()
    log = open(os.path.join(work, "view.log"), "w")
    p = subprocess.Popen([silt, "view", out, "--view", f"127.0.0.1:{port}"],
                         stdout=subprocess.DEVNULL, stderr=log)
    deadline = time.time() + 60
    while "silt view:" not in open(log.name).read():
        if p.poll() is not None or time.time() > deadline:
            fail(f"silt view {out} did not start: {open(log.name).read()}")
        time.sleep(0.1)
    return p, f"http://127.0.0.1:{port}/"


def value_in(text, name):
    """The number after `name` in the page's read-out ("depth 9.98 m" -> 9.98), or None."""
    m = re.search(re.escape(name) + r" (-?[0-9.e+-]+)", text)
    return float(m.group(1)) if m else None


def labels_apart(b, names):
    """The placed labels of `names`: every one shown, no two boxes overlapping."""
    labels = {l["text"]: l for l in b.js("silt.labels")}
    boxes = [labels[n]["box"] for n in names if labels.get(n, {}).get("shown")]
    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            a, c = boxes[i], boxes[j]
            if a[0] < c[2] and c[0] < a[2] and a[1] < c[3] and c[1] < a[3]:
                fail(f"labels overlap: {names} at {boxes}")
    return labels


def replay_tools(silt, source, work, shots):
    """The page on a replay: the slider scrubs to any frame, pause and step; colour by each field
    with its colour bar; the value under the cursor; two close gauges' labels apart; a PNG."""
    out, downloads = os.path.join(work, "swe"), os.path.join(work, "downloads")
    os.makedirs(downloads)
    dam_break_replay_folder(silt, out)
    p, url = view_folder(silt, out, work)
    b = None
    try:
        b = Browser(url, downloads=downloads)
        b.wait("silt.frames.length === 5 && silt.framesReceived > 0", 60, "the replay's 5 frames")
        if b.shown("sps") or b.shown("fps") or "replay" not in b.text("title"):
            fail("a replay's panel shows a frame rate or steps/s, or no 'replay'")
        b.click("pause")
        b.wait("silt.status && silt.status.paused", 20, "the replay to pause")
        b.slide(2)
        b.wait("silt.time === silt.frames[2]", 20, "frame 3 after the slider moved there")
        time.sleep(1.5)
        frames, t = b.js("silt.frames"), b.time()
        if t != frames[2] or b.text("frame") != "frame 3 of 5":
            fail(f"paused on frame 3: time {t} (frames {frames}), panel '{b.text('frame')}'")
        b.click("step")
        b.wait("silt.time === silt.frames[3]", 20, "the next frame after step")
        print(f"slider: frame 3 at {frames[2]} s stays while paused, step shows {frames[3]} s; "
              f"panel '{b.text('frame')}', label '{b.text('slider-label')}'")
        options = b.js("[...document.getElementById('colour').options].map((o) => o.value)")
        if sorted(options) != ["depth", "level", "max_depth", "velocity"] or options[0] != "depth":
            fail(f"the colour menu offers {options}, not the four fields written")
        read = b.point_at([30, 60])
        depth = value_in(read, "depth")
        print(f"over the reservoir: {read!r}")
        if depth is None or abs(depth - 10) > 0.05 or abs(value_in(read, "x") - 30) > 1.5:
            fail(f"the read-out over the reservoir (10 m deep) is {read!r}")
        read = b.point_at([100, 40])
        if "depth dry" not in read:
            fail(f"the read-out over the dry dam is {read!r}")
        b.colour_by("velocity")
        b.wait("document.getElementById('cb-title').textContent === 'speed, m/s'", 10,
               "the colour bar of the speed")
        read = b.point_at([100, 130])  # in the breach: the water runs
        speed = value_in(read, "speed")
        print(f"colour by speed: bar '{b.text('cb-title')}' {b.text('cb-min')} .. "
              f"{b.text('cb-max')}; in the breach {read!r}")
        if speed is None or not 1 < speed < 20:
            fail(f"the speed in the breach reads {read!r}")
        b.colour_by("level")
        b.wait("document.getElementById('cb-title').textContent === 'level, m'", 10, "level")
        if abs(value_in(b.point_at([30, 60]), "level") - 10) > 0.05:
            fail("the level over the reservoir is not 10 m")
        labels = labels_apart(b, ["gauge_a", "gauge_b"])
        shown = [n for n in ("gauge_a", "gauge_b") if labels[n]["shown"]]
        naive = abs(b.js("silt.project([150, 130])[0] - silt.project([151, 130.5])[0]")) < 20
        print(f"gauges 1 m apart: labels shown {shown}, boxes "
              f"{[labels[n]['box'] for n in shown]} (the same offset for both would overlap: {naive})")
        if not shown or not naive:
            fail(f"two close gauges: shown {shown}")
        b.colour_by("depth")
        img = b.snapshot()
        size = b.js("[innerWidth, innerHeight]")
        blue = lambda r, g, b_: b_ > r + 40 and b_ > g
        f = patch_fraction(img, b.js("silt.project([30, 60])"), 3, blue)
        print(f"PNG: {img.size}, {f:.2f} of the reservoir's pixels blue")
        if list(img.size) != size or f < 0.9:
            fail(f"the PNG of the view: {img.size} (window {size}), reservoir blue {f:.2f}")
        b.click("png")
        deadline = time.time() + 20
        while not [n for n in os.listdir(downloads) if n.endswith(".png")]:
            if time.time() > deadline:
                fail(f"the PNG button saved nothing in {downloads}: {os.listdir(downloads)}")
            time.sleep(0.2)
        saved = [n for n in os.listdir(downloads) if n.endswith(".png")][0]
        print(f"the PNG button saved {saved}")
        if not saved.startswith("silt_dam_break_t"):
            fail(f"the saved PNG is named {saved}")
        b.shot(os.path.join(work, "replay_tools.png"))
        keep_shot(os.path.join(work, "replay_tools.png"), shots, "viewer_replay.png")
    finally:
        if b:
            b.quit()
        p.send_signal(signal.SIGTERM)
        p.wait(30)


def live_slider(silt, source, work, shots):
    """A live run: the page goes back to an earlier frame while the run goes on, then live."""
    run = Run(silt, sand_column(source), work)
    b = None
    try:
        b = Browser(run.url)
        b.wait("silt.frames.length >= 6 && silt.framesReceived > 0", 60, "six frames kept")
        if b.shown("live"):
            fail("the live button shows while the page follows the run")
        frames = b.js("silt.frames")
        b.slide(1)
        b.wait(f"silt.time === {frames[1]}", 20, "the second frame after the slider moved there")
        lines, status = run.frame_lines(), b.js("silt.status.time")
        time.sleep(2)
        t, later = b.time(), b.js("silt.status.time")
        print(f"back at frame 2 ({frames[1]} s): still {t} s after 2 s while the run went from "
              f"{status} to {later} s ({run.frame_lines() - lines} frames); panel "
              f"'{b.text('frame')}'")
        if t != frames[1] or not later > status or not run.frame_lines() > lines:
            fail("going back: the page did not stay on the frame, or the run did not go on")
        if not b.shown("live") or not b.text("frame").startswith("frame 2 of"):
            fail(f"gone back: live button {b.shown('live')}, panel '{b.text('frame')}'")
        b.click("live")
        b.wait(f"silt.time > {later}", 30, "the newest frames after 'live'")
        if b.shown("live") or not b.text("frame").startswith("live"):
            fail(f"live again: live button {b.shown('live')}, panel '{b.text('frame')}'")
        print(f"live again: {b.time()} s, panel '{b.text('frame')}'")
    finally:
        if b:
            b.quit()
        run.stop()


def ended_run(silt, source, work, shots):
    """A run that ends before a browser connects: the page has every frame on its slider; MPM's
    attributes (stress and plastic written) colour the particles; the particle under the cursor."""
    args = [*sand_column(source)[:3], "--set", "run.frames=6", "--set", 'outputs.formats=["ply"]',
            "--set", "outputs.with_stress=true", "--set", "outputs.png=false"]
    run = Run(silt, args, work)
    b = None
    try:
        deadline = time.time() + 120
        while "the run is complete" not in run.text():
            if time.time() > deadline or not run.alive():
                fail(f"the run did not complete: {run.text()}")
            time.sleep(0.2)
        b = Browser(run.url)
        b.wait("silt.frames.length === 7 && silt.framesReceived > 0", 60, "the run's 7 frames")
        frames = b.js("silt.frames")
        if frames[0] != 0 or abs(frames[-1] - 6 / 60) > 1e-6:
            fail(f"the frames kept are at {frames}")
        b.slide(0)
        b.wait("silt.time === 0", 20, "the first frame")
        options = b.js("[...document.getElementById('colour').options].map((o) => o.value)")
        print(f"ended run: frames {frames}; colour menu {options}")
        if options != ["material", "speed", "pressure", "von_mises", "plastic"]:
            fail(f"the colour menu offers {options}")
        b.colour_by("pressure")
        b.wait("document.getElementById('cb-title').textContent === 'pressure, Pa'", 10, "Pa")
        b.slide(6)  # the last frame: the sand weighs on the column's base
        b.wait("silt.time === silt.frames[6]", 20, "the last frame")
        read = b.point_at([0.5, 0.05, 0.5])
        empty = b.point_at([0.5, 0.45, 0.5])
        print(f"over the column: {read!r}; above it: {empty!r}; bar {b.text('cb-min')} .. "
              f"{b.text('cb-max')}")
        # The sand weighs on itself (up to ~rho g h = 1600 x 9.81 x 0.3 m = 4.7 kPa at the base):
        # a particle on the column's face reads a positive pressure within the bar's range.
        top = float(b.text("cb-max").split()[0])
        if (not read.startswith("particle: sand") or not 1e3 < top < 2e4
                or not 0 < (value_in(read, "pressure") or 0) <= top):
            fail(f"the read-out over the column is {read!r}")
        if empty != "particle: none":
            fail(f"the read-out above the column is {empty!r}")
        img = b.snapshot()
        bg = img.getpixel((img.width - 5, 5))
        col = img.getpixel(tuple(int(v) for v in b.js("silt.project([0.5, 0.05, 0.5])")))
        print(f"PNG: {img.size}, background {bg}, column {col}")
        if not near(bg, (30, 34, 40), 6) or near(col, bg, 20):
            fail(f"the PNG: background {bg}, column {col}")
    finally:
        if b:
            b.quit()
        run.stop()
    if run.proc.returncode != 0:
        fail(f"silt exited {run.proc.returncode} on SIGTERM after the run")
    # Shallow water likewise: every output frame (not the gauges' stops), with every field.
    run = Run(silt, ["--set", "run.end_time=2.4", "--set", "run.output_interval=0.6",
                     "--set", 'outputs.png="none"', "--set", "outputs.formats=[]",
                     "--set", 'outputs.hazard={"fields": ["class"]}'], os.path.join(work, "swe"))
    try:
        deadline = time.time() + 120
        while "the run is complete" not in run.text():
            if time.time() > deadline or not run.alive():
                fail(f"the dam break did not complete: {run.text()}")
            time.sleep(0.2)
        headers = asyncio.run(replay_client(run.port, 2))[2]
        kept = asyncio.run(frames_kept(run.port))
    finally:
        run.stop()
    layers = [l["name"] for l in headers[0]["layers"]] if headers else []
    print(f"ended dam break: frames kept at {kept}; layers {layers}")
    if kept != [0, 0.6, 1.2, 1.8, 2.4]:
        fail(f"the dam break's frames kept are at {kept}, not its 5 output times")
    if layers != ["depth", "level", "velocity", "max_depth", "hazard_class"]:
        fail(f"the dam break's frame has the layers {layers}")


async def frames_kept(port):
    """The times of the frames a page's slider spans (the 'frames' message)."""
    import websockets
    async with websockets.connect(f"ws://127.0.0.1:{port}/ws", max_size=None) as ws:
        texts = (await receive(ws, 1))[1]
    return [j["times"] for j in texts if j["type"] == "frames"][-1]


def main():
    silt, source, work, case = sys.argv[1:5]
    shots = sys.argv[5] if len(sys.argv) > 5 else ""
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    {"mpm_browser": mpm_browser, "swe_browser": swe_browser, "port_in_use": port_in_use,
     "bad_requests": bad_requests, "bad_clients": bad_clients, "paced_client": paced_client,
     "hostile_frames": hostile_frames, "crowded": crowded,
     "replay": replay, "unwatched": unwatched, "replay_tools": replay_tools,
     "live_slider": live_slider, "ended_run": ended_run}[case](silt, source, work, shots)
    print("PASS")


if __name__ == "__main__":
    main()
