#include "silt/io/time_series.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "silt/core/error.hpp"
#include "silt/io/memory_limit.hpp"

namespace silt::io {

namespace {

bool parse_number(const std::string& s, double& v) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  v = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && errno != ERANGE && std::isfinite(v);
}

std::vector<std::string> split_fields(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  bool in_field = false;
  const bool delimited = line.find_first_of(",;") != std::string::npos;
  for (char c : line) {
    const bool sep =
        delimited ? (c == ',' || c == ';') : std::isspace(static_cast<unsigned char>(c));
    if (sep) {
      if (delimited || in_field) out.push_back(cur);
      cur.clear();
      in_field = false;
    } else if (!std::isspace(static_cast<unsigned char>(c)) || in_field) {
      cur += c;
      in_field = true;
    }
  }
  if (delimited || in_field) out.push_back(cur);
  for (auto& f : out)  // trim
    while (!f.empty() && std::isspace(static_cast<unsigned char>(f.back()))) f.pop_back();
  return out;
}

}  // namespace

swe::Series read_series_csv(const std::string& path) {
  // The text and the rows read from it (16 B for each row of at least 4 B of text) must fit.
  return parse_series_csv(
      read_text_file(path, "time-series CSV", memory_limit_bytes() / (1 + 16.0 / 4)), path);
}

swe::Series parse_series_csv(const std::string& text, const std::string& path) {
  std::istringstream in(text);
  std::string line;
  swe::Series s;
  int line_no = 0;
  bool first_row = true;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const auto b = line.find_first_not_of(" \t");
    if (b == std::string::npos || line[b] == '#') continue;
    const auto f = split_fields(line);
    double t = 0, v = 0;
    const bool numeric = f.size() >= 1 && parse_number(f[0], t);
    if (first_row && !numeric) {  // header row ("time_s,discharge_m3s")
      first_row = false;
      continue;
    }
    first_row = false;
    if (f.size() != 2)
      throw Error(fmt::format("{}:{}: expected 2 columns (time in s, value), got {}: '{}'", path,
                              line_no, f.size(), excerpt(line)));
    if (!numeric)
      throw Error(fmt::format("{}:{}: time '{}' is not a number", path, line_no, excerpt(f[0])));
    if (!parse_number(f[1], v))
      throw Error(fmt::format("{}:{}: value '{}' is not a number", path, line_no, excerpt(f[1])));
    if (!s.t.empty() && !(t > s.t.back()))
      throw Error(
          fmt::format("{}:{}: time {} is not greater than the previous time {} (times must "
                      "increase strictly)",
                      path, line_no, t, s.t.back()));
    s.t.push_back(t);
    s.value.push_back(v);
  }
  if (s.t.empty()) throw Error(fmt::format("{}: no data rows (expected 'time, value' rows)", path));
  return s;
}

swe::Series read_series(Keys& keys, const std::string& key, double scale, Range range) {
  const Json* v = keys.take(key);
  const std::string kp = keys.key_path(key);
  const SceneSource& src = keys.source();
  if (!v) key_error(src, kp, "is missing (a number, [[t, value], ...] or a CSV file path)");
  swe::Series s;
  if (v->is_number()) {
    const double c = v->get<double>();
    if (!range.contains(c)) key_error(src, kp, fmt::format("must be {}, got {}", range.text(), c));
    s.t = {0.0};
    s.value = {c * scale};
    keys.resolved(key) = c;
    return s;
  }
  if (v->is_string()) {
    const std::string path = src.resolve_path(v->get<std::string>());
    try {
      s = read_series_csv(path);
    } catch (const Error& e) {
      throw Error(fmt::format("{} (series '{}' of {})", e.what(), kp, src.name));
    }
    for (size_t r = 0; r < s.t.size(); ++r) {
      if (!range.contains(s.value[r]))
        throw Error(
            fmt::format("{}: row {} (t = {} s): value must be {}, got {} (series '{}' of {})", path,
                        r + 1, s.t[r], range.text(), s.value[r], kp, src.name));
      s.value[r] *= scale;
    }
    keys.resolved(key) = path;
    return s;
  }
  if (!v->is_array() || v->empty())
    key_error(
        src, kp,
        fmt::format("must be a number, [[t, value], ...] or a CSV file path, got {}", show(*v)));
  for (size_t r = 0; r < v->size(); ++r) {
    const Json& row = (*v)[r];
    const std::string rp = fmt::format("{}[{}]", kp, r);
    if (!row.is_array() || row.size() != 2 || !row[0].is_number() || !row[1].is_number())
      key_error(src, rp, fmt::format("must be a row [t, value] of two numbers, got {}", show(row)));
    const double t = row[0].get<double>(), val = row[1].get<double>();
    if (!std::isfinite(t)) key_error(src, rp, fmt::format("time must be finite, got {}", t));
    if (!s.t.empty() && !(t > s.t.back()))
      key_error(src, rp,
                fmt::format("time {} is not greater than the previous time {} (row {}; times must "
                            "increase strictly)",
                            t, s.t.back(), r));
    if (!range.contains(val))
      key_error(src, rp, fmt::format("value must be {}, got {} (t = {} s)", range.text(), val, t));
    s.t.push_back(t);
    s.value.push_back(val * scale);
  }
  keys.resolved(key) = *v;
  return s;
}

double series_value(const swe::Series& s, double t) {
  if (s.t.empty()) return 0.0;
  if (t <= s.t.front()) return s.value.front();
  if (t >= s.t.back()) return s.value.back();
  size_t k = 1;
  while (s.t[k] < t) ++k;
  const double w = (t - s.t[k - 1]) / (s.t[k] - s.t[k - 1]);
  return (1 - w) * s.value[k - 1] + w * s.value[k];
}

}  // namespace silt::io
