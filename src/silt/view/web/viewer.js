// silt's live viewer, the part both solvers share: the WebSocket to the run, the wire format
// (docs/viewer.md, "Protocol"), the status panel and the pause / resume / step controls.
// mpm_view.js and swe_view.js draw the frames; `silt` is also what the CI test reads.
'use strict';

const silt = {
  scene: null,        // the run's scene, from the "hello" message
  view: null,         // MpmView or SweView
  ws: null,
  status: null,       // the last status message
  time: NaN,          // simulated time of the frame shown, s
  framesReceived: 0,
  lastHeader: null,
  colourBy: 'material',
  arrivals: [],       // wall times of the last frames, for the frame rate

  start() {
    document.getElementById('pause').onclick = () =>
      this.send(this.status && this.status.paused ? 'resume' : 'pause');
    document.getElementById('step').onclick = () => this.send('step');
    document.getElementById('colour').onchange = (e) => {
      this.colourBy = e.target.value;
      if (this.view && this.view.setColourBy) this.view.setColourBy(this.colourBy);
    };
    window.addEventListener('keydown', (e) => {
      if (e.target.tagName === 'SELECT') return;
      if (e.key === ' ') document.getElementById('pause').click();
      if (e.key === 's') this.send('step');
    });
    this.connect();
  },

  connect() {
    const ws = new WebSocket(`ws://${location.host}/ws`);
    ws.binaryType = 'arraybuffer';
    ws.onopen = () => this.setState('connected');
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

  send(cmd) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify({cmd}));
  },

  setState(text) { document.getElementById('state').textContent = text; },

  onText(m) {
    if (m.type === 'hello') {
      if (!this.scene) {
        this.scene = m.scene;
        document.getElementById('title').textContent = `silt: ${m.scene.name} (${m.scene.solver})`;
        const stage = document.getElementById('stage');
        this.view = m.scene.solver === 'mpm' ? new MpmView(stage, m.scene) : new SweView(stage, m.scene);
        document.getElementById('colour').style.display = m.scene.solver === 'mpm' ? '' : 'none';
      }
    } else if (m.type === 'status') {
      this.status = m;
      document.getElementById('sps').textContent = m.paused ? '0 (paused)' : Math.round(m.steps_per_s).toString();
      document.getElementById('pause').textContent = m.paused ? 'resume' : 'pause';
      this.setState(m.finished ? 'run complete' : m.paused ? 'paused' : 'running');
      if (!isFinite(this.time)) this.showTime(m.time);
    } else if (m.type === 'gauge' || m.type === 'gauge_history') {
      if (this.view && this.view.gauges) this.view.gauges(m.type === 'gauge' ? [m.row] : m.rows);
    } else if (m.type === 'error') {
      document.getElementById('message').textContent = m.message;
    }
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
      if (this.view) this.view.frame(header, buf, 8 + n);
    } finally {
      this.send('shown');
    }
    if (!this.view) return;
    this.lastHeader = header;
    this.framesReceived++;
    this.showTime(header.time);
    const now = performance.now();
    this.arrivals.push(now);
    while (this.arrivals.length > 1 && now - this.arrivals[0] > 3000) this.arrivals.shift();
    const span = (now - this.arrivals[0]) / 1000;
    document.getElementById('fps').textContent =
      this.arrivals.length > 1 ? `${((this.arrivals.length - 1) / span).toFixed(1)} frames/s` : '–';
    document.getElementById('shown').textContent = header.type === 'mpm'
      ? `${header.count.toLocaleString()} of ${header.total.toLocaleString()} particles${header.full ? '' : ' (subset)'}`
      : `${header.nx} x ${header.ny} cells`;
  },

  showTime(t) {
    this.time = t;
    document.getElementById('time').textContent = `${t.toFixed(3)} s`;
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
