#include "silt/io/scene_text.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "silt/core/error.hpp"
#include "silt/io/input_file.hpp"

namespace silt::io {

namespace {

// What stopped the parser, with the key path where it was.
struct JsonProblem {
  enum Kind { none, syntax, range, utf8, duplicate, depth } kind = none;
  std::size_t byte = 0;  // 1-based offset of the offending byte (0: unknown)
  std::string key;       // "run.end_time", "" at the top level
  std::string what;
};

// nlohmann's SAX interface building the tree like its own DOM parser, and in addition keeping the
// key path for messages and refusing duplicate keys and deep nesting.
class SceneSax {
 public:
  Json root;
  JsonProblem problem;

  bool null() { return value(nullptr); }
  bool boolean(bool v) { return value(v); }
  bool number_integer(Json::number_integer_t v) { return value(v); }
  bool number_unsigned(Json::number_unsigned_t v) { return value(v); }
  bool number_float(Json::number_float_t v, const Json::string_t&) { return value(v); }
  bool string(Json::string_t& v) { return value(v); }
  bool binary(Json::binary_t& v) { return value(Json::binary(v)); }
  bool start_object(std::size_t) { return open(Json::object()); }
  bool start_array(std::size_t) { return open(Json::array()); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(Json::string_t& k) {
    Frame& f = stack_.back();
    if (f.node->contains(k))
      return fail(JsonProblem::duplicate, 0,
                  fmt::format("appears twice in one object (the first value would be silently "
                              "replaced); keep one"),
                  k);
    f.key = k;
    f.in_value = true;
    pending_ = &(*f.node)[k];
    return true;
  }
  bool parse_error(std::size_t position, const std::string& last_token,
                   const nlohmann::detail::exception& ex) {
    if (ex.id == 406)
      return fail(JsonProblem::range, position,
                  fmt::format("number {} is out of range (a double holds magnitudes up to "
                              "1.8e308)",
                              excerpt(last_token)));
    std::string what = ex.what();
    const auto colon = what.find(": ", what.find("column"));
    if (colon != std::string::npos) what = what.substr(colon + 2);
    const bool utf8 = what.find("UTF-8") != std::string::npos;
    return fail(utf8 ? JsonProblem::utf8 : JsonProblem::syntax, position, excerpt(what, 200));
  }

 private:
  struct Frame {
    Json* node;
    std::string key;        // objects: the last key read
    bool in_value = false;  // objects: a key was read and its value is not complete
    std::size_t count = 0;  // arrays: elements so far
  };

  // The path to where the parser is now.
  std::string path() const {
    std::string p;
    for (std::size_t i = 0; i < stack_.size(); ++i) {
      const Frame& f = stack_[i];
      const bool inner = i + 1 == stack_.size();
      if (f.node->is_array()) {
        p += fmt::format("[{}]", inner ? f.count : f.count - 1);
      } else if (!inner || f.in_value) {
        p += (p.empty() ? "" : ".") + f.key;
      }
    }
    return p;
  }

  bool fail(JsonProblem::Kind kind, std::size_t byte, std::string what,
            const std::string& key = "") {
    problem.kind = kind;
    problem.byte = byte;
    problem.key = path();
    if (!key.empty()) problem.key += (problem.key.empty() ? "" : ".") + key;
    problem.what = std::move(what);
    return false;
  }

  // Places a value where the parser is: the root, the next array element or the key just read.
  template <class V>
  Json* place(V&& v) {
    if (stack_.empty()) {
      root = Json(std::forward<V>(v));
      return &root;
    }
    Frame& f = stack_.back();
    if (f.node->is_array()) {
      ++f.count;
      f.node->emplace_back(std::forward<V>(v));
      return &f.node->back();
    }
    *pending_ = Json(std::forward<V>(v));
    return pending_;
  }
  template <class V>
  bool value(V&& v) {
    place(std::forward<V>(v));
    if (!stack_.empty()) stack_.back().in_value = false;
    return true;
  }
  bool open(Json empty) {
    if (stack_.size() >= std::size_t(kMaxJsonDepth))
      return fail(JsonProblem::depth, 0,
                  fmt::format("nests objects and lists more than {} levels deep", kMaxJsonDepth));
    Json* node = place(std::move(empty));
    stack_.push_back(Frame{node, {}});
    return true;
  }
  bool close() {
    stack_.pop_back();
    if (!stack_.empty()) stack_.back().in_value = false;
    return true;
  }

  std::vector<Frame> stack_;
  Json* pending_ = nullptr;
};

JsonProblem sax_parse(const std::string& text, bool comments, Json& out) {
  SceneSax sax;
  const bool ok = Json::sax_parse(text, &sax, Json::input_format_t::json, true, comments);
  if (ok) out = std::move(sax.root);
  if (!ok && sax.problem.kind == JsonProblem::none) sax.problem.kind = JsonProblem::syntax;
  return sax.problem;
}

// "<name>:<line>:<col>" of the 1-based byte offset (just <name> when unknown).
std::string position_text(const std::string& text, const std::string& name, std::size_t byte) {
  if (byte == 0) return name;
  std::size_t line = 1, col = 1;
  const std::size_t end = std::min(byte - 1, text.size());
  for (std::size_t i = 0; i < end; ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return fmt::format("{}:{}:{}", name, line, col);
}

}  // namespace

Json parse_scene_text(const std::string& text, const std::string& name) {
  Json root;
  const JsonProblem p = sax_parse(text, /*comments=*/true, root);
  if (p.kind == JsonProblem::none) return root;
  const std::string at = position_text(text, name, p.byte);
  const std::string key = p.key.empty() ? "" : fmt::format("'{}' ", p.key);
  switch (p.kind) {
    case JsonProblem::syntax:
      throw Error(fmt::format("{}: malformed JSON{}: {}", at,
                              p.key.empty() ? "" : fmt::format(" in '{}'", p.key), p.what));
    case JsonProblem::utf8:
      throw Error(fmt::format("{}: {}text is not valid UTF-8 (save the file as UTF-8): {}", at,
                              p.key.empty() ? "" : fmt::format("in '{}': ", p.key), p.what));
    default:
      throw Error(fmt::format("{}: {}{}", at, key, p.what));
  }
}

bool parse_json_value(const std::string& text, const std::string& where, Json& out) {
  const JsonProblem p = sax_parse(text, /*comments=*/false, out);
  if (p.kind == JsonProblem::none) return true;
  if (p.kind == JsonProblem::syntax || p.kind == JsonProblem::utf8) return false;
  throw Error(
      fmt::format("{}: {}{}", where, p.key.empty() ? "" : fmt::format("'{}' ", p.key), p.what));
}

std::string read_text_file(const std::string& path, const std::string& what, double max_bytes) {
  // A FIFO, a device such as /dev/zero or a directory is refused before anything is read.
  const InputFile in(path, what);
  const auto too_large = [&] {
    return Error(
        fmt::format("cannot read {} '{}': it is larger than {:.0f} MiB, the most silt "
                    "reads for it",
                    what, path, max_bytes / (1024.0 * 1024.0)));
  };
  if (double(in.size()) > max_bytes) throw too_large();
  std::string text;
  char buf[1 << 16];
  std::size_t got = 0;
  // Read in pieces up to the bound as well: the file may grow while it is read.
  while ((got = std::fread(buf, 1, sizeof buf, in.get())) > 0) {
    if (double(text.size() + got) > max_bytes) throw too_large();
    text.append(buf, got);
  }
  if (std::ferror(in.get()) != 0)
    throw Error(fmt::format("cannot read {} '{}': {}", what, path, std::strerror(errno)));
  return text;
}

namespace {
// Offset of the first byte that does not begin a well-formed UTF-8 sequence, or npos.
std::size_t first_invalid_utf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    // The sequence length and the smallest code point it may encode (no overlong forms).
    std::size_t n = 0;
    unsigned cp = 0, min = 0;
    if ((c & 0xE0) == 0xC0) {
      n = 1, cp = c & 0x1Fu, min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
      n = 2, cp = c & 0x0Fu, min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
      n = 3, cp = c & 0x07u, min = 0x10000;
    } else {
      return i;
    }
    if (n >= s.size() - i) return i;
    for (std::size_t k = 1; k <= n; ++k) {
      const auto d = static_cast<unsigned char>(s[i + k]);
      if ((d & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (d & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
    i += n + 1;
  }
  return std::string_view::npos;
}
}  // namespace

bool is_valid_utf8(std::string_view s) {
  return first_invalid_utf8(s) == std::string_view::npos;
}

void require_utf8(std::string_view s, const std::string& what) {
  const std::size_t bad = first_invalid_utf8(s);
  if (bad == std::string_view::npos) return;
  throw Error(
      fmt::format("{} '{}' is not valid UTF-8 (byte 0x{:02X} at offset {}); silt writes "
                  "it into resolved_scene.json, which is UTF-8: rename it",
                  what, excerpt(s, 200), static_cast<unsigned char>(s[bad]), bad));
}

}  // namespace silt::io
