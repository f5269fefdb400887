#!/usr/bin/python3
"""Writes DIR/summary.html for a finished `silt run` output folder, one page a person opens to judge
the run: for a flood, the map of the maximum depth with its colour bar, the gauges' depths over
time, the mass balance and whether it closes; for MPM, a strip of the frames' previews; for both,
the run's speed when --wall gives its wall time. Prints the page's path and a line about the run.

  scripts/silt_summary.py silt-out/dam_break [--wall 0.41]

Python's standard library (the page's map is a PNG made here, the plots are inline SVG), and
GDAL's Python bindings (python3-gdal, installed with GDAL by install-deps.sh run) for a run that
wrote GeoTIFF rasters instead of ESRI ASCII ones.
"""
import argparse
import base64
import csv
import html
import json
import math
import os
import re
import struct
import sys
import zlib

# Colour ramp of the depth map (white water to deep blue), as silt's own depth PNGs read.
RAMP = [(0.0, (247, 251, 255)), (0.25, (198, 219, 239)), (0.5, (107, 174, 214)),
        (0.75, (33, 113, 181)), (1.0, (8, 48, 107))]
DRY = (235, 230, 220)  # cells with no water at any time
SERIES_COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]


def colour(f):
    f = min(max(f, 0.0), 1.0)
    for (a, ca), (b, cb) in zip(RAMP, RAMP[1:]):
        if f <= b:
            w = (f - a) / (b - a)
            return tuple(round(x + w * (y - x)) for x, y in zip(ca, cb))
    return RAMP[-1][1]


def read_asc(path):
    """ESRI ASCII grid: (header dict, rows top to bottom as lists of floats)."""
    with open(path) as f:
        head = {}
        for _ in range(6):
            k, v = f.readline().split()
            head[k.lower()] = float(v)
        rows = [[float(x) for x in line.split()] for line in f if line.strip()]
    return head, rows


def read_tif(path):
    """A GeoTIFF through GDAL: (header dict as read_asc gives it, rows top to bottom)."""
    try:
        from osgeo import gdal  # only for .tif: ESRI ASCII runs need nothing beyond python3
    except ImportError:
        sys.exit(f"silt_summary: reading '{path}' needs GDAL's Python bindings, which "
                 f"{sys.executable} has not: run it with Debian's /usr/bin/python3 "
                 "(apt-get install python3-gdal)")
    gdal.UseExceptions()
    ds = gdal.Open(path)
    band = ds.GetRasterBand(1)
    nodata = band.GetNoDataValue()
    head = {"cellsize": abs(ds.GetGeoTransform()[1]),
            "nodata_value": -9999.0 if nodata is None else nodata}
    rows = [[float(v) for v in row] for row in band.ReadAsArray().tolist()]
    return head, rows


def read_raster(path):
    return read_tif(path) if path.endswith(".tif") else read_asc(path)


def png(rows_rgb, scale):
    """A PNG (bytes) of rows of (r, g, b) tuples, each cell scale x scale pixels."""
    raw = bytearray()
    for row in rows_rgb:
        line = b"".join(bytes(px) * scale for px in row)
        raw += (b"\x00" + line) * scale
    h, w = len(rows_rgb) * scale, len(rows_rgb[0]) * scale

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(
            ">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(bytes(raw), 6)) + chunk(b"IEND", b""))


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], [[float(x) if x not in ("", "nan") else math.nan for x in r] for r in rows[1:]]


