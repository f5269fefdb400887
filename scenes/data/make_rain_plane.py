#!/usr/bin/env python3
"""Writes the input rasters of scenes/rain_plane.json (ESRI ASCII, so that builds without GDAL
read them too):

  rain_plane_storm_<k>.asc  k = 0..6: a radar-like storm on 100 m cells (10 x 8 over the 1 km x
                            800 m catchment), one frame every 10 minutes, in mm/h: a Gaussian
                            cell of 80 mm/h peak, 250 m wide, moving east at 0.25 m/s over 15
                            mm/h of stratiform rain; frame 6 (60 min) is dry.
  rain_plane_ks.asc         Green-Ampt saturated conductivity on the scene's 20 m grid, mm/h:
                            sandy loam (10.9 mm/h, Rawls et al. 1983) on the planes, 3 mm/h
                            (compacted) within 60 m of the channel.

Run from anywhere: python3 scenes/data/make_rain_plane.py
"""
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def write_asc(name, rows_south_first, dx, x0=0.0, y0=0.0, fmt="{:.3f}"):
    ny = len(rows_south_first)
    nx = len(rows_south_first[0])
    with open(os.path.join(HERE, name), "w") as f:
        f.write(f"ncols {nx}\nnrows {ny}\nxllcorner {x0}\nyllcorner {y0}\n")
        f.write(f"cellsize {dx}\nNODATA_value -9999\n")
        for row in reversed(rows_south_first):  # the file holds the north row first
            f.write(" ".join(fmt.format(v) for v in row) + "\n")


def storm(t):
    if t >= 3600.0:
        return lambda x, y: 0.0
    cx, cy = 100.0 + 0.25 * t, 450.0

    def rate(x, y):
        r2 = (x - cx) ** 2 + (y - cy) ** 2
        return 15.0 + 80.0 * math.exp(-r2 / (2 * 250.0**2))

    return rate


for k in range(7):
    t = 600.0 * k
    r = storm(t)
    rows = [[r(100.0 * (i + 0.5), 100.0 * (j + 0.5)) for i in range(10)] for j in range(8)]
    write_asc(f"rain_plane_storm_{k}.asc", rows, 100.0)

ks = [[3.0 if abs(20.0 * (i + 0.5) - 500.0) < 60.0 else 10.9 for i in range(50)] for j in range(40)]
write_asc("rain_plane_ks.asc", ks, 20.0, fmt="{:.1f}")
