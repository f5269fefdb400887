// What the viewer's server may send over HTTP: the page's own files (embedded from web/) and
// three.js with its orbit controls from Debian's libjs-three. A request is answered only when its
// path is one of these names exactly; nothing is looked up on disk by a client's path, so no
// request can read a file outside the page (`/../../etc/passwd` and its encoded forms are 404).
#pragma once

#include <map>
#include <string>

namespace silt::view {

struct Asset {
  std::string type;  // Content-Type
  std::string body;
};

/// libjs-three's folder (the build's SILT_THREE_DIR; the environment variable SILT_THREE_DIR
/// overrides it).
std::string three_dir();

class Assets {
 public:
  /// Reads three.js from `three` (errors name the missing file and the package to install).
  explicit Assets(const std::string& three = three_dir());
  /// The file served at `path` ("/" is the page), or nullptr.
  const Asset* find(const std::string& path) const;

 private:
  std::map<std::string, Asset> files_;
};

}  // namespace silt::view
