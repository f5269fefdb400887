// silt's live viewer, the part both solvers share: the WebSocket to the run, the wire format
// (docs/viewer.md, "Protocol"), the status panel, the pause / resume / step controls, the time
// slider over the frames made so far (or the replay's), the colour menu and colour bar, the value
// under the cursor and the PNG of the view. mpm_view.js and swe_view.js draw the frames; `silt` is
// also what the CI test reads.
'use strict';

const silt = {
  scene: null,        // the run's scene, from the "hello" message
  replay: false,      // `silt view DIR`: the slider moves the replay, no steps/s
  view: null,         // MpmView or SweView
  ws: null,
  status: null,       // the last status message
  time: NaN,          // simulated time of the frame shown, s
  frames: [],         // times of the frames the slider spans, s
  following: true,    // a live run's page shows its newest frames (false: one chosen on the slider)
  dragging: false,    // the slider is held
  framesReceived: 0,
  lastHeader: null,
  colourBy: null,     // the name of the field or attribute the colours show
  arrivals: [],       // wall times of the last frames, for the frame rate
  hoverText: '',      // what the cursor points at (the #hover box)

  start() {
    const el = (id) => document.getElementById(id);
    el('pause').onclick = () => this.send(this.status && this.status.paused ? 'resume' : 'pause');
    el('step').onclick = () => this.send('step');
    el('live').onclick = () => this.goLive();
    el('png').onclick = () => this.savePng();
    el('colour').onchange = (e) => this.setColourBy(e.target.value);
    const slider = el('slider');
    slider.oninput = () => { this.dragging = true; this.seekIndex(+slider.value); };
    slider.onchange = () => { this.dragging = false; this.seekIndex(+slider.value); };
    window.addEventListener('keydown', (e) => {
      if (e.target.tagName === 'SELECT' || e.target.tagName === 'INPUT') return;
      if (e.key === ' ') el('pause').click();
      if (e.key === 's') this.send('step');
      if (e.key === 'l') this.goLive();
      if (e.key === 'p') this.savePng();
    });
    window.addEventListener('mousemove', (e) => this.hover(e.clientX, e.clientY));
    this.connect();
  },

  connect() {
    const ws = new WebSocket(`ws://${location.host}/ws`);
    ws.binaryType = 'arraybuffer';
    ws.onopen = () => { this.setState('connected'); this.following = true; this.showLive(); };
    ws.onclose = () => {
      this.setState('disconnected: the run has ended or the link is down; retrying');
      setTimeout(() => this.connect(), 1000);
    };
    ws.onmessage = (e) => {
      if (typeof e.data === 'string') this.onText(JSON.parse(e.data));
      else this.onBinary(e.data);
    };
    this.ws = ws;
  },

  send(cmd, extra) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN)
      this.ws.send(JSON.stringify(Object.assign({cmd}, extra || {})));
  },

  setState(text) { document.getElementById('state').textContent = text; },

  onText(m) {
    if (m.type === 'hello') {
      if (!this.scene) this.begin(m);
    } else if (m.type === 'frames') {
      this.frames = m.times;
      this.showFrame();
    } else if (m.type === 'status') {
      this.status = m;
      document.getElementById('sps').textContent = m.paused ? '0 (paused)' : Math.round(m.steps_per_s).toString();
      document.getElementById('pause').textContent = m.paused ? (this.replay ? 'play' : 'resume') : 'pause';
      this.setState(this.replay ? (m.paused ? 'replay, paused' : 'replay, playing')
        : m.finished ? 'run complete' : m.paused ? 'paused' : 'running');
      if (!isFinite(this.time)) this.showTime(m.time);
      this.showFrame();
    } else if (m.type === 'gauge' || m.type === 'gauge_history') {
      if (this.view && this.view.gauges) this.view.gauges(m.type === 'gauge' ? [m.row] : m.rows);
    } else if (m.type === 'error') {
      document.getElementById('message').textContent = m.message;
    }
  },

  begin(m) {
    this.scene = m.scene;
    this.replay = !!m.replay;
    document.getElementById('title').textContent =
      `silt: ${m.scene.name} (${m.scene.solver}${this.replay ? ', replay' : ''})`;
    for (const r of document.querySelectorAll('.live-only')) r.style.display = this.replay ? 'none' : '';
    document.getElementById('timeline').style.display = 'flex';
    const stage = document.getElementById('stage');
    this.view = m.scene.solver === 'mpm' ? new MpmView(stage, m.scene) : new SweView(stage, m.scene);
  },

  onBinary(buf) {
    const dv = new DataView(buf);
    if (buf.byteLength < 8 || String.fromCharCode(dv.getUint8(0), dv.getUint8(1), dv.getUint8(2), dv.getUint8(3)) !== 'SILT') return;
    const n = dv.getUint32(4, true);
    const header = JSON.parse(new TextDecoder().decode(new Uint8Array(buf, 8, n)));
    if (header.type === 'terrain') {
      if (this.view) this.view.frame(header, buf, 8 + n);
      return;
    }
    // The server sends the next frame once this one is handled (at most two unacknowledged), so a
    // page that draws slowly shows the latest state rather than working through a backlog.
    try {
      if (this.view) {
        this.view.frame(header, buf, 8 + n);
        this.colourMenu(this.view.colourOptions());
      }
    } finally {
      this.send('shown');
    }
    if (!this.view) return;
    this.lastHeader = header;
    this.framesReceived++;
    this.showTime(header.time);
    this.showFrame();
    const now = performance.now();
    this.arrivals.push(now);
    while (this.arrivals.length > 1 && now - this.arrivals[0] > 3000) this.arrivals.shift();
    const span = (now - this.arrivals[0]) / 1000;
    document.getElementById('fps').textContent =
      this.arrivals.length > 1 ? `${((this.arrivals.length - 1) / span).toFixed(1)} frames/s` : '–';
    document.getElementById('shown').textContent = header.type === 'mpm'
      ? `${header.count.toLocaleString()} of ${header.total.toLocaleString()} particles${header.full ? '' : ' (subset)'}`
      : `${header.nx} x ${header.ny} cells`;
    if (this.lastHover) this.hover(this.lastHover[0], this.lastHover[1]);
  },

  showTime(t) {
    this.time = t;
    document.getElementById('time').textContent = `${t.toFixed(3)} s`;
  },

  // ---- the time slider
  // Index of the frame nearest time t in this.frames (-1: none).
  indexOf(t) {
    let best = -1;
    for (let k = 0; k < this.frames.length; ++k)
      if (best < 0 || Math.abs(this.frames[k] - t) < Math.abs(this.frames[best] - t)) best = k;
    return best;
  },

  // The slider and the frame row: frame n of N (a replay, or a live page gone back), or live.
  showFrame() {
    const slider = document.getElementById('slider'), n = this.frames.length;
    slider.max = Math.max(0, n - 1);
    const k = isFinite(this.time) ? this.indexOf(this.time) : -1;
    if (!this.dragging) slider.value = this.following && !this.replay ? n - 1 : Math.max(0, k);
    const at = k >= 0 ? `frame ${k + 1} of ${n}` : `${n} frames`;
    const text = this.replay || !this.following ? at
      : `live (${n} frame${n === 1 ? '' : 's'} kept)`;
    document.getElementById('frame').textContent = text;
    document.getElementById('slider-label').textContent =
      k >= 0 && (this.replay || !this.following) ? `${at}, t = ${this.frames[k].toFixed(3)} s` : text;
  },

  seekIndex(k) {
    if (k < 0 || k >= this.frames.length) return;
    if (!this.replay) this.following = false;
    this.showLive();
    this.send('seek', {time: this.frames[k]});
  },

  goLive() {
    if (this.replay) return;
    this.following = true;
    this.showLive();
    this.send('live');
  },

  showLive() {
    document.getElementById('live').style.display = this.replay || this.following ? 'none' : 'inline-block';
    this.showFrame();
  },

  // ---- colours
  colourMenu(options) {
    const sel = document.getElementById('colour');
    const key = options.map((o) => o.value).join(',');
    if (sel.dataset.key !== key) {
      sel.dataset.key = key;
      sel.innerHTML = '';
      for (const o of options) {
        const opt = document.createElement('option');
        opt.value = o.value;
        opt.textContent = o.label;
        sel.appendChild(opt);
      }
    }
    if (!options.some((o) => o.value === this.colourBy) && options.length) this.colourBy = options[0].value;
    sel.value = this.colourBy;
    this.view.setColourBy(this.colourBy);
  },

  setColourBy(name) {
    this.colourBy = name;
    document.getElementById('colour').value = name;
    if (this.view) this.view.setColourBy(name);
    if (this.lastHover) this.hover(this.lastHover[0], this.lastHover[1]);
  },

  // The colour bar: a title, a ramp and its two ends.
  colourBar(title, stops, lo, hi) {
    const box = document.getElementById('colourbar');
    if (!title) { box.style.display = 'none'; return; }
    box.style.display = 'block';
    document.getElementById('cb-title').textContent = title;
    document.getElementById('cb-ramp').style.background = cssGradient(stops);
    document.getElementById('cb-min').textContent = lo;
    document.getElementById('cb-max').textContent = hi;
    this.bar = {title, stops, lo, hi};
  },

  // ---- the value under the cursor
  hover(px, py) {
    this.lastHover = [px, py];
    const box = document.getElementById('hover');
    const text = this.view && this.view.valueAt ? this.view.valueAt(px, py) : '';
    this.hoverText = text || '';
    box.style.display = text ? 'block' : 'none';
    box.textContent = this.hoverText;
  },

  // ---- a PNG of the view: the picture, the colour bar and the time, as a data URL
  snapshot() {
    const src = this.view.canvas || this.view.renderer.domElement;
    if (this.view.draw) this.view.draw();
    const c = document.createElement('canvas');
    c.width = src.width;
    c.height = src.height;
    const ctx = c.getContext('2d');
    ctx.drawImage(src, 0, 0);
    ctx.font = '13px sans-serif';
    const text = `${this.scene.name}  t = ${isFinite(this.time) ? this.time.toFixed(3) : '–'} s`;
    ctx.fillStyle = 'rgba(20, 22, 26, 0.85)';
    ctx.fillRect(8, c.height - 30, ctx.measureText(text).width + 16, 22);
    ctx.fillStyle = '#e8e8e8';
    ctx.fillText(text, 16, c.height - 14);
    const bar = document.getElementById('colourbar');
    if (this.bar && bar.style.display !== 'none') {
      const W = 220, x = c.width - W - 10, y = c.height - 64;
      ctx.fillStyle = 'rgba(20, 22, 26, 0.85)';
      ctx.fillRect(x - 8, y - 6, W + 16, 60);
      ctx.fillStyle = '#e8e8e8';
      ctx.fillText(this.bar.title, x, y + 10);
      const g = ctx.createLinearGradient(x, 0, x + W, 0);
      this.bar.stops.forEach((s, k) => g.addColorStop(k / (this.bar.stops.length - 1), `rgb(${s.join(',')})`));
      ctx.fillStyle = g;
      ctx.fillRect(x, y + 16, W, 12);
      ctx.fillStyle = '#e8e8e8';
      ctx.fillText(this.bar.lo, x, y + 44);
      const hi = String(this.bar.hi);
      ctx.fillText(hi, x + W - ctx.measureText(hi).width, y + 44);
    }
    return c.toDataURL('image/png');
  },

  savePng() {
    if (!this.view) return;
    const a = document.createElement('a');
    a.href = this.snapshot();
    const t = isFinite(this.time) ? this.time.toFixed(3) : '0';
    a.download = `silt_${this.scene.name.replace(/[^A-Za-z0-9_.-]/g, '_')}_t${t}.png`;
    document.body.appendChild(a);
    a.click();
    a.remove();
  },

  // Screen position (CSS pixels) of a point of the scene, m: [x, y, z] (MPM) or [x, y] (SWE).
  project(p) { return this.view ? this.view.project(p) : null; },
};

// A ramp of colour stops (0..255 each) sampled at s in [0, 1].
function rampColour(stops, s) {
  s = Math.min(1, Math.max(0, s)) * (stops.length - 1);
  const k = Math.min(stops.length - 2, Math.floor(s)), w = s - k;
  return [0, 1, 2].map((q) => (1 - w) * stops[k][q] + w * stops[k + 1][q]);
}

function cssGradient(stops) {
  return `linear-gradient(to right, ${stops.map((c) => `rgb(${c.join(',')})`).join(', ')})`;
}

// A number for people: 3 significant digits, no exponent for everyday magnitudes.
function fmtValue(v) {
  if (!isFinite(v)) return String(v);
  const a = Math.abs(v);
  if (a !== 0 && (a < 1e-3 || a >= 1e6)) return v.toExponential(2);
  return (+v.toPrecision(4)).toString();
}

// Field and attribute names as the menu shows them.
function labelOf(name) {
  const names = {velocity: 'speed', max_depth: 'max depth', max_level: 'max level',
    hazard_class: 'hazard class', von_mises: 'von Mises stress', plastic: 'plastic (log Jp / alpha)'};
  return names[name] || name.replace(/_/g, ' ');
}
