// silt's plug-in modules: the parts of the library that need a large library (GDAL, OpenVDB) are
// CMake MODULE libraries (src/silt/modules/) that the core opens with dlopen the first time a run
// needs them, so that a run that reads no GeoTIFF and writes no VDB never loads (and never pays
// the symbol relocation of) those libraries. A module exports one C entry point that returns a
// table of functions (the module's own header declares it).
//
// Where a module is looked for, first found wins:
//   $SILT_MODULE_DIR/lib<name>.so             when SILT_MODULE_DIR is set (only there)
//   <folder of the program or library holding this loader>/lib<name>.so
//                                             (the CLI in the build tree, the Python package)
//   <that folder>/../lib/silt/lib<name>.so    (an installed bin/ + lib/silt/ layout)
//   <the build tree's module folder>/lib<name>.so (tests, benchmarks)
#pragma once

#include <string>

namespace silt {

/// Opens module `name` (e.g. "silt_gdal") once per process (thread-safe) and returns the address
/// of its C entry point `entry`. Throws silt::Error naming the module's path and dlerror() when
/// it is missing or fails to load (every later call throws the same).
void* module_entry(const std::string& name, const std::string& entry);

/// "" when module `name` loads (it is loaded by this call), else why not, as module_entry's
/// Error says it (for `silt info`).
std::string module_problem(const std::string& name, const std::string& entry);

/// The path module `name` is (or would be) loaded from.
std::string module_path(const std::string& name);

/// The Error for a module whose entry point refused interface version abi (another build's).
[[noreturn]] void throw_module_abi(const std::string& name, int abi);

/// The table of functions module `name` hands out: its entry point, of type
/// const Table* (int abi, Args...), called with (abi, args...); nullptr (a module of another
/// interface version) throws. Callers keep the table in a function-local static (loaded once).
template <class Table, class... Args>
const Table& module_table(const std::string& name, const std::string& entry, int abi,
                          Args... args) {
  using Entry = const Table* (*)(int, Args...);
  const Table* t = reinterpret_cast<Entry>(module_entry(name, entry))(abi, args...);
  if (!t) throw_module_abi(name, abi);
  return *t;
}

}  // namespace silt
