// Shallow-water frames: any field of the frame (depth, level, speed, max depth, concentration,
// hazard class, ...; the mapped one first) in a colour ramp over a hillshade of the terrain, north
// up, with a colour bar (field and units), a scale bar, the gauges as points and the cross
// sections as lines, their labels kept apart (labels.js); click a gauge for its depth so far; the
// cell under the cursor reads out. Drag to pan, wheel to zoom.
'use strict';

// ColorBrewer ramps, as in io/image/map.cpp.
const kBlues = [[198, 219, 239], [107, 174, 214], [33, 113, 181], [8, 81, 156], [8, 48, 107]];
const kHeat = [[255, 255, 178], [254, 204, 92], [253, 141, 60], [240, 59, 32], [189, 0, 38]];
const kViridis = [[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]];
const kClasses = [[254, 217, 118], [253, 141, 60], [227, 26, 28], [128, 0, 38]];  // H1..H4
const kWaterOpacity = 0.8;  // of the field over the terrain, as in the PNG maps

// The colour ramp of a field: the PNG maps' for depth and concentration, classes for the hazard
// class, viridis for the rest.
function rampOf(name) {
  if (/depth/.test(name)) return kBlues;
  if (/concentration/.test(name)) return kHeat;
  if (name === 'hazard_class') return kClasses;
  return kViridis;
}

class SweView {
  constructor(stage, scene) {
    this.scene = scene;
    this.stops = scene.field === 'depth' ? kBlues : kHeat;
    this.layers = [];     // the frame's fields: {name, units, lo, hi, range, data: Uint16Array}
    this.colourBy = null;
    this.canvas = document.createElement('canvas');
    stage.appendChild(this.canvas);
    this.ctx = this.canvas.getContext('2d');
    this.image = document.createElement('canvas');  // one pixel per cell sent
    this.image.width = scene.nx;
    this.image.height = scene.ny;
    this.pixels = this.image.getContext('2d').createImageData(scene.nx, scene.ny);
    this.shade = null;
    this.field = null;
    this.series = [];    // gauge rows [t, h per gauge]
    this.selected = -1;  // the gauge whose series is shown
    this.plotDue = false;  // a redraw of the plot is queued for the next animation frame
    this.fit();
    this.interact();
    document.getElementById('scalebar').style.display = 'block';
    window.addEventListener('resize', () => { this.fit(); this.draw(); });
  }

  // Whole grid in the window: metres to CSS pixels.
  fit() {
    const w = window.innerWidth, h = window.innerHeight;
    this.canvas.width = w;
    this.canvas.height = h;
    const ext = [this.scene.nx * this.scene.dx, this.scene.ny * this.scene.dx];
    this.zoom = 0.9 * Math.min(w / ext[0], h / ext[1]);  // px per m
    this.cx = this.scene.x0 + ext[0] / 2;                  // m at the window centre
    this.cy = this.scene.y0 + ext[1] / 2;
  }

  project(p) {
    return [window.innerWidth / 2 + (p[0] - this.cx) * this.zoom,
            window.innerHeight / 2 - (p[1] - this.cy) * this.zoom];
  }

  unproject(px, py) {
    return [this.cx + (px - window.innerWidth / 2) / this.zoom,
            this.cy - (py - window.innerHeight / 2) / this.zoom];
  }

  interact() {
    let drag = null;
    this.canvas.addEventListener('mousedown', (e) => { drag = {x: e.clientX, y: e.clientY, moved: false}; });
    window.addEventListener('mouseup', (e) => {
      if (drag && !drag.moved) this.click(e.clientX, e.clientY);
      drag = null;
    });
    window.addEventListener('mousemove', (e) => {
      if (!drag) return;
      const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
      if (Math.abs(dx) + Math.abs(dy) > 2) drag.moved = true;
      this.cx -= dx / this.zoom;
      this.cy += dy / this.zoom;
      drag.x = e.clientX;
      drag.y = e.clientY;
      this.draw();
    });
    this.canvas.addEventListener('wheel', (e) => {
      e.preventDefault();
      const before = this.unproject(e.clientX, e.clientY);
      this.zoom *= Math.exp(-e.deltaY * 0.0015);
      const after = this.unproject(e.clientX, e.clientY);
      this.cx += before[0] - after[0];
      this.cy += before[1] - after[1];
      this.draw();
    }, {passive: false});
  }

  click(px, py) {
    this.selected = -1;
    this.scene.gauges.forEach((g, k) => {
      const q = this.project([g.x, g.y]);
      if (Math.hypot(q[0] - px, q[1] - py) < 10) this.selected = k;
    });
    this.plot();
    this.draw();
  }

  layer() { return this.layers.find((l) => l.name === this.colourBy) || this.layers[0]; }

  colourOptions() { return this.layers.map((l) => ({value: l.name, label: labelOf(l.name)})); }

