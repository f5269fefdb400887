// An ensemble's checkpoint (docs/ensembles.md, "Checkpoints"): the folder OUT/ensemble_checkpoint/
// holds key.json (what the ensemble is: the scene file and its text's hash, --set, every member's
// values, the outputs asked for) and a file per finished member with what its run left for the
// report (member_<index>.bin: its maxima and measures, or an MPM member's measures and its
// frames' kinetic energy), and for a running member its solver checkpoint (member_<index>.silt,
// written at --checkpoint-every's interval and on a stop, with what an MPM member gathered in
// member_<index>.partial; removed once the member's result is saved). A stopped or killed
// ensemble continues with --restart OUT/ensemble_checkpoint: the finished members are read back,
// the members with a solver checkpoint continue from it, the others run (each member is a
// deterministic run, and a CPU restart steps bit for bit as the run it continues, so the report
// is the one an uninterrupted run writes); the folder is removed once the report is written.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "silt/io/ensemble_file.hpp"

namespace silt::run {

struct EnsembleScene;
struct MemberResult;

/// OUT/ensemble_checkpoint.
std::string ensemble_checkpoint_dir(const std::string& out);

/// What identifies an ensemble run (key.json's text).
std::string ensemble_key(const EnsembleScene& scene, const io::Ensemble& e);
/// Creates the folder with its key (a fresh run).
void start_ensemble_checkpoint(const std::string& dir, const std::string& key);
/// Checks that `dir` is the checkpoint of this ensemble; silt::Error naming the folder and what
/// differs (the scene, --set, a member, the outputs) otherwise.
void check_ensemble_checkpoint(const std::string& dir, const std::string& key);
/// rank_failed: left by a rank whose member failed, so that the other ranks' members stop at their
/// next frame (ensemble_ranks.hpp); removed when a run claims the folder and with it.
std::string failed_mark(const std::string& dir);
/// Removes the folder (the report is written).
void remove_ensemble_checkpoint(const std::string& dir);

/// Little-endian bytes of a member's result, with a header naming its kind and member.
class MemberBytes {
 public:
  MemberBytes() = default;
  explicit MemberBytes(std::string bytes) : bytes_(std::move(bytes)) {}
  void put(double v);
  void put(std::int64_t v);
  void put(const std::vector<double>& v);
  void put(const std::string& s);
  /// The bytes put(v) gives, without copying v's values: v must outlive these bytes (a member's
  /// maxima are 8 MB a field at 1M cells; save_member_bytes writes them from where they are).
  void put_ref(const std::vector<double>& v);
  double number();
  std::int64_t integer();
  std::vector<double> numbers();
  std::string text();
  /// The bytes in order, as views (of this object and of the vectors given to put_ref).
  std::vector<std::string_view> pieces() const;
  /// The bytes joined.
  std::string bytes() const;
  bool at_end() const { return at_ == bytes_.size(); }

 private:
  void raw(void* p, std::size_t n);
  // A put_ref's values, which come after the first `at` bytes of bytes_.
  struct Borrowed {
    std::size_t at;
    std::string_view values;
  };
  std::string bytes_;
  std::vector<Borrowed> borrowed_;
  std::size_t at_ = 0;
};

/// member_<m>.silt: the solver checkpoint of member m, written at the checkpoint interval
/// (--checkpoint-every) and when a stop ends it mid-run (the frame loop's checkpoints); a restart
/// continues the member from it. "" when dir is "".
std::string member_solver_checkpoint(const std::string& dir, std::size_t m);
/// Removes member m's solver checkpoint and partial (its result member_<m>.bin is saved: a
/// restart reads that instead).
void drop_member_checkpoint(const std::string& dir, std::size_t m);
/// member_<m>.<ext> in dir ("bin": a finished member's result; "partial": what a member stopped
/// mid-run has gathered beside its solver checkpoint).
std::string member_file(const std::string& dir, std::size_t m, const std::string& ext = "bin");

/// member_<m>.bin in dir, written atomically.
void save_member_bytes(const std::string& dir, std::size_t m, const std::string& name,
                       const std::string& kind, const MemberBytes& b,
                       const std::string& ext = "bin");
/// The bytes saved for member m (false: none); silt::Error when the file is not this member's.
bool load_member_bytes(const std::string& dir, std::size_t m, const std::string& name,
                       const std::string& kind, MemberBytes& b, const std::string& ext = "bin");

/// A shallow-water member's result as bytes: what member_<m>.bin holds after its header, and what
/// a rank sends rank 0 (ensemble_ranks.hpp). read_result sets r.done; silt::Error when the bytes
/// are not a result this build writes.
MemberBytes result_bytes(const MemberResult& r);
void read_result(MemberBytes& b, MemberResult& r);
/// A shallow-water member's result in the checkpoint folder.
void save_member(const std::string& dir, std::size_t m, const std::string& name,
                 const MemberResult& r);
bool load_member(const std::string& dir, std::size_t m, const std::string& name, MemberResult& r);

}  // namespace silt::run
