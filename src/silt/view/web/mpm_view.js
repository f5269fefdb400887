// MPM frames: particles as point sprites (shaded spheres, darker with depth) coloured by material
// or by any attribute the frame carries (speed, pressure, von Mises stress, plastic), the domain
// box and the colliders, and an orbit camera (drag: rotate, wheel: zoom, right drag: pan); the
// particle under the cursor reads out. Positions arrive as uint16 in the domain box and are
// placed by the shader.
'use strict';

// Attribute ramp (low to high): dark blue, teal, yellow, red.
const kSpeedStops = [[40, 60, 160], [40, 170, 170], [240, 220, 60], [220, 50, 40]];

const kPointVertex = `
  attribute float material;
  attribute float value;
  uniform vec3 boxMin;
  uniform vec3 boxSize;
  uniform float radius;      // m
  uniform float pointScale;  // pixels per m at unit distance
  uniform float byValue;
  uniform vec3 palette[16];
  uniform vec3 speedStops[4];
  varying vec3 vColour;
  varying float vDepth;
  void main() {
    vec3 p = boxMin + position * boxSize;
    vec4 mv = modelViewMatrix * vec4(p, 1.0);
    gl_Position = projectionMatrix * mv;
    gl_PointSize = max(1.5, 2.0 * radius * pointScale / -mv.z);
    int m = int(clamp(material, 0.0, 15.0));
    vec3 c = palette[0];
    for (int k = 1; k < 16; ++k) if (k == m) c = palette[k];
    float s = clamp(value, 0.0, 1.0) * 3.0;
    vec3 sc = s < 1.0 ? mix(speedStops[0], speedStops[1], s)
            : s < 2.0 ? mix(speedStops[1], speedStops[2], s - 1.0)
                      : mix(speedStops[2], speedStops[3], s - 2.0);
    vColour = byValue > 0.5 ? sc : c;
    vDepth = -mv.z;
  }`;

const kPointFragment = `
  uniform float nearDepth;
  uniform float farDepth;
  varying vec3 vColour;
  varying float vDepth;
  void main() {
    vec2 d = gl_PointCoord * 2.0 - 1.0;
    float r2 = dot(d, d);
    if (r2 > 1.0) discard;
    vec3 n = vec3(d.x, -d.y, sqrt(1.0 - r2));
    float light = 0.45 + 0.55 * max(dot(n, normalize(vec3(0.4, 0.6, 0.7))), 0.0);
    float fade = 1.0 - 0.45 * clamp((vDepth - nearDepth) / max(farDepth - nearDepth, 1e-6), 0.0, 1.0);
    gl_FragColor = vec4(vColour * light * fade, 1.0);
  }`;