def svg_plot(t, series, ylabel, width=560, height=240):
    """An inline SVG line plot of series {name: values} over t, with axes and a legend."""
    ml, mr, mt, mb = 56, 12, 12, 36
    finite = [v for vs in series.values() for v in vs if math.isfinite(v)]
    if not t or not finite:
        return "<p>(no values)</p>"
    x0, x1 = min(t), max(t) if max(t) > min(t) else min(t) + 1
    y0, y1 = min(finite), max(finite)
    pad = 0.05 * (y1 - y0) if y1 > y0 else max(abs(y1), 1.0) * 0.05
    y0, y1 = y0 - pad, y1 + pad
    sx = lambda x: ml + (x - x0) / (x1 - x0) * (width - ml - mr)  # noqa: E731
    sy = lambda y: mt + (y1 - y) / (y1 - y0) * (height - mt - mb)  # noqa: E731
    out = [f'<svg width="{width}" height="{height}" font-size="11" font-family="sans-serif">',
           f'<rect x="{ml}" y="{mt}" width="{width - ml - mr}" height="{height - mt - mb}" '
           'fill="none" stroke="#999"/>']
    for i in range(5):
        yv = y0 + (y1 - y0) * i / 4
        xv = x0 + (x1 - x0) * i / 4
        out.append(f'<text x="{ml - 4}" y="{sy(yv) + 4:.1f}" text-anchor="end">{yv:.4g}</text>')
        out.append(f'<text x="{sx(xv):.1f}" y="{height - mb + 14}" text-anchor="middle">'
                   f'{xv:.4g}</text>')
    out.append(f'<text x="{(ml + width - mr) / 2}" y="{height - 4}" text-anchor="middle">'
               'time (s)</text>')
    out.append(f'<text x="12" y="{(mt + height - mb) / 2}" text-anchor="middle" '
               f'transform="rotate(-90 12 {(mt + height - mb) / 2})">{html.escape(ylabel)}</text>')
    for k, (name, vs) in enumerate(series.items()):
        c = SERIES_COLOURS[k % len(SERIES_COLOURS)]
        pts = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in zip(t, vs) if math.isfinite(y))
        out.append(f'<polyline points="{pts}" fill="none" stroke="{c}" stroke-width="1.5"/>')
        out.append(f'<text x="{ml + 8}" y="{mt + 14 + 13 * k}" fill="{c}">{html.escape(name)}'
                   '</text>')
    out.append("</svg>")
    return "\n".join(out)


def last_frame(folder, pattern):
    found = sorted((int(m.group(1)), f) for f in os.listdir(folder)
                   for m in [re.fullmatch(pattern, f)] if m)
    return found[-1][1] if found else None


