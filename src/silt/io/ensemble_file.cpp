#include "silt/io/ensemble_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "silt/core/error.hpp"
#include "silt/io/time_series.hpp"

namespace silt::io {

namespace {

// Keys whose value is a time series (a string there is a CSV file, not a raster).
bool is_series_key(const std::string& key) {
  return key == "rainfall_mm_h" || key.rfind("boundaries", 0) == 0 || key.rfind("sources", 0) == 0;
}

// [[t, v], ...] with every v times f; false when `rows` is not such a list.
bool scale_rows(const Json& rows, double f, Json& out) {
  if (!rows.is_array() || rows.empty()) return false;
  out = Json::array();
  for (const Json& r : rows) {
    if (!r.is_array() || r.size() != 2 || !r[0].is_number() || !r[1].is_number()) return false;
    out.push_back(Json::array({r[0], r[1].get<double>() * f}));
  }
  return true;
}

// [[t, v], ...] with every t + dt; false when `rows` is not such a list.
bool shift_rows(const Json& rows, double dt, Json& out) {
  if (!rows.is_array() || rows.empty()) return false;
  out = Json::array();
  for (const Json& r : rows) {
    if (!r.is_array() || r.size() != 2 || !r[0].is_number() || !r[1].is_number()) return false;
    out.push_back(Json::array({r[0].get<double>() + dt, r[1]}));
  }
  return true;
}

// An analytic field ({"value", "gradient", "patches"}) is linear in its values: each value and
// gradient times f.
Json scale_analytic(Json v, double f) {
  const auto scale_linear = [f](Json& o) {
    if (o.contains("value") && o["value"].is_number()) o["value"] = o["value"].get<double>() * f;
    if (o.contains("gradient") && o["gradient"].is_array())
      for (Json& g : o["gradient"])
        if (g.is_number()) g = g.get<double>() * f;
  };
  scale_linear(v);
  if (v.contains("patches") && v["patches"].is_array())
    for (Json& p : v["patches"])
      if (p.is_object()) scale_linear(p);
  return v;
}

std::string assignment(const std::string& key, const Json& value) {
  return key + "=" + value.dump();
}

// Reads the elements of keys[key] (absent: `fallback`) with `one` (element, its key path).
template <class T, class One>
std::vector<T> read_list(Keys& k, const std::string& key, std::vector<T> fallback, One one) {
  const Json* v = k.take(key);
  if (!v) {
    k.resolved(key) = Json(fallback);
    return fallback;
  }
  if (!v->is_array()) k.fail(key, fmt::format("must be a list, got {}", show(*v)));
  std::vector<T> out;
  for (size_t i = 0; i < v->size(); ++i)
    out.push_back(one((*v)[i], fmt::format("{}[{}]", k.key_path(key), i)));
  k.resolved(key) = *v;
  return out;
}

class EnsembleReader {
 public:
  EnsembleReader(const SceneSource& esrc, const Json& scene, const SceneSource& ssrc)
      : esrc_(esrc), scene_(scene), ssrc_(ssrc) {}

  void member(Keys& m, Ensemble& e) {
    const std::string name = m.name("name", "", "it names the member's output folder");
    if (name.empty()) m.fail("name", "is missing (every member in \"members\" has a name)");
    const std::string where = fmt::format("{}: member '{}'", esrc_.name, name);
    EnsembleMember mem{name, {}, {}};
    std::set<std::string> keys;
    if (const Json* set = m.take("set")) {
      if (!set->is_object()) m.fail("set", fmt::format("must be an object, got {}", show(*set)));
      for (const auto& [key, value] : set->items()) {
        find_key_path(scene_, key, where);  // a malformed key path is refused here
        keys.insert(key);
        mem.overrides.push_back(assignment(key, value));
        mem.settings.push_back(mem.overrides.back());
      }
      m.resolved("set") = *set;
    }
    for (const Modifier how : {Modifier::scale, Modifier::shift}) {
      const std::string name = how == Modifier::scale ? "scale" : "shift";
      const Json* by = m.take(name);
      if (!by) continue;
      if (!by->is_object())
        m.fail(name, fmt::format("must be an object {{key: {}}}, got {}",
                                 how == Modifier::scale ? "factor" : "seconds", show(*by)));
      for (const auto& [key, x] : by->items()) {
        check_amount(how, x, m.key_path(name) + "." + key);
        if (!keys.insert(key).second)
          m.fail(name, fmt::format("'{}' is also in \"set\", \"scale\" or \"shift\"", key));
        mem.overrides.push_back(assignment(key, modified(how, key, x.get<double>(), where)));
        mem.settings.push_back(setting(how, key, x.get<double>()));
      }
      m.resolved(name) = *by;
    }
    m.finish();
    e.members.push_back(std::move(mem));
  }

