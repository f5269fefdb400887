// The checkpoint file, the container both solvers save their state in (docs/checkpoints.md):
//   "SILTCKPT", u32 format version, u32 byte-order mark, u64 file size,
//   header: solver, scene hash, build id, step, time, part count,
//   u32 section count, then per section: name, u64 size, bytes,
//   u32 CRC-32 (zlib) of every byte before it.
// Strings are a u32 length and their bytes; numbers little-endian as the host writes them (the
// byte-order mark refuses a file from a host of the other order). The file is written under a
// temporary name, flushed to the disk (fsync) and renamed, so the previous checkpoint stays whole
// until the new one is. What is in the sections is each solver's (io/swe/checkpoint.hpp,
// io/mpm/checkpoint.hpp).
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include "silt/core/error.hpp"

namespace silt::io {

/// Format version: a file of another version is refused (the layout of the sections changed).
constexpr std::uint32_t kCheckpointVersion = 1;

/// Why a checkpoint was refused: the message names the file and one of these.
enum class CheckpointProblem {
  unreadable,        // cannot be opened or read
  not_a_checkpoint,  // no "SILTCKPT" at the start
  truncated,         // shorter than its header says
  corrupt,           // checksum mismatch or sections that do not parse
  foreign_version,   // another format version or byte order
  other_scene,       // written for another scene (scene hash) or solver
};

class CheckpointError : public Error {
 public:
  CheckpointError(CheckpointProblem p, const std::string& msg) : Error(msg), problem_(p) {}
  CheckpointProblem problem() const { return problem_; }

 private:
  CheckpointProblem problem_;
};

struct CheckpointHeader {
  std::string solver;            // "swe" or "mpm"
  std::uint64_t scene_hash = 0;  // scene_hash() of the resolved scene
  std::string build;             // build id of the writer
  std::int64_t step = 0;         // steps taken (MPM: frames)
  double time = 0;               // simulated time, s
  std::int32_t parts = 1;        // parts the run was split into
};

class Checkpoint {
 public:
  CheckpointHeader header;

  void put(const std::string& name, std::vector<char> bytes) { sections_[name] = std::move(bytes); }
  template <class T>
  void put_vector(const std::string& name, const std::vector<T>& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    std::vector<char> b(v.size() * sizeof(T));
    if (!b.empty()) std::memcpy(b.data(), v.data(), b.size());
    put(name, std::move(b));
  }
  template <class T>
  void put_value(const std::string& name, const T& v) {
    put_vector(name, std::vector<T>{v});
  }

  bool has(const std::string& name) const { return sections_.count(name) > 0; }
  /// The section's bytes; CheckpointError (corrupt) naming path and section when it is missing.
  const std::vector<char>& get(const std::string& name) const;
  template <class T>
  std::vector<T> get_vector(const std::string& name) const {
    static_assert(std::is_trivially_copyable_v<T>);
    const std::vector<char>& b = get(name);
    if (b.size() % sizeof(T) != 0) throw bad_section(name, b.size());
    std::vector<T> v(b.size() / sizeof(T));
    if (!b.empty()) std::memcpy(v.data(), b.data(), b.size());
    return v;
  }
  template <class T>
  T get_value(const std::string& name) const {
    const std::vector<T> v = get_vector<T>(name);
    if (v.size() != 1) throw bad_section(name, v.size() * sizeof(T));
    return v[0];
  }
  const std::map<std::string, std::vector<char>>& sections() const { return sections_; }

  std::string path;  // the file it was read from (messages)

 private:
  CheckpointError bad_section(const std::string& name, std::size_t bytes) const;
  std::map<std::string, std::vector<char>> sections_;
};

/// 64-bit FNV-1a of text (the resolved scene, io/*_checkpoint.cpp say which keys it leaves out).
std::uint64_t scene_hash(const std::string& text);

/// Writes c to path atomically and durably (temporary file, fsync, rename, fsync of the folder).
void write_checkpoint(const std::string& path, const Checkpoint& c);
/// Reads and checks a checkpoint; CheckpointError naming path and the problem otherwise.
Checkpoint read_checkpoint(const std::string& path);
/// Refuses c (CheckpointError, other_scene) unless it was written by `solver` for the scene of
/// that hash.
void check_scene(const Checkpoint& c, const std::string& solver, std::uint64_t hash);

}  // namespace silt::io