class MpmView {
  constructor(stage, scene) {
    this.scene = scene;
    const lo = scene.domain_min, hi = scene.domain_max;
    this.boxMin = new THREE.Vector3(lo[0], lo[1], lo[2]);
    this.boxSize = new THREE.Vector3(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
    const centre = this.boxMin.clone().addScaledVector(this.boxSize, 0.5);
    const diag = this.boxSize.length();
    this.renderer = new THREE.WebGLRenderer({antialias: true, preserveDrawingBuffer: true});
    this.renderer.setPixelRatio(window.devicePixelRatio || 1);
    this.renderer.setClearColor(0x1e2228);
    this.renderer.localClippingEnabled = true;
    stage.appendChild(this.renderer.domElement);
    this.camera = new THREE.PerspectiveCamera(40, 1, diag / 1000, diag * 20);
    // The PNG previews' view: from the front (+z), a little right and above.
    this.camera.position.set(centre.x + 0.35 * diag, centre.y + 0.35 * diag, centre.z + 1.5 * diag);
    this.controls = new THREE.OrbitControls(this.camera, this.renderer.domElement);
    this.controls.target.copy(centre);
    this.controls.update();
    this.three = new THREE.Scene();
    this.addDomain(centre);
    this.addColliders(diag);
    this.uniforms = {
      boxMin: {value: this.boxMin}, boxSize: {value: this.boxSize},
      radius: {value: 0.5 * scene.dx}, pointScale: {value: 1}, byValue: {value: 0},
      palette: {value: this.palette()}, nearDepth: {value: 0}, farDepth: {value: 1},
      speedStops: {value: kSpeedStops.map((c) => new THREE.Vector3(c[0] / 255, c[1] / 255, c[2] / 255))},
    };
    this.material = new THREE.ShaderMaterial({
      uniforms: this.uniforms, vertexShader: kPointVertex, fragmentShader: kPointFragment});
    this.points = null;
    this.attrs = [];       // the frame's attributes: {name, units, lo, hi, data: Uint16Array}
    this.colourBy = 'material';
    this.legend();
    window.addEventListener('resize', () => this.resize());
    this.resize();
    const loop = () => { this.draw(); requestAnimationFrame(loop); };
    requestAnimationFrame(loop);
  }

  palette() {
    const p = [];
    for (let k = 0; k < 16; ++k) {
      const m = this.scene.materials[k];
      const c = m ? m.colour : [128, 128, 128];
      p.push(new THREE.Vector3(c[0] / 255, c[1] / 255, c[2] / 255));
    }
    return p;
  }

  attr() { return this.attrs.find((a) => a.name === this.colourBy); }

  colourOptions() {
    return [{value: 'material', label: 'material'}].concat(
      this.attrs.map((a) => ({value: a.name, label: labelOf(a.name)})));
  }

  // Material: the swatches in the panel; an attribute: the colour bar over the frame's range.
  legend() {
    const el = document.getElementById('legend'), a = this.attr();
    el.innerHTML = '';
    if (a) {
      silt.colourBar(`${labelOf(a.name)}, ${a.units}`, kSpeedStops, fmtValue(a.lo), `${fmtValue(a.hi)} ${a.units}`);
      return;
    }
    silt.colourBar(null);
    for (const m of this.scene.materials)
      el.innerHTML += `<div><span class="sw" style="background:rgb(${m.colour.join(',')})"></span>${m.name}</div>`;
  }

  setColourBy(by) {
    this.colourBy = by;
    const a = this.attr();
    this.uniforms.byValue.value = a ? 1 : 0;
    if (this.points) {
      const data = a ? a.data : new Uint16Array(this.count);
      this.points.geometry.setAttribute('value', new THREE.BufferAttribute(data, 1, true));
    }
    this.legend();
  }

  addDomain(centre) {
    const box = new THREE.BoxBufferGeometry(this.boxSize.x, this.boxSize.y, this.boxSize.z);
    const lines = new THREE.LineSegments(new THREE.EdgesGeometry(box),
      new THREE.LineBasicMaterial({color: 0x8090a0}));
    lines.position.copy(centre);
    this.three.add(lines);
  }

  addColliders(diag) {
    // Colliders cut to the domain box; those with a velocity move with the frames' time.
    this.moving = [];
    const lo = this.boxMin, hi = this.boxMin.clone().add(this.boxSize);
    const clip = [
      new THREE.Plane(new THREE.Vector3(1, 0, 0), -lo.x), new THREE.Plane(new THREE.Vector3(-1, 0, 0), hi.x),
      new THREE.Plane(new THREE.Vector3(0, 1, 0), -lo.y), new THREE.Plane(new THREE.Vector3(0, -1, 0), hi.y),
      new THREE.Plane(new THREE.Vector3(0, 0, 1), -lo.z), new THREE.Plane(new THREE.Vector3(0, 0, -1), hi.z)];
    const surface = new THREE.MeshBasicMaterial({color: 0x708090, transparent: true, opacity: 0.25,
      side: THREE.DoubleSide, clippingPlanes: clip, depthWrite: false});
    const wire = new THREE.MeshBasicMaterial({color: 0x90a0b0, wireframe: true, clippingPlanes: clip});
    const v = (a) => new THREE.Vector3(a[0], a[1], a[2]);
    for (const c of this.scene.colliders) {
      let mesh = null;
      if (c.kind === 'plane') {
        mesh = new THREE.Mesh(new THREE.PlaneBufferGeometry(2 * diag, 2 * diag), surface);
        mesh.quaternion.setFromUnitVectors(new THREE.Vector3(0, 0, 1), v(c.normal).normalize());
        mesh.position.copy(v(c.point));
      } else if (c.kind === 'sphere') {
        mesh = new THREE.Mesh(new THREE.SphereBufferGeometry(c.radius, 24, 16), wire);
        mesh.position.copy(v(c.center));
      } else if (c.kind === 'cylinder') {
        mesh = new THREE.Mesh(new THREE.CylinderBufferGeometry(c.radius, c.radius, 2 * diag, 32, 1, true), wire);
        mesh.quaternion.setFromUnitVectors(new THREE.Vector3(0, 1, 0), v(c.axis).normalize());
        mesh.position.copy(v(c.center));
      } else if (c.kind === 'box') {
        const size = v(c.box_max).sub(v(c.box_min));
        mesh = new THREE.Mesh(new THREE.BoxBufferGeometry(size.x, size.y, size.z), surface);
        mesh.position.copy(v(c.box_min).addScaledVector(size, 0.5));
      }
      if (!mesh) continue;
      this.three.add(mesh);
      if (v(c.velocity).lengthSq() > 0)
        this.moving.push({mesh, base: mesh.position.clone(), velocity: v(c.velocity)});
    }
  }

  frame(h, buf, offset) {
    if (h.type !== 'mpm') return;
    const n = h.count;
    const pos = new Uint16Array(buf, offset, 3 * n);
    let o = offset + ((6 * n + 3) & ~3);
    const mat = new Uint8Array(buf, o, n);
    o += (n + 3) & ~3;
    this.attrs = (h.attributes || []).map((a) => {
      const data = new Uint16Array(buf, o, n);
      o += (2 * n + 3) & ~3;
      return Object.assign({data}, a);
    });
    this.pos = pos;
    this.mat = mat;
    this.count = n;
    const g = new THREE.BufferGeometry();
    g.setAttribute('position', new THREE.BufferAttribute(pos, 3, true));
    g.setAttribute('material', new THREE.BufferAttribute(mat, 1, false));
    if (this.points) {
      this.three.remove(this.points);
      this.points.geometry.dispose();
    }
    this.points = new THREE.Points(g, this.material);
    this.points.frustumCulled = false;  // the bounds of the uint16 attribute are not in metres
    this.three.add(this.points);
    if (!this.attr()) this.colourBy = 'material';
    this.setColourBy(this.colourBy);
    // A subset is drawn with larger sprites so that the material still looks filled.
    const fill = n > 0 && h.total > n ? Math.cbrt(h.total / n) : 1;
    this.uniforms.radius.value = 0.5 * this.scene.dx * fill;
    for (const m of this.moving) m.mesh.position.copy(m.base).addScaledVector(m.velocity, h.time);
    this.speedMax = h.speed_max;
  }

  // The particle nearest the cursor on screen (within 8 px; of those, the nearest the camera):
  // its material and the chosen attribute's value, or "none".
  valueAt(px, py) {
    if (!this.pos) return '';
    this.camera.updateMatrixWorld();
    const m = new THREE.Matrix4().multiplyMatrices(this.camera.projectionMatrix, this.camera.matrixWorldInverse).elements;
    const W = window.innerWidth, H = window.innerHeight, lo = this.boxMin, sz = this.boxSize;
    let best = -1, bestZ = Infinity;
    for (let i = 0; i < this.count; ++i) {
      const x = lo.x + sz.x * this.pos[3 * i] / 65535, y = lo.y + sz.y * this.pos[3 * i + 1] / 65535,
        z = lo.z + sz.z * this.pos[3 * i + 2] / 65535;
      const w = m[3] * x + m[7] * y + m[11] * z + m[15];
      if (w <= 0) continue;
      const sx = ((m[0] * x + m[4] * y + m[8] * z + m[12]) / w + 1) / 2 * W;
      const sy = (1 - (m[1] * x + m[5] * y + m[9] * z + m[13]) / w) / 2 * H;
      const d = (sx - px) * (sx - px) + (sy - py) * (sy - py);
      if (d < 64 && w < bestZ) { best = i; bestZ = w; }
    }
    if (best < 0) return 'particle: none';
    const mat = this.scene.materials[this.mat[best]];
    let text = `particle: ${mat ? mat.name : `material ${this.mat[best]}`}`;
    const a = this.attr();
    if (a) text += `\n${labelOf(a.name)} ${fmtValue(a.lo + a.data[best] / 65535 * (a.hi - a.lo))} ${a.units}`;
    return text;
  }

  resize() {
    const w = window.innerWidth, h = window.innerHeight;
    this.renderer.setSize(w, h);
    this.camera.aspect = w / h;
    this.camera.updateProjectionMatrix();
    const px = h * (window.devicePixelRatio || 1);
    this.uniforms.pointScale.value = px / (2 * Math.tan((this.camera.fov * Math.PI) / 360));
  }

  draw() {
    this.controls.update();
    // Depth shading spans the domain box as seen from the camera.
    const d = this.camera.position.distanceTo(this.controls.target), r = 0.5 * this.boxSize.length();
    this.uniforms.nearDepth.value = Math.max(0, d - r);
    this.uniforms.farDepth.value = d + r;
    this.renderer.render(this.three, this.camera);
  }

  project(p) {
    const v = new THREE.Vector3(p[0], p[1], p[2]).project(this.camera);
    return [(v.x + 1) / 2 * window.innerWidth, (1 - v.y) / 2 * window.innerHeight];
  }
}