  setColourBy(name) {
    if (name === this.colourBy) return;
    this.colourBy = name;
    this.compose();
    this.draw();
  }

  colourBar() {
    const l = this.layer();
    if (!l) return;
    const units = l.units.replace(' s-1', '/s').replace(' m-3', '/m^3').replace('m2', 'm^2');
    const top = l.name === this.scene.field ? `≥ ${fmtValue(l.range[1])}` : fmtValue(l.range[1]);
    silt.colourBar(`${labelOf(l.name)}, ${units}`, rampOf(l.name), fmtValue(l.range[0]), `${top} ${units}`);
  }

  frame(h, buf, offset) {
    const n = this.scene.nx * this.scene.ny;
    if (h.type === 'terrain') this.shade = new Uint8Array(buf.slice(offset, offset + n));
    else if (h.type === 'swe') {
      this.layers = h.layers.map((l, k) => Object.assign(
        {data: new Uint16Array(buf, offset + k * ((2 * n + 3) & ~3), n)}, l));
      if (!this.layers.some((l) => l.name === this.colourBy) && this.layers.length)
        this.colourBy = this.layers[0].name;
    } else return;
    this.compose();
    this.draw();
  }

  // The value of the chosen field at cell c of the image (NaN: no data).
  value(l, c) {
    const q = l.data[c];
    return q === 0 ? NaN : l.lo + (q - 1) / 65534 * (l.hi - l.lo);
  }

  // What the cursor points at: map coordinates and the chosen field's value there.
  valueAt(px, py) {
    const s = this.scene, p = this.unproject(px, py);
    const i = Math.floor((p[0] - s.x0) / s.dx), j = Math.floor((p[1] - s.y0) / s.dx);
    if (i < 0 || j < 0 || i >= s.nx || j >= s.ny) return '';
    const l = this.layer(), where = `x ${p[0].toFixed(1)} m, y ${p[1].toFixed(1)} m`;
    if (this.shade && this.shade[j * s.nx + i] === 0) return `${where}\ninactive cell`;
    if (!l) return where;
    const v = this.value(l, j * s.nx + i);
    const units = l.units.replace(' s-1', '/s').replace(' m-3', '/m^3');
    return `${where}\n${labelOf(l.name)} ${isNaN(v) ? (/depth/.test(l.name) ? 'dry' : 'no data') : `${fmtValue(v)} ${units}`}`;
  }

  // One RGBA pixel per cell: the chosen field over the hillshade; rows arrive from the south.
  compose() {
    const {nx, ny} = this.scene, px = this.pixels.data, l = this.layer();
    const stops = l ? rampOf(l.name) : kBlues, classes = l && l.name === 'hazard_class';
    const r0 = l ? l.range[0] : 0, span = l ? Math.max(l.range[1] - l.range[0], 1e-30) : 1;
    for (let j = 0; j < ny; ++j)
      for (let i = 0; i < nx; ++i) {
        const c = j * nx + i, o = 4 * ((ny - 1 - j) * nx + i);
        const s = this.shade ? this.shade[c] : 200;
        if (s === 0) { px[o + 3] = 0; continue; }
        const grey = 255 * (s - 1) / 254;
        let rgb = [grey, grey, grey];
        const v = l ? this.value(l, c) : NaN;
        if (!isNaN(v)) {
          const w = classes ? kClasses[Math.min(3, Math.max(0, Math.round(v) - 1))]
            : rampColour(stops, (v - r0) / span);
          rgb = rgb.map((g, q) => (1 - kWaterOpacity) * g + kWaterOpacity * w[q]);
        }
        px[o] = rgb[0]; px[o + 1] = rgb[1]; px[o + 2] = rgb[2]; px[o + 3] = 255;
      }
    this.image.getContext('2d').putImageData(this.pixels, 0, 0);
    this.colourBar();
  }

  draw() {
    const ctx = this.ctx, s = this.scene;
    ctx.fillStyle = '#1e2228';
    ctx.fillRect(0, 0, this.canvas.width, this.canvas.height);
    ctx.imageSmoothingEnabled = false;
    const tl = this.project([s.x0, s.y0 + s.ny * s.dx]);
    ctx.drawImage(this.image, tl[0], tl[1], s.nx * s.dx * this.zoom, s.ny * s.dx * this.zoom);
    this.drawLabelled(ctx);
    this.scaleBar();
  }

