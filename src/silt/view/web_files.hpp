// The page's files, embedded into the library at build time from web/ (cmake/EmbedFiles.cmake).
#pragma once

namespace silt::view::detail {

struct WebFile {
  const char* name;  // file name in web/, served as "/<name>"
  const char* text;
};

extern const WebFile kWebFiles[];
extern const int kWebFileCount;

}  // namespace silt::view::detail
