// Shallow-water frames: the mapped field (depth or concentration) in the PNG maps' colour ramp
// over a hillshade of the terrain, north up, with a colour bar (field and units), a scale bar and
// the gauges as points; click a gauge for its depth so far. Drag to pan, wheel to zoom.
'use strict';

// ColorBrewer ramps, as in io/png_map.cpp.
const kBlues = [[198, 219, 239], [107, 174, 214], [33, 113, 181], [8, 81, 156], [8, 48, 107]];
const kHeat = [[255, 255, 178], [254, 204, 92], [253, 141, 60], [240, 59, 32], [189, 0, 38]];
const kWaterOpacity = 0.8;  // of the field over the terrain, as in the PNG maps

class SweView {
  constructor(stage, scene) {
    this.scene = scene;
    this.stops = scene.field === 'depth' ? kBlues : kHeat;
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
    this.colourBar();
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

  colourBar() {
    document.getElementById('colourbar').style.display = 'block';
    document.getElementById('scalebar').style.display = 'block';
    document.getElementById('cb-title').textContent = `${this.scene.field}, ${this.scene.units}`;
    document.getElementById('cb-ramp').style.background = cssGradient(this.stops);
    document.getElementById('cb-min').textContent = '0';
    document.getElementById('cb-max').textContent = `≥ ${this.scene.vmax} ${this.scene.units}`;
  }

  frame(h, buf, offset) {
    const n = this.scene.nx * this.scene.ny;
    if (h.type === 'terrain') this.shade = new Uint8Array(buf.slice(offset, offset + n));
    else if (h.type === 'swe') this.field = new Uint16Array(buf, offset, n);
    else return;
    this.compose();
    this.draw();
  }

  // One RGBA pixel per cell: the field over the hillshade; rows arrive from the south.
  compose() {
    const {nx, ny} = this.scene, px = this.pixels.data;
    for (let j = 0; j < ny; ++j)
      for (let i = 0; i < nx; ++i) {
        const c = j * nx + i, o = 4 * ((ny - 1 - j) * nx + i);
        const s = this.shade ? this.shade[c] : 200;
        if (s === 0) { px[o + 3] = 0; continue; }
        const grey = 255 * (s - 1) / 254;
        let rgb = [grey, grey, grey];
        const v = this.field ? this.field[c] : 0;
        if (v > 0) {
          const w = rampColour(this.stops, (v - 1) / 65534);
          rgb = rgb.map((g, q) => (1 - kWaterOpacity) * g + kWaterOpacity * w[q]);
        }
        px[o] = rgb[0]; px[o + 1] = rgb[1]; px[o + 2] = rgb[2]; px[o + 3] = 255;
      }
    this.image.getContext('2d').putImageData(this.pixels, 0, 0);
  }

  draw() {
    const ctx = this.ctx, s = this.scene;
    ctx.fillStyle = '#1e2228';
    ctx.fillRect(0, 0, this.canvas.width, this.canvas.height);
    ctx.imageSmoothingEnabled = false;
    const tl = this.project([s.x0, s.y0 + s.ny * s.dx]);
    ctx.drawImage(this.image, tl[0], tl[1], s.nx * s.dx * this.zoom, s.ny * s.dx * this.zoom);
    s.gauges.forEach((g, k) => {
      const q = this.project([g.x, g.y]);
      ctx.beginPath();
      ctx.arc(q[0], q[1], k === this.selected ? 7 : 5, 0, 2 * Math.PI);
      ctx.fillStyle = k === this.selected ? '#ffcc33' : '#ff6633';
      ctx.fill();
      ctx.strokeStyle = '#000';
      ctx.stroke();
      ctx.fillStyle = '#fff';
      ctx.font = '12px sans-serif';
      ctx.fillText(g.name, q[0] + 8, q[1] - 6);
    });
    this.scaleBar();
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