  // "vary": {"combine", "prefix", "keys": {key: {"values"|"scale"|"from","to","count"}}}.
  void vary(Keys& v, Ensemble& e) {
    const bool zip = v.choice("combine", "product", {"product", "zip"}) == "zip";
    const std::string prefix = v.name("prefix", "m", "it begins the names of its members");
    const Json* keys = v.take("keys");
    if (!keys || !keys->is_object() || keys->empty())
      v.fail("keys", "must be an object {key: {\"values\": [...]}, ...} with at least one key");
    Json& resolved = v.resolved("keys");
    std::vector<Axis> axes;
    for (const auto& [key, spec] : keys->items()) {
      find_key_path(scene_, key, fmt::format("{}: 'vary.keys'", esrc_.name));
      Keys a(spec, v.key_path("keys") + "." + key, esrc_, &resolved[key]);
      axes.push_back(axis(a, key));
    }
    std::size_t count = zip ? axes.front().size() : 1;
    for (const Axis& a : axes) {
      if (zip && a.size() != count)
        v.fail("keys",
               fmt::format("combine \"zip\" needs lists of one length: '{}' has {}, '{}' {}",
                           axes.front().key, count, a.key, a.size()));
      if (!zip) count = count * a.size() > kMaxMembers ? kMaxMembers + 1 : count * a.size();
    }
    if (count > kMaxMembers) v.fail("keys", fmt::format("makes more than {} members", kMaxMembers));
    const int width = int(std::max<std::size_t>(2, fmt::format("{}", count - 1).size()));
    for (std::size_t m = 0; m < count; ++m) {
      EnsembleMember mem{fmt::format("{}{:0{}}", prefix, m, width), {}, {}};
      const std::string where = fmt::format("{}: member '{}'", esrc_.name, mem.name);
      // Product: the last key (in alphabetical order) varies fastest.
      std::size_t rest = m;
      std::vector<std::size_t> at(axes.size());
      for (std::size_t k = axes.size(); k-- > 0;) {
        at[k] = zip ? m : rest % axes[k].size();
        if (!zip) rest /= axes[k].size();
      }
      for (std::size_t k = 0; k < axes.size(); ++k) {
        const Axis& a = axes[k];
        if (a.how == Modifier::none) {
          mem.overrides.push_back(assignment(a.key, a.values[at[k]]));
          mem.settings.push_back(mem.overrides.back());
        } else {
          const double x = a.amounts[at[k]];
          mem.overrides.push_back(assignment(a.key, modified(a.how, a.key, x, where)));
          mem.settings.push_back(setting(a.how, a.key, x));
        }
      }
      e.members.push_back(std::move(mem));
    }
  }

 private:
  // How a member's value is made from the scene's: given (none), scaled or shifted in time.
  enum class Modifier { none, scale, shift };
  struct Axis {
    std::string key;
    Modifier how = Modifier::none;
    std::vector<Json> values;     // none
    std::vector<double> amounts;  // scale: factors; shift: seconds
    std::size_t size() const { return how == Modifier::none ? values.size() : amounts.size(); }
  };

