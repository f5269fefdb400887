// "contact": a velocity field per body where two bodies meet (multi-field MPM contact,
// mpm/contact.hpp; docs/scenes-mpm.md, "Contact between bodies"):
//   "contact": { "bodies": ["cube", "sand"], "friction": 0.3, "gap": 0.1 }
// Each of the two names is a source's or, failing that, a material's (all its sources); sources
// named by neither join the second body.
#include <fmt/format.h>

#include <string>

#include "silt/io/mpm/scene_parts.hpp"

namespace silt::io::mpm_detail {

namespace {

// Most a gap tolerance may be, in cells: the stencils of two bodies share nodes only within 1.5
// cells of each surface, and the estimate of the gap saturates there (contact_k.hpp).
constexpr double kMaxGapCells = 1.0;

/// Marks the sources `name` stands for (a source, else a material) as `body`; returns how many.
int mark_body(const mpm::Scene& s, const std::string& name, int body, std::vector<int>& of) {
  int n = 0;
  for (std::size_t i = 0; i < s.sources.size(); ++i)
    if (s.sources[i].name == name) of[i] = body, ++n;
  if (n > 0) return n;
  for (std::size_t i = 0; i < s.sources.size(); ++i) {
    const int m = s.sources[i].material;
    if (m >= 0 && std::size_t(m) < s.materials.size() && s.materials[std::size_t(m)].name == name)
      of[i] = body, ++n;
  }
  return n;
}

}  // namespace

void read_contact(Keys& root, mpm::Scene& s) {
  if (!root.has("contact")) return;
  Keys c = root.object("contact");
  const Json* b = c.take("bodies");
  if (!b || !b->is_array() || b->size() != 2 || !(*b)[0].is_string() || !(*b)[1].is_string())
    c.fail("bodies", "must list two names, each a source's or a material's: [\"cube\", \"bed\"]");
  const std::string first = (*b)[0].get<std::string>(), second = (*b)[1].get<std::string>();
  if (first == second) c.fail("bodies", fmt::format("names '{}' twice: name two bodies", first));
  std::vector<int> of(s.sources.size(), -1);
  const std::string names[2] = {first, second};
  for (int k = 0; k < 2; ++k)
    if (mark_body(s, names[k], 1 - k, of) == 0)
      c.fail("bodies",
             fmt::format("names '{}', which is neither a source nor a material of the scene",
                         names[k]));
  c.resolved("bodies") = *b;
  s.contact.bodies = {first, second};
  s.contact.first_body.assign(s.sources.size(), 0);
  for (std::size_t i = 0; i < of.size(); ++i) s.contact.first_body[i] = of[i] == 1 ? 1 : 0;
  s.contact.friction = c.number("friction", 0.0, Range::non_negative());
  s.contact.gap = c.number("gap", s.contact.gap, Range{0.0, kMaxGapCells});
  c.finish();
}

}  // namespace silt::io::mpm_detail
