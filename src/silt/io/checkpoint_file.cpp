#include "silt/io/checkpoint_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include "silt/io/atomic_file.hpp"
#include "silt/io/input_file.hpp"
#include "silt/io/memory_limit.hpp"

namespace silt::io {

namespace {

constexpr char kMagic[8] = {'S', 'I', 'L', 'T', 'C', 'K', 'P', 'T'};
constexpr std::uint32_t kByteOrder = 0x01020304u;
// Magic, version, byte-order mark and file size: what is read before anything is trusted.
constexpr std::size_t kPreamble = 8 + 4 + 4 + 8;
// Sections and names at most: a corrupt count or size fails before it allocates.
constexpr std::uint32_t kMaxSections = 4096;
constexpr std::uint32_t kMaxString = 1u << 20;

struct Out {
  std::vector<char> b;
  template <class T>
  void num(T v) {
    const char* p = reinterpret_cast<const char*>(&v);
    b.insert(b.end(), p, p + sizeof(T));
  }
  void str(const std::string& s) {
    num(std::uint32_t(s.size()));
    b.insert(b.end(), s.begin(), s.end());
  }
};

struct In {
  const std::vector<char>& b;
  std::size_t at;
  std::size_t end;  // before the checksum
  const std::string& path;

  [[noreturn]] void fail(const std::string& what) const {
    throw CheckpointError(CheckpointProblem::corrupt,
                          fmt::format("checkpoint '{}' is corrupt: {} at byte {}", path, what, at));
  }
  template <class T>
  T num() {
    if (end - at < sizeof(T)) fail("a field runs past the end");
    T v;
    std::memcpy(&v, b.data() + at, sizeof(T));
    at += sizeof(T);
    return v;
  }
  std::string str() {
    const std::uint32_t n = num<std::uint32_t>();
    if (n > kMaxString || end - at < n) fail("a string runs past the end");
    std::string s(b.data() + at, n);
    at += n;
    return s;
  }
};

std::uint32_t crc_of(const char* p, std::size_t n) {
  uLong crc = crc32(0L, Z_NULL, 0);
  while (n > 0) {
    const uInt chunk = uInt(std::min<std::size_t>(n, 1u << 30));
    crc = crc32(crc, reinterpret_cast<const Bytef*>(p), chunk);
    p += chunk;
    n -= chunk;
  }
  return std::uint32_t(crc);
}

void write_all(int fd, const char* p, std::size_t n, const std::string& path) {
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0)
      throw Error(fmt::format("cannot write checkpoint '{}': {}", path,
                              std::strerror(w < 0 ? errno : ENOSPC)));
    p += w;
    n -= std::size_t(w);
  }
}

std::vector<char> encode(const Checkpoint& c) {
  Out o;
  o.b.insert(o.b.end(), kMagic, kMagic + 8);
  o.num(kCheckpointVersion);
  o.num(kByteOrder);
  o.num(std::uint64_t(0));  // file size, set below
  o.str(c.header.solver);
  o.num(c.header.scene_hash);
  o.str(c.header.build);
  o.num(c.header.step);
  o.num(c.header.time);
  o.num(c.header.parts);
  o.num(std::uint32_t(c.sections().size()));
  for (const auto& [name, bytes] : c.sections()) {
    o.str(name);
    o.num(std::uint64_t(bytes.size()));
    o.b.insert(o.b.end(), bytes.begin(), bytes.end());
  }
  const std::uint64_t size = o.b.size() + 4;
  std::memcpy(o.b.data() + 16, &size, 8);
  o.num(crc_of(o.b.data(), o.b.size()));
  return std::move(o.b);
}

}  // namespace

const std::vector<char>& Checkpoint::get(const std::string& name) const {
  const auto it = sections_.find(name);
  if (it == sections_.end())
    throw CheckpointError(
        CheckpointProblem::corrupt,
        fmt::format("checkpoint '{}' is corrupt: it has no section '{}'", path, name));
  return it->second;
}

CheckpointError Checkpoint::bad_section(const std::string& name, std::size_t bytes) const {
  return CheckpointError(
      CheckpointProblem::corrupt,
      fmt::format("checkpoint '{}' is corrupt: section '{}' has {} bytes", path, name, bytes));
}

std::uint64_t scene_hash(const std::string& text) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char ch : text) {
    h ^= ch;
    h *= 0x100000001b3ull;
  }
  return h;
}