  // Cross sections as lines, gauges as points, then every label where it overlaps no other
  // (the selected gauge's first); silt.labels is what was placed, for the tests.
  drawLabelled(ctx) {
    const s = this.scene, items = [];
    for (const sec of s.sections || []) {
      const pts = sec.points.map((p) => this.project(p));
      ctx.beginPath();
      pts.forEach((q, k) => (k ? ctx.lineTo(q[0], q[1]) : ctx.moveTo(q[0], q[1])));
      ctx.strokeStyle = '#ffe066';
      ctx.lineWidth = 2;
      ctx.stroke();
      const mid = pts[Math.floor((pts.length - 1) / 2)], next = pts[Math.floor((pts.length - 1) / 2) + 1];
      items.push({text: sec.name, x: (mid[0] + next[0]) / 2, y: (mid[1] + next[1]) / 2});
    }
    s.gauges.forEach((g, k) => {
      const q = this.project([g.x, g.y]);
      ctx.beginPath();
      ctx.arc(q[0], q[1], k === this.selected ? 7 : 5, 0, 2 * Math.PI);
      ctx.fillStyle = k === this.selected ? '#ffcc33' : '#ff6633';
      ctx.fill();
      ctx.strokeStyle = '#000';
      ctx.lineWidth = 1;
      ctx.stroke();
      const item = {text: g.name, x: q[0], y: q[1]};
      if (k === this.selected) items.unshift(item); else items.push(item);
    });
    ctx.font = '12px sans-serif';
    silt.labels = placeLabels(ctx, items, this.canvas.width, this.canvas.height);
    for (const l of silt.labels) {
      if (!l.shown) continue;
      ctx.fillStyle = 'rgba(20, 22, 26, 0.6)';
      ctx.fillRect(l.box[0], l.box[1], l.box[2] - l.box[0], l.box[3] - l.box[1]);
      ctx.fillStyle = '#fff';
      ctx.fillText(l.text, l.x, l.y);
    }
  }

  // A bar of 1, 2 or 5 x 10^k m about 120 px long.
  scaleBar() {
    const target = 120 / this.zoom, p = Math.pow(10, Math.floor(Math.log10(target)));
    const len = [1, 2, 5, 10].map((f) => f * p).filter((l) => l <= target).pop() || p;
    document.getElementById('sb-bar').style.width = `${len * this.zoom}px`;
    document.getElementById('sb-label').textContent = len >= 1000 ? `${len / 1000} km` : `${len} m`;
  }

  // Rows arrive as often as the run samples them (hundreds a second for a fast run): the plot is
  // redrawn once per animation frame at most.
  gauges(rows) {
    for (const r of rows) this.series.push(r);
    if (this.selected < 0 || this.plotDue) return;
    this.plotDue = true;
    requestAnimationFrame(() => { this.plotDue = false; this.plot(); });
  }

  plot() {
    const box = document.getElementById('gaugebox');
    if (this.selected < 0) { box.style.display = 'none'; return; }
    box.style.display = 'block';
    const g = this.scene.gauges[this.selected];
    document.getElementById('gauge-title').textContent = `gauge '${g.name}': depth, m, against time, s`;
    const cv = document.getElementById('gauge-plot'), ctx = cv.getContext('2d');
    const W = cv.width, H = cv.height, L = 40, B = 20;
    ctx.fillStyle = '#14161a';
    ctx.fillRect(0, 0, W, H);
    const rows = this.series, c = 1 + this.selected, n = rows.length;
    if (n < 1) return;
    const t0 = rows[0][0], t1 = Math.max(rows[n - 1][0], t0 + 1e-9);
    let hmax = 1e-9;
    for (const r of rows) hmax = Math.max(hmax, r[c]);
    hmax *= 1.1;
    ctx.strokeStyle = '#667';
    ctx.strokeRect(L, 4, W - L - 4, H - B - 4);
    ctx.fillStyle = '#ccc';
    ctx.font = '11px sans-serif';
    ctx.fillText(hmax.toPrecision(3), 2, 12);
    ctx.fillText('0', 2, H - B);
    ctx.fillText(t0.toFixed(1), L, H - 6);
    ctx.fillText(t1.toFixed(1), W - 40, H - 6);
    ctx.strokeStyle = '#ffcc33';
    ctx.lineWidth = 2;
    // One vertical segment per pixel column (its rows' lowest to highest depth), however long the
    // series: a long run's plot costs what a short one's does.
    const xOf = (t) => Math.round(L + (t - t0) / (t1 - t0) * (W - L - 4));
    const yOf = (h) => H - B - h / hmax * (H - B - 4);
    ctx.beginPath();
    for (let k = 0; k < n;) {
      const x = xOf(rows[k][0]);
      let lo = rows[k][c], hi = lo, last = lo;
      for (; k < n && xOf(rows[k][0]) === x; ++k) {
        last = rows[k][c];
        lo = Math.min(lo, last);
        hi = Math.max(hi, last);
      }
      if (x === xOf(rows[0][0])) ctx.moveTo(x, yOf(lo)); else ctx.lineTo(x, yOf(lo));
      ctx.lineTo(x, yOf(hi));
      ctx.lineTo(x, yOf(last));
    }
    ctx.stroke();
  }
}
