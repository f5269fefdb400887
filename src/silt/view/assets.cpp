#include "silt/view/assets.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "silt/core/error.hpp"
#include "silt/view/web_files.hpp"

namespace silt::view {

namespace {

std::string content_type(const std::string& name) {
  const auto ends = [&](const char* ext) {
    const std::string e(ext);
    return name.size() >= e.size() && name.compare(name.size() - e.size(), e.size(), e) == 0;
  };
  if (ends(".html")) return "text/html; charset=utf-8";
  if (ends(".js")) return "text/javascript; charset=utf-8";
  if (ends(".css")) return "text/css; charset=utf-8";
  if (ends(".png")) return "image/png";
  return "application/octet-stream";
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error(fmt::format(
        "viewer: cannot read '{}' (three.js for the page: install Debian's libjs-three, or set "
        "SILT_THREE_DIR to the folder holding build/three.min.js)",
        path));
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

std::string three_dir() {
  if (const char* env = std::getenv("SILT_THREE_DIR"); env && *env) return env;
  return SILT_THREE_DIR;
}

Assets::Assets(const std::string& three) {
  for (int k = 0; k < detail::kWebFileCount; ++k) {
    const std::string name = detail::kWebFiles[k].name;
    files_["/" + name] = {content_type(name), detail::kWebFiles[k].text};
  }
  files_["/"] = files_.at("/index.html");
  files_["/three/three.min.js"] = {content_type(".js"), read_file(three + "/build/three.min.js")};
  files_["/three/OrbitControls.js"] = {content_type(".js"),
                                       read_file(three + "/examples/js/controls/OrbitControls.js")};
}

const Asset* Assets::find(const std::string& path) const {
  const auto it = files_.find(path);
  return it == files_.end() ? nullptr : &it->second;
}

}  // namespace silt::view
