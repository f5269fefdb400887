#include "silt/io/image/splat_render.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "silt/core/error.hpp"

namespace silt::io {

namespace {

using V = mpm::Vec3d;
constexpr double kPi = 3.14159265358979323846;
// Splats never shrink below this radius in pixels, so distant particles stay visible.
constexpr double kMinPixelRadius = 0.75;
// Fraction of brightness lost from the nearest to the farthest point of the domain (depth cue).
constexpr double kDepthDarkening = 0.5;
// Colliders are drawn in a cool grey, apart from every material colour.
constexpr Rgb kColliderColour{132, 140, 156};

V sub(const V& a, const V& b) {
  return {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
}
double dot(const V& a, const V& b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
V cross(const V& a, const V& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
V normalized(const V& a) {
  const double l = std::sqrt(dot(a, a));
  return l > 0 ? V{a[0] / l, a[1] / l, a[2] / l} : V{0, 0, 0};
}

struct View {
  V eye, f, r, u;
  double focal, cx, cy;
  // Camera-space depth and pixel position of p; false when behind the camera.
  bool project(const V& p, double& z, double& sx, double& sy) const {
    const V d = sub(p, eye);
    z = dot(d, f);
    if (z <= 1e-9) return false;
    sx = cx + focal * dot(d, r) / z;
    sy = cy - focal * dot(d, u) / z;
    return true;
  }
};

View make_view(const SplatCamera& c, int w, int h) {
  View v;
  v.eye = c.eye;
  v.f = normalized(sub(c.target, c.eye));
  v.r = normalized(cross(v.f, c.up));
  SILT_REQUIRE(dot(v.f, v.f) > 0 && dot(v.r, v.r) > 0,
               "png camera: eye and target coincide, or up is parallel to the view direction");
  v.u = cross(v.r, v.f);
  v.focal = 0.5 * h / std::tan(0.5 * c.fov_deg * kPi / 180.0);
  v.cx = 0.5 * w;
  v.cy = 0.5 * h;
  return v;
}

// Points on a collider's surface inside the domain, `s` apart (m), at time t (s; colliders move
// with their velocity): drawn as small grey splats so the preview shows what the material hits.
std::vector<V> collider_points(const mpm::Collider& c, const mpm::Scene& sc, double s, double t) {
  std::vector<V> out;
  const V shift{c.velocity[0] * t, c.velocity[1] * t, c.velocity[2] * t};
  const V &lo = sc.domain_min, &hi = sc.domain_max;
  auto keep = [&](const V& p) {
    const V q{p[0] + shift[0], p[1] + shift[1], p[2] + shift[2]};
    for (int d = 0; d < 3; ++d)
      if (q[d] < lo[d] || q[d] > hi[d]) return;
    out.push_back(q);
  };
  auto basis = [](const V& n, V& u, V& v) {  // u, v orthonormal, both perpendicular to unit n
    u = normalized(std::abs(n[0]) < 0.9 ? cross(n, {1, 0, 0}) : cross(n, {0, 1, 0}));
    v = cross(n, u);
  };
  const V half{0.5 * (hi[0] - lo[0]), 0.5 * (hi[1] - lo[1]), 0.5 * (hi[2] - lo[2])};
  const double reach = std::sqrt(dot(half, half));  // domain half-diagonal, m
  const V mid{lo[0] + half[0], lo[1] + half[1], lo[2] + half[2]};
  switch (c.kind) {
    case mpm::Collider::Kind::mesh:  // not drawn: the preview shows the analytic shapes only
      break;
    case mpm::Collider::Kind::sphere: {
      const int nt = std::max(4, int(std::ceil(kPi * c.radius / s)));
      for (int i = 0; i <= nt; ++i) {
        const double th = kPi * i / nt;
        const int np = std::max(1, int(std::ceil(2 * kPi * c.radius * std::sin(th) / s)));
        for (int j = 0; j < np; ++j) {
          const double ph = 2 * kPi * j / np;
          keep({c.center[0] + c.radius * std::sin(th) * std::cos(ph),
                c.center[1] + c.radius * std::cos(th),
                c.center[2] + c.radius * std::sin(th) * std::sin(ph)});
        }
      }
      break;
    }
    case mpm::Collider::Kind::cylinder: {  // infinite: the part within reach of the domain
      const V a = normalized(c.axis);
      V u, v;
      basis(a, u, v);
      const double t0 = dot(sub(mid, c.center), a);
      const int nphi = std::max(8, int(std::ceil(2 * kPi * c.radius / s)));
      for (double tt = t0 - reach; tt <= t0 + reach; tt += s)
        for (int j = 0; j < nphi; ++j) {
          const double ph = 2 * kPi * j / nphi, cs = c.radius * std::cos(ph),
                       sn = c.radius * std::sin(ph);
          keep({c.center[0] + tt * a[0] + cs * u[0] + sn * v[0],
                c.center[1] + tt * a[1] + cs * u[1] + sn * v[1],
                c.center[2] + tt * a[2] + cs * u[2] + sn * v[2]});
        }
      break;
    }
    case mpm::Collider::Kind::plane: {
      const V n = normalized(c.normal);
      V u, v;
      basis(n, u, v);
      const double off = dot(sub(mid, c.point), n);  // foot of the domain centre on the plane
      const V o{mid[0] - off * n[0], mid[1] - off * n[1], mid[2] - off * n[2]};
      for (double a = -reach; a <= reach; a += s)
        for (double b = -reach; b <= reach; b += s)
          keep(
              {o[0] + a * u[0] + b * v[0], o[1] + a * u[1] + b * v[1], o[2] + a * u[2] + b * v[2]});
      break;
    }
    case mpm::Collider::Kind::box: {
      const V &b0 = c.box_min, &b1 = c.box_max;
      for (int ax = 0; ax < 3; ++ax) {
        const int o1 = (ax + 1) % 3, o2 = (ax + 2) % 3;
        for (double side : {b0[ax], b1[ax]})
          for (double x = b0[o1]; x <= b1[o1] + 1e-12; x += s)
            for (double y = b0[o2]; y <= b1[o2] + 1e-12; y += s) {
              V p{};
              p[ax] = side;
              p[o1] = x;
              p[o2] = y;
              keep(p);
            }
      }
      break;
    }
  }
  return out;
}

}  // namespace

SplatCamera default_camera(const mpm::Scene& s, double aspect) {
  SplatCamera c;
  V up = normalized({-s.gravity[0], -s.gravity[1], -s.gravity[2]});
  if (dot(up, up) == 0) up = {0, 1, 0};
  c.up = up;
  for (int d = 0; d < 3; ++d) c.target[d] = 0.5 * (s.domain_min[d] + s.domain_max[d]);
  const V half = {0.5 * (s.domain_max[0] - s.domain_min[0]),
                  0.5 * (s.domain_max[1] - s.domain_min[1]),
                  0.5 * (s.domain_max[2] - s.domain_min[2])};
  const double radius = std::sqrt(dot(half, half));  // bounding sphere of the domain
  // Front (+z, or the axis most across `up`), 25% to the right, 45% above.
  V front = std::abs(up[2]) < 0.9 ? V{0, 0, 1} : V{1, 0, 0};
  front = normalized(
      sub(front, {up[0] * dot(front, up), up[1] * dot(front, up), up[2] * dot(front, up)}));
  const V right = cross(up, front);
  // A 2D scene is seen face on, from +z.
  const double side = s.dimensions == 2 ? 0.0 : 0.25, above = s.dimensions == 2 ? 0.0 : 0.45;
  if (s.dimensions == 2) front = {0, 0, 1};
  const V dir = normalized({front[0] + side * right[0] + above * up[0],
                            front[1] + side * right[1] + above * up[1],
                            front[2] + side * right[2] + above * up[2]});
  const double half_fov = 0.5 * c.fov_deg * kPi / 180.0;
  const double fit = std::min(half_fov, std::atan(std::tan(half_fov) * aspect));
  const double dist = 1.05 * radius / std::sin(fit);
  for (int d = 0; d < 3; ++d) c.eye[d] = c.target[d] + dist * dir[d];
  return c;
}

Rgb material_colour(mpm::MaterialKind kind, int index) {
  // In MaterialKind's order: jelly, water, sand, snow.
  static const Rgb kinds[] = {{214, 60, 72}, {56, 128, 220}, {214, 178, 112}, {236, 240, 248}};
  const Rgb& base = kinds[int(kind)];
  // Odd indices a shade darker, every third a touch warmer: neighbours of one kind stay apart.
  const double k = (index % 2) ? 0.78 : 1.0;
  const int warm = (index % 3 == 2) ? 24 : 0;
  return {static_cast<std::uint8_t>(std::min(255.0, base[0] * k + warm)),
          static_cast<std::uint8_t>(base[1] * k), static_cast<std::uint8_t>(base[2] * k)};
}

std::vector<Rgb> material_palette(const mpm::Scene& scene) {
  std::vector<Rgb> p;
  for (std::size_t i = 0; i < scene.materials.size(); ++i)
    p.push_back(material_colour(scene.materials[i].kind, static_cast<int>(i)));
  return p;
}

SplatImage render_splats(const mpm::ParticleFrame& frame, const mpm::Scene& scene,
                         const SplatCamera& camera, const SplatSettings& st) {
  SILT_REQUIRE(st.width > 0 && st.height > 0 && st.width <= 16384 && st.height <= 16384,
               fmt::format("png size {}x{} must be within 1..16384", st.width, st.height));
  const int w = st.width, h = st.height;
  const View view = make_view(camera, w, h);
  SplatImage img{w, h, std::vector<std::uint8_t>(std::size_t(w) * h * 3)};
  std::vector<float> depth(std::size_t(w) * h, std::numeric_limits<float>::infinity());
  for (int y = 0; y < h; ++y) {  // background: a soft vertical gradient
    const double t = double(y) / std::max(1, h - 1);
    for (int x = 0; x < w; ++x) {
      std::uint8_t* px = &img.rgb[3 * (std::size_t(y) * w + x)];
      px[0] = static_cast<std::uint8_t>(58 + 40 * t);
      px[1] = static_cast<std::uint8_t>(62 + 40 * t);
      px[2] = static_cast<std::uint8_t>(70 + 40 * t);
    }
  }

  // Depth range for the cue: the domain's bounding sphere seen from the eye.
  V centre{}, half{};
  for (int d = 0; d < 3; ++d) {
    centre[d] = 0.5 * (scene.domain_min[d] + scene.domain_max[d]);
    half[d] = 0.5 * (scene.domain_max[d] - scene.domain_min[d]);
  }
  const double zc = dot(sub(centre, view.eye), view.f), rad = std::sqrt(dot(half, half));
  const double znear = std::max(1e-6, zc - rad), zspan = std::max(1e-9, 2 * rad);
  const double radius = st.radius > 0 ? st.radius : 0.35 * scene.dx;
  const V light =
      normalized({-0.4, 0.6, 0.7});  // camera space: from upper left, towards the viewer

  // One shaded sphere impostor of radius r_world (m) at p, depth-tested.
  auto splat = [&](const V& p, double r_world, const Rgb& base) {
    double z, sx, sy;
    if (!view.project(p, z, sx, sy)) return;
    const double pr = std::max(kMinPixelRadius, r_world * view.focal / z);
    const double cue = 1.0 - kDepthDarkening * std::clamp((z - znear) / zspan, 0.0, 1.0);
    const int x0 = std::max(0, int(std::floor(sx - pr))), x1 = std::min(w - 1, int(sx + pr));
    const int y0 = std::max(0, int(std::floor(sy - pr))), y1 = std::min(h - 1, int(sy + pr));
    for (int y = y0; y <= y1; ++y)
      for (int x = x0; x <= x1; ++x) {
        const double qx = (x + 0.5 - sx) / pr, qy = (sy - (y + 0.5)) / pr;
        const double q2 = qx * qx + qy * qy;
        if (q2 > 1.0) continue;
        const double nz = std::sqrt(1.0 - q2);  // sphere impostor normal (qx, qy, nz)
        const float zd = static_cast<float>(z - nz * r_world);
        float& zb = depth[std::size_t(y) * w + x];
        if (zd >= zb) continue;
        zb = zd;
        const double lambert = std::max(0.0, qx * light[0] + qy * light[1] + nz * light[2]);
        const double shade = cue * (0.35 + 0.65 * lambert);
        std::uint8_t* px = &img.rgb[3 * (std::size_t(y) * w + x)];
        for (int c = 0; c < 3; ++c)
          px[c] = static_cast<std::uint8_t>(std::clamp(base[c] * shade, 0.0, 255.0));
      }
  };

  if (st.draw_colliders) {
    // Surface points half a cell apart, fewer for large domains (at most ~400 across).
    const double spacing = std::max(0.5 * scene.dx, 2 * rad / 400);
    for (const auto& c : scene.colliders)
      for (const V& p : collider_points(c, scene, spacing, st.time))
        splat(p, 0.8 * spacing, kColliderColour);
  }
  for (std::size_t i = 0; i < frame.count(); ++i) {
    const int m = frame.material[i];
    splat({frame.position[3 * i], frame.position[3 * i + 1], frame.position[3 * i + 2]}, radius,
          (m >= 0 && std::size_t(m) < st.palette.size()) ? st.palette[std::size_t(m)]
                                                         : Rgb{150, 150, 150});
  }

  if (st.draw_domain) {  // the 12 box edges, depth-tested, 1 px
    const V& a = scene.domain_min;
    const V& b = scene.domain_max;
    for (int e = 0; e < 12; ++e) {
      const int axis = e / 4, k = e % 4;
      V p0{}, p1{};
      const int o1 = (axis + 1) % 3, o2 = (axis + 2) % 3;
      p0[o1] = p1[o1] = (k & 1) ? b[o1] : a[o1];
      p0[o2] = p1[o2] = (k & 2) ? b[o2] : a[o2];
      p0[axis] = a[axis];
      p1[axis] = b[axis];
      constexpr int kSteps = 2048;
      for (int s = 0; s <= kSteps; ++s) {
        const double t = double(s) / kSteps;
        const V q{p0[0] + t * (p1[0] - p0[0]), p0[1] + t * (p1[1] - p0[1]),
                  p0[2] + t * (p1[2] - p0[2])};
        double z, sx, sy;
        if (!view.project(q, z, sx, sy)) continue;
        const int x = int(sx), y = int(sy);
        if (x < 0 || y < 0 || x >= w || y >= h) continue;
        if (z >= depth[std::size_t(y) * w + x]) continue;
        std::uint8_t* px = &img.rgb[3 * (std::size_t(y) * w + x)];
        px[0] = px[1] = px[2] = 190;
      }
    }
  }
  return img;
}

}  // namespace silt::io
