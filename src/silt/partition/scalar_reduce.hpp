// The per-step global reduction of a split run (paper 001: the global CFL dt is a min-reduction
// every step): every subdomain holds a few doubles where its exec runs, and after run() each holds
// the combination over all subdomains of all ranks: the first n_max values by max (a wave speed),
// the others by sum (integer counts, exact in double). Both are independent of the order of
// combination, so every subdomain sees bit-identical values and takes the same dt.
//   - host subdomains in one process: a plain loop;
//   - CUDA subdomains in one process: on the devices, without the host: each copies its values
//     into every other device's gather slots over the peer link and records an event; each device
//     waits for the others' events and combines them in a one-thread kernel. The slots alternate
//     between two sets from one reduction to the next, so a fast device never overwrites slots a
//     slow one has not read yet (it must first wait for that device's next contribution);
//   - CUDA subdomains on one stream of one device (several parts on one GPU): one one-thread
//     kernel combines them in place, in stream order (no copies, no events: a graph records it);
//   - several ranks: the values go to the host, MPI_Allreduce combines them, and they go back.
#pragma once

#include <vector>

#include "silt/core/buffer.hpp"
#include "silt/core/device_set.hpp"
#include "silt/core/exec.hpp"
#include "silt/partition/world.hpp"

namespace silt::partition {

class ScalarReduce {
 public:
  ScalarReduce() = default;
  /// execs: where each local subdomain's values live (the streams that produce and consume them).
  ScalarReduce(const std::vector<Exec>& execs, int length, int n_max, const World& world);

  /// Combines values[k] (length doubles where execs[k] runs) in place, queued after the work on
  /// each exec so far; the host waits only on the MPI path.
  void run(const std::vector<double*>& values);
  int length() const { return length_; }

 private:
  void run_host(const std::vector<double*>& values);
  void run_devices(const std::vector<double*>& values);
  void run_stream(const std::vector<double*>& values);
  void run_world(const std::vector<double*>& values);

  std::vector<Exec> execs_;
  int length_ = 0, n_max_ = 0;
  const World* world_ = nullptr;
  bool cuda_ = false;
  bool one_stream_ = false;                   // CUDA subdomains on one stream of one device
  std::vector<DeviceBuffer<double>> gather_;  // per exec: 2 sets x parts x length
  std::vector<Event> sent_;
  std::vector<double> host_;
  int parity_ = 0;
};

}  // namespace silt::partition