  // A factor >= 0, or seconds (any finite number); errors name key path kp.
  void check_amount(Modifier how, const Json& x, const std::string& kp) const {
    if (how == Modifier::scale && !(x.is_number() && x.get<double>() >= 0))
      key_error(esrc_, kp, fmt::format("must be a factor >= 0, got {}", show(x)));
    if (how == Modifier::shift && !(x.is_number() && std::isfinite(x.get<double>())))
      key_error(esrc_, kp, fmt::format("must be a number of seconds, got {}", show(x)));
  }
  Json modified(Modifier how, const std::string& key, double x, const std::string& where) const {
    return how == Modifier::scale ? scaled_value(scene_, key, x, ssrc_, where)
                                  : shifted_value(scene_, key, x, ssrc_, where);
  }
  static std::string setting(Modifier how, const std::string& key, double x) {
    return how == Modifier::scale ? fmt::format("{}*{}", key, x) : fmt::format("{}{:+}s", key, x);
  }

  Axis axis(Keys& a, const std::string& key) {
    Axis out;
    out.key = key;
    const int forms =
        int(a.has("values")) + int(a.has("scale")) + int(a.has("shift")) + int(a.has("from"));
    if (forms != 1)
      a.fail("values",
             "give one of \"values\": [...], \"scale\": [...], \"shift\": [...] or \"from\", "
             "\"to\", \"count\"");
    if (a.has("values")) {
      out.values =
          read_list<Json>(a, "values", {}, [](const Json& v, const std::string&) { return v; });
    } else if (a.has("scale") || a.has("shift")) {
      out.how = a.has("scale") ? Modifier::scale : Modifier::shift;
      const std::string name = out.how == Modifier::scale ? "scale" : "shift";
      out.amounts = read_list<double>(a, name, {}, [&](const Json& v, const std::string& kp) {
        check_amount(out.how, v, kp);
        return v.get<double>();
      });
    } else {
      const double from = a.number("from"), to = a.number("to");
      const int n = a.integer("count", 1, int(kMaxMembers));
      for (int i = 0; i < n; ++i)
        out.values.push_back(i + 1 == n && n > 1 ? to
                                                 : from + (to - from) * i / std::max(n - 1, 1));
    }
    if (out.size() == 0)
      a.fail(out.how == Modifier::none    ? "values"
             : out.how == Modifier::scale ? "scale"
                                          : "shift",
             "is empty");
    a.finish();
    return out;
  }