def flood_sections(folder, notes):
    parts = []
    last = last_frame(folder, r"max_depth_(\d+)\.(?:asc|tif)")
    if last:
        head, rows = read_raster(os.path.join(folder, last))
        nodata = head.get("nodata_value", -9999.0)
        vals = [v for r in rows for v in r if v != nodata and math.isfinite(v)]
        top = max(vals) if vals else 0.0
        wet = sum(1 for v in vals if v > 1e-3)
        cell = head["cellsize"]
        notes.append(f"maximum depth {top:.3g} m; {wet * cell * cell:.4g} m^2 wet at some time")
        scale = max(1, min(4, 600 // max(len(rows), len(rows[0]))))
        rgb = [[DRY if (v == nodata or v <= 1e-3) else colour(v / top if top > 0 else 0)
                for v in r] for r in rows]
        data = base64.b64encode(png(rgb, scale)).decode()
        stops = ", ".join(f"rgb{colour(i / 8)} {100 * i / 8:.0f}%" for i in range(9))
        parts.append(
            f"<h2>Maximum depth ({html.escape(last)})</h2>"
            f'<img src="data:image/png;base64,{data}" alt="maximum depth map">'
            f'<div style="width:{len(rows[0]) * scale}px;height:14px;'
            f'background:linear-gradient(to right, {stops})"></div>'
            f'<div style="width:{len(rows[0]) * scale}px;display:flex;'
            f'justify-content:space-between"><span>0 m</span><span>{top / 2:.3g} m</span>'
            f"<span>{top:.3g} m</span></div>"
            f"<p>{len(rows[0])} x {len(rows)} cells of {cell:g} m; sand colour: never wet "
            f"(depth &le; 1 mm).</p>")
    gauges = os.path.join(folder, "gauges.csv")
    if os.path.exists(gauges):
        names, rows = read_csv(gauges)
        t = [r[0] for r in rows]
        series = {n[:-2]: [r[i] for r in rows] for i, n in enumerate(names) if n.endswith("_h_m")}
        if series:
            parts.append("<h2>Gauges: water depth</h2>" + svg_plot(t, series, "depth (m)"))
    hydro = os.path.join(folder, "hydrograph.csv")
    if os.path.exists(hydro):
        names, rows = read_csv(hydro)
        series = {n: [r[i] for r in rows] for i, n in enumerate(names)
                  if n.endswith("_m3_s")}
        if series and rows:
            parts.append("<h2>Hydrograph</h2>" + svg_plot([r[1] for r in rows], series,
                                                           "discharge (m^3/s)"))
    balance = os.path.join(folder, "mass_balance.csv")
    if os.path.exists(balance):
        names, rows = read_csv(balance)
        if rows:
            col = {n: i for i, n in enumerate(names)}
            first, end = rows[0], rows[-1]
            terms = [abs(end[col[n]]) for n in names if n.endswith("_m3") and n != "residual_m3"]
            res = end[col["residual_m3"]]
            rel = abs(res) / max(max(terms), 1e-300)
            notes.append(f"volume balance closes to {rel:.2g} of its largest term")
            cells = "".join(f"<tr><td>{html.escape(n)}</td><td>{first[i]:.10g}</td>"
                            f"<td>{end[i]:.10g}</td></tr>" for n, i in col.items())
            parts.append("<h2>Mass balance</h2><table border=1 cellpadding=3>"
                         "<tr><th>column</th><th>first frame</th><th>last frame</th></tr>"
                         f"{cells}</table><p>Residual at the end {res:.3g} m^3, {rel:.2g} of "
                         "the largest volume term.</p>")
            parts.append(svg_plot([r[col["time_s"]] for r in rows],
                                  {"stored": [r[col["stored_m3"]] for r in rows]}, "volume (m^3)"))
    return parts


def mpm_sections(folder):
    pngs = sorted(f for f in os.listdir(folder) if re.fullmatch(r"[a-z]+_\d+\.png", f))
    if not pngs:
        return []
    step = max(1, len(pngs) // 6)
    strip = "".join(f'<img src="{html.escape(f)}" width="180" alt="{html.escape(f)}"> '
                    for f in pngs[::step][:6])
    return [f"<h2>Frames ({len(pngs)} previews, every {step})</h2><p>{strip}</p>"]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("folder")
    p.add_argument("--wall", type=float, help="the run's wall time, s (the speed line)")
    a = p.parse_args()
    folder = a.folder
    scene = json.load(open(os.path.join(folder, "resolved_scene.json")))
    prov = scene.get("provenance", {})
    frames_names, frames = read_csv(os.path.join(folder, "frames.csv"))
    t_end = frames[-1][1] if frames else 0.0
    notes = []
    if a.wall:
        notes.append(f"{t_end:.4g} s simulated in {a.wall:.3g} s of wall time "
                     f"({t_end / a.wall:.3g} x real time)")
    solver = scene.get("solver", "")
    body = flood_sections(folder, notes) if solver == "swe" else mpm_sections(folder)
    last_png = last_frame(folder, r"depth_(\d+)\.png")
    if last_png:
        body.append(f"<h2>Last frame ({html.escape(last_png)})</h2>"
                    f'<img src="{html.escape(last_png)}" alt="depth at the last frame">')
    page = ("<!doctype html><meta charset=utf-8>"
            f"<title>silt: {html.escape(scene.get('name', ''))}</title>"
            "<body style='font-family:sans-serif;max-width:900px;margin:1em auto'>"
            f"<h1>{html.escape(scene.get('name', ''))} ({html.escape(solver)})</h1>"
            f"<p>{html.escape(scene.get('description', ''))}</p>"
            f"<ul><li>{len(frames)} frames to t = {t_end:.4g} s on "
            f"{html.escape(prov.get('backend', '?'))}</li>"
            + "".join(f"<li>{html.escape(n)}</li>" for n in notes)
            + f"<li>build: {html.escape(prov.get('build', '?'))}</li>"
            f"<li>files: <a href='.'>{html.escape(os.path.abspath(folder))}</a> "
            "(rasters, gauges.csv, hydrograph.csv, mass_balance.csv, "
            "resolved_scene.json)</li></ul>" + "\n".join(body) + "</body>")
    out = os.path.join(folder, "summary.html")
    with open(out, "w") as f:
        f.write(page)
    print(f"summary: {'; '.join(notes) or 'no notes'}")
    print(f"summary: open {os.path.abspath(out)}")


if __name__ == "__main__":
    sys.exit(main())