void write_checkpoint(const std::string& path, const Checkpoint& c) {
  const std::vector<char> bytes = encode(c);
  write_atomically(path, [&](const std::string& tmp) {
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
      throw Error(fmt::format("cannot write checkpoint '{}': {}", path, std::strerror(errno)));
    try {
      write_all(fd, bytes.data(), bytes.size(), path);
      if (::fsync(fd) != 0)
        throw Error(fmt::format("cannot write checkpoint '{}': {}", path, std::strerror(errno)));
    } catch (...) {
      ::close(fd);
      throw;
    }
    if (::close(fd) != 0)
      throw Error(fmt::format("cannot write checkpoint '{}': {}", path, std::strerror(errno)));
  });
  // The rename is durable once the folder is flushed too (best effort: some file systems refuse).
  std::string dir = std::filesystem::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

Checkpoint read_checkpoint(const std::string& path) {
  // A FIFO or a device (/dev/zero) is refused before it is read; a regular file is read whole once
  // its size, and the copy of its sections made below, are known to fit in memory.
  std::unique_ptr<InputFile> file;
  try {
    file = std::make_unique<InputFile>(path, "checkpoint");
  } catch (const Error& e) {
    throw CheckpointError(CheckpointProblem::unreadable, e.what());
  }
  if (!fits_in_memory(double(file->size()), 2.0))
    throw CheckpointError(
        CheckpointProblem::unreadable,
        fmt::format("cannot read checkpoint '{}': its {} bytes and the state read from them {}",
                    path, file->size(), memory_text(double(file->size()), 2.0)));
  std::vector<char> b(std::size_t(file->size()));
  const std::size_t got = b.empty() ? 0 : std::fread(b.data(), 1, b.size(), file->get());
  if (got != b.size() && std::ferror(file->get()))
    throw CheckpointError(
        CheckpointProblem::unreadable,
        fmt::format("cannot read checkpoint '{}': {}", path, std::strerror(errno)));
  b.resize(got);
  if (b.size() < 8 || std::memcmp(b.data(), kMagic, 8) != 0)
    throw CheckpointError(
        CheckpointProblem::not_a_checkpoint,
        fmt::format("'{}' is not a silt checkpoint (no SILTCKPT at its start)", path));
  if (b.size() < kPreamble + 4)
    throw CheckpointError(CheckpointProblem::truncated,
                          fmt::format("checkpoint '{}' is truncated: {} bytes", path, b.size()));
  std::uint32_t version, order;
  std::uint64_t size;
  std::memcpy(&version, b.data() + 8, 4);
  std::memcpy(&order, b.data() + 12, 4);
  std::memcpy(&size, b.data() + 16, 8);
  if (order != kByteOrder)
    throw CheckpointError(
        CheckpointProblem::foreign_version,
        fmt::format("checkpoint '{}' was written on a machine of the other byte order", path));
  if (version != kCheckpointVersion)
    throw CheckpointError(CheckpointProblem::foreign_version,
                          fmt::format("checkpoint '{}' has format version {}; this build reads "
                                      "version {} (run it with the silt that wrote it)",
                                      path, version, kCheckpointVersion));
  if (b.size() < size)
    throw CheckpointError(
        CheckpointProblem::truncated,
        fmt::format("checkpoint '{}' is truncated: {} of its {} bytes", path, b.size(), size));
  if (b.size() != size)
    throw CheckpointError(CheckpointProblem::corrupt,
                          fmt::format("checkpoint '{}' is corrupt: {} bytes, its header says {}",
                                      path, b.size(), size));
  std::uint32_t crc;
  std::memcpy(&crc, b.data() + b.size() - 4, 4);
  if (crc != crc_of(b.data(), b.size() - 4))
    throw CheckpointError(CheckpointProblem::corrupt,
                          fmt::format("checkpoint '{}' is corrupt: its checksum does not match "
                                      "its contents",
                                      path));
  Checkpoint c;
  c.path = path;
  In in{b, kPreamble, b.size() - 4, path};
  c.header.solver = in.str();
  c.header.scene_hash = in.num<std::uint64_t>();
  c.header.build = in.str();
  c.header.step = in.num<std::int64_t>();
  c.header.time = in.num<double>();
  c.header.parts = in.num<std::int32_t>();
  const std::uint32_t n = in.num<std::uint32_t>();
  if (n > kMaxSections) in.fail(fmt::format("{} sections", n));
  for (std::uint32_t k = 0; k < n; ++k) {
    const std::string name = in.str();
    const std::uint64_t bytes = in.num<std::uint64_t>();
    if (bytes > in.end - in.at) in.fail(fmt::format("section '{}' runs past the end", name));
    c.put(name, std::vector<char>(b.begin() + std::ptrdiff_t(in.at),
                                  b.begin() + std::ptrdiff_t(in.at + bytes)));
    in.at += bytes;
  }
  if (in.at != in.end) in.fail("bytes after the last section");
  return c;
}

void check_scene(const Checkpoint& c, const std::string& solver, std::uint64_t hash) {
  if (c.header.solver != solver)
    throw CheckpointError(CheckpointProblem::other_scene,
                          fmt::format("checkpoint '{}' is of a '{}' run; this scene is '{}'",
                                      c.path, c.header.solver, solver));
  if (c.header.scene_hash != hash)
    throw CheckpointError(
        CheckpointProblem::other_scene,
        fmt::format("checkpoint '{}' was written for another scene (scene hash {:016x}, this "
                    "scene {:016x}); only run.end_time / run.frames may change between a run and "
                    "its restart",
                    c.path, c.header.scene_hash, hash));
}

}  // namespace silt::io