  const SceneSource& esrc_;
  const Json& scene_;
  const SceneSource& ssrc_;
};

void read_outputs(Keys& o, EnsembleOutputs& out) {
  out.members = o.boolean("members", false);
  const std::vector<std::string> names = {"max_depth", "max_speed", "max_level"};
  out.fields = read_list<EnsembleField>(
      o, "fields", {EnsembleField::max_depth, EnsembleField::max_speed, EnsembleField::max_level},
      [&](const Json& v, const std::string& kp) {
        for (std::size_t i = 0; i < names.size(); ++i)
          if (v.is_string() && v.get<std::string>() == names[i]) return EnsembleField(i);
        key_error(o.source(), kp,
                  fmt::format("must be one of \"max_depth\", \"max_speed\", \"max_level\", got {}",
                              show(v)));
      });
  const std::vector<std::string> stats = read_list<std::string>(
      o, "statistics", {"mean", "std"}, [&](const Json& v, const std::string& kp) {
        if (!v.is_string() || (v != "mean" && v != "std"))
          key_error(o.source(), kp, fmt::format("must be \"mean\" or \"std\", got {}", show(v)));
        return v.get<std::string>();
      });
  out.mean = std::count(stats.begin(), stats.end(), "mean") > 0;
  out.std = std::count(stats.begin(), stats.end(), "std") > 0;
  out.percentiles =
      read_list<int>(o, "percentiles", {5, 50, 95}, [&](const Json& v, const std::string& kp) {
        if (!v.is_number_integer() || v.get<long>() < 0 || v.get<long>() > 100)
          key_error(o.source(), kp,
                    fmt::format("must be a whole percent in 0 .. 100, got {}", show(v)));
        return v.get<int>();
      });
  out.exceedance_depths = read_list<double>(
      o, "exceedance_depths", {0.1, 0.5, 1.0}, [&](const Json& v, const std::string& kp) {
        if (!v.is_number() || !(v.get<double>() >= 0))
          key_error(o.source(), kp, fmt::format("must be a depth >= 0 in m, got {}", show(v)));
        return v.get<double>();
      });
  out.hazard_classes = o.boolean("hazard_classes", true);
  const bool gdal = gdal_available() && netcdf_series_available();
  out.formats = read_list<RasterFormat>(
      o, "formats",
      gdal ? std::vector<RasterFormat>{RasterFormat::tif, RasterFormat::nc}
           : std::vector<RasterFormat>{RasterFormat::asc},
      [&](const Json& v, const std::string& kp) {
        RasterFormat f;
        if (!v.is_string() || !raster_format_from_name(v.get<std::string>(), f))
          key_error(o.source(), kp,
                    fmt::format("must be \"asc\", \"tif\" or \"nc\", got {}", show(v)));
        return f;
      });
  const bool depth = std::count(out.fields.begin(), out.fields.end(), EnsembleField::max_depth) > 0;
  if (!out.exceedance_depths.empty() && !depth)
    o.fail("exceedance_depths", "needs \"max_depth\" in \"fields\"");
  if (!out.hazard_classes && out.exceedance_depths.empty() &&
      (out.fields.empty() || (!out.mean && !out.std && out.percentiles.empty())))
    o.fail("statistics",
           "the outputs ask for no statistic (mean, std, percentiles, "
           "exceedance_depths or hazard_classes)");
  if (o.resolved("formats").is_array()) {
    Json names_out = Json::array();
    for (RasterFormat f : out.formats) names_out.push_back(extension_of(f));
    o.resolved("formats") = names_out;
  }
  o.finish();
}

// An MPM ensemble's outputs: the members' own files, the measures' statistics, the spread
// direction, the rest speed and the measures' formats (csv always; nc on request).
void read_mpm_outputs(Keys& o, EnsembleOutputs& out, EnsembleMeasures& m) {
  out.members = o.boolean("members", false);
  out.fields.clear();
  out.exceedance_depths.clear();
  out.hazard_classes = false;
  const std::vector<std::string> stats = read_list<std::string>(
      o, "statistics", {"mean", "std"}, [&](const Json& v, const std::string& kp) {
        if (!v.is_string() || (v != "mean" && v != "std"))
          key_error(o.source(), kp, fmt::format("must be \"mean\" or \"std\", got {}", show(v)));
        return v.get<std::string>();
      });
  out.mean = std::count(stats.begin(), stats.end(), "mean") > 0;
  out.std = std::count(stats.begin(), stats.end(), "std") > 0;
  out.percentiles =
      read_list<int>(o, "percentiles", {5, 50, 95}, [&](const Json& v, const std::string& kp) {
        if (!v.is_number_integer() || v.get<long>() < 0 || v.get<long>() > 100)
          key_error(o.source(), kp,
                    fmt::format("must be a whole percent in 0 .. 100, got {}", show(v)));
        return v.get<int>();
      });
  const std::vector<double> d =
      read_list<double>(o, "direction", {1.0, 0.0, 0.0}, [&](const Json& v, const std::string& kp) {
        if (!v.is_number())
          key_error(o.source(), kp, fmt::format("must be a number, got {}", show(v)));
        return v.get<double>();
      });
  double norm = 0;
  for (double x : d) norm += x * x;
  if ((d.size() != 2 && d.size() != 3) || !(norm > 0) || !std::isfinite(norm))
    o.fail("direction",
           "must be a vector [x, y] or [x, y, z] of length > 0 (the spread direction)");
  m.direction = {0, 0, 0};
  for (std::size_t i = 0; i < d.size(); ++i) m.direction[i] = d[i] / std::sqrt(norm);
  m.rest_speed = o.number("rest_speed", 0.0, Range::non_negative());
  const std::vector<std::string> formats =
      read_list<std::string>(o, "formats", {"csv"}, [&](const Json& v, const std::string& kp) {
        if (!v.is_string() || (v != "csv" && v != "nc"))
          key_error(o.source(), kp, fmt::format("must be \"csv\" or \"nc\", got {}", show(v)));
        return v.get<std::string>();
      });
  m.nc = std::count(formats.begin(), formats.end(), "nc") > 0;
  o.finish();
}

Ensemble parse_tree(const Json& root, const SceneSource& esrc, const Json& scene,
                    const SceneSource& ssrc) {
  Ensemble e;
  e.path = esrc.name;
  if (!root.is_object()) key_error(esrc, "(ensemble)", "must be a JSON object {...}");
  Keys top(root, "", esrc, &e.resolved);
  top.string("description", "");
  EnsembleReader reader(esrc, scene, ssrc);
  if (top.has("members"))
    for (Keys& m : top.objects("members")) reader.member(m, e);
  if (top.has("vary")) {
    Keys v = top.object("vary");
    reader.vary(v, e);
    v.finish();
  }
  if (e.members.empty())
    top.fail("members", "no members: give \"members\": [...] and/or \"vary\": {...}");
  if (e.members.size() > kMaxMembers)
    top.fail("members", fmt::format("{} members; at most {}", e.members.size(), kMaxMembers));
  std::map<std::string, std::size_t> seen;
  for (std::size_t m = 0; m < e.members.size(); ++m) {
    const auto [it, fresh] = seen.emplace(e.members[m].name, m);
    if (!fresh)
      throw Error(
          fmt::format("{}: member {} and member {} are both named '{}' (names name the "
                      "members' output folders)",
                      esrc.name, it->second, m, e.members[m].name));
  }
  e.mpm = scene.is_object() && scene.contains("solver") && scene["solver"] == "mpm";
  Keys outputs = top.object("outputs");
  if (e.mpm)
    read_mpm_outputs(outputs, e.outputs, e.measures);
  else
    read_outputs(outputs, e.outputs);
  Keys run = top.object("run");
  e.parallel = run.choice("parallel", "members", {"members", "cells"}) == "cells"
                   ? EnsembleParallel::cells
                   : EnsembleParallel::members;
  if (run.has("members_at_once")) e.at_once = run.integer("members_at_once", 1, 4096);
  if (run.has("batch_members"))
    e.batch = run.boolean("batch_members", true) ? EnsembleBatch::on : EnsembleBatch::off;
  run.finish();
  top.finish();
  return e;
}

}  // namespace

std::string to_string(EnsembleField f) {
  switch (f) {
    case EnsembleField::max_depth:
      return "max_depth";
    case EnsembleField::max_speed:
      return "max_speed";
    default:
      return "max_level";
  }
}

namespace {

// "; the scene has 'rainfall_mm_h' there" when the object holding `key` has keys that begin
// with its last name or that it begins with (a scene gives rain as rainfall_mm_h or rainfall);
// "" otherwise.
std::string similar_key(const Json& scene, const std::string& key, const std::string& where) {
  const std::size_t dot = key.find_last_of('.');
  const std::string leaf = dot == std::string::npos ? key : key.substr(dot + 1);
  const Json* parent =
      dot == std::string::npos ? &scene : find_key_path(scene, key.substr(0, dot), where);
  if (!parent || !parent->is_object() || leaf.empty()) return "";
  std::string found;
  for (const auto& [name, value] : parent->items())
    if (name != leaf && (name.rfind(leaf, 0) == 0 || leaf.rfind(name, 0) == 0))
      found += (found.empty() ? "" : ", ") + fmt::format("'{}'", name);
  return found.empty() ? "" : fmt::format("; the scene has {} there: scale that key", found);
}

// A CSV series (a scene's time-series file) as [[t, value], ...] rows; errors through `fail`.
template <class Fail>
Json csv_rows(const Json& path, const SceneSource& scene_src, const Fail& fail) {
  swe::Series s;
  try {
    s = read_series_csv(scene_src.resolve_path(path.get<std::string>()));
  } catch (const Error& e) {
    throw fail(e.what());
  }
  Json rows = Json::array();
  for (std::size_t r = 0; r < s.t.size(); ++r) rows.push_back(Json::array({s.t[r], s.value[r]}));
  return rows;
}

// The object `v` with its number `key` (fallback when absent) changed by `change`: a rain
// object's or a raster's own "scale" or "shift", which the scene parser applies.
template <class Change>
Json with_key(const Json& v, const char* key, double fallback, Change change) {
  Json out = v;
  out[key] = change(out.contains(key) && out[key].is_number() ? out[key].get<double>() : fallback);
  return out;
}

}  // namespace

Json scaled_value(const Json& scene, const std::string& key, double factor,
                  const SceneSource& scene_src, const std::string& where) {
  const Json* v = find_key_path(scene, key, where);
  const auto fail = [&](const std::string& why) {
    return Error(fmt::format("{}: scale of '{}': {}", where, key, why));
  };
  if (!v || v->is_null())
    throw fail("the scene has no value there to scale (give one with \"set\" or \"values\")" +
               similar_key(scene, key, where));
  if (v->is_number()) return v->get<double>() * factor;
  Json rows;
  if (v->is_array()) {
    if (!scale_rows(*v, factor, rows)) throw fail("a list there must be [[t, value], ...] rows");
    return rows;
  }
  if (v->is_string() && is_series_key(key)) {
    scale_rows(csv_rows(*v, scene_src, fail), factor, rows);
    return rows;
  }
  if (v->is_string()) return Json{{"raster", *v}, {"scale", factor}};
  if (v->is_object()) {
    if (v->contains("raster") || v->contains("netcdf") || v->contains("frames")) {
      return with_key(*v, "scale", 1.0, [factor](double before) { return before * factor; });
    }
    return scale_analytic(*v, factor);
  }
  throw fail(fmt::format("cannot scale {}", show(*v)));
}

Json shifted_value(const Json& scene, const std::string& key, double seconds,
                   const SceneSource& scene_src, const std::string& where) {
  const Json* v = find_key_path(scene, key, where);
  const auto fail = [&](const std::string& why) {
    return Error(fmt::format("{}: shift of '{}': {}", where, key, why));
  };
  if (!v || v->is_null())
    throw fail("the scene has no time series there to shift" + similar_key(scene, key, where));
  const bool rain = key == "rainfall";
  if (!rain && !is_series_key(key))
    throw fail(
        "only time series move in time (rainfall, rainfall_mm_h, a boundary's or a "
        "source's series)");
  Json rows;
  if (v->is_array()) {
    if (!shift_rows(*v, seconds, rows)) throw fail("a list there must be [[t, value], ...] rows");
    return rows;
  }
  if (v->is_string() && !rain) {
    shift_rows(csv_rows(*v, scene_src, fail), seconds, rows);
    return rows;
  }
  if (rain && v->is_object() && (v->contains("netcdf") || v->contains("frames"))) {
    return with_key(*v, "shift", 0.0, [seconds](double before) { return before + seconds; });
  }
  throw fail(
      fmt::format("{} is the same at every time: give it as rows [[t, value], ...] to move "
                  "it",
                  show(*v)));
}

Ensemble parse_ensemble(const std::string& text, const std::string& name, const Json& scene,
                        const SceneSource& scene_src) {
  const SceneSource esrc{name, "", {}, {}};
  return parse_tree(parse_scene_text(text, name), esrc, scene, scene_src);
}

Ensemble load_ensemble(const std::string& path, const Json& scene, const SceneSource& scene_src) {
  require_utf8(path, "ensemble file name");
  return parse_ensemble(read_text_file(path, "ensemble file"), path, scene, scene_src);
}

}  // namespace silt::io
