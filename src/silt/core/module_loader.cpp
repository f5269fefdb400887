#include "silt/core/module_loader.hpp"

#include <dlfcn.h>
#include <fmt/format.h>
#include <link.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <vector>

#include "silt/core/error.hpp"

#ifndef SILT_MODULE_BUILD_DIR
#define SILT_MODULE_BUILD_DIR ""
#endif

namespace silt {

namespace {

namespace fs = std::filesystem;

// The folder of the program or shared library this loader is linked into: dladdr on one of its
// own functions (the main program has no name in its link map: /proc/self/exe then).
fs::path loader_dir() {
  Dl_info info{};
  link_map* map = nullptr;
  if (dladdr1(reinterpret_cast<void*>(&module_path), &info, reinterpret_cast<void**>(&map),
              RTLD_DL_LINKMAP) != 0 &&
      map && map->l_name && *map->l_name)
    return fs::path(map->l_name).parent_path();
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : exe.parent_path();
}

std::vector<fs::path> candidates(const std::string& name) {
  const std::string file = "lib" + name + ".so";
  if (const char* dir = std::getenv("SILT_MODULE_DIR"); dir && *dir) return {fs::path(dir) / file};
  std::vector<fs::path> out;
  const fs::path here = loader_dir();
  if (!here.empty()) {
    out.push_back(here / file);
    out.push_back(here.parent_path() / "lib" / "silt" / file);
  }
  if (*SILT_MODULE_BUILD_DIR) out.push_back(fs::path(SILT_MODULE_BUILD_DIR) / file);
  return out;
}

struct Loaded {
  void* entry = nullptr;
  std::string error;  // why it did not load ("" when it did)
};

Loaded load(const std::string& name, const std::string& entry) {
  const std::string path = module_path(name);
  // RTLD_LOCAL: the module's symbols (and its libraries') stay out of the global scope.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    return {nullptr, fmt::format("cannot load silt's module {} from '{}': {}", name, path,
                                 why ? why : "unknown error")};
  }
  dlerror();
  void* sym = dlsym(handle, entry.c_str());
  if (!sym) {
    const char* why = dlerror();
    return {nullptr, fmt::format("silt's module '{}' has no entry point {}: {}", path, entry,
                                 why ? why : "unknown error")};
  }
  return {sym, ""};  // never closed: the tables it returns live as long as the process
}

const Loaded& loaded(const std::string& name, const std::string& entry) {
  static std::mutex m;
  static std::map<std::string, Loaded> modules;
  const std::lock_guard<std::mutex> lock(m);
  auto it = modules.find(name + '\n' + entry);
  if (it == modules.end()) it = modules.emplace(name + '\n' + entry, load(name, entry)).first;
  return it->second;
}

}  // namespace

std::string module_path(const std::string& name) {
  const std::vector<fs::path> paths = candidates(name);
  std::error_code ec;
  for (const fs::path& p : paths)
    if (fs::exists(p, ec)) return p.string();
  return paths.empty() ? "lib" + name + ".so" : paths.front().string();
}

void* module_entry(const std::string& name, const std::string& entry) {
  const Loaded& l = loaded(name, entry);
  if (!l.entry) throw Error(l.error);
  return l.entry;
}

void throw_module_abi(const std::string& name, int abi) {
  throw Error(
      fmt::format("silt's module '{}' belongs to another build of silt (its interface "
                  "is not version {}): rebuild it with this one",
                  module_path(name), abi));
}

std::string module_problem(const std::string& name, const std::string& entry) {
  return loaded(name, entry).error;
}

}  // namespace silt
