#include "silt/core/loop_graph.hpp"

#include <fmt/format.h>

#include <vector>

#include "silt/core/error.hpp"

#if SILT_HAS_CUDA
#include <cuda_runtime.h>
#endif

namespace silt {

#if SILT_HAS_CUDA && CUDART_VERSION >= 12040

namespace {
/// Ends a capture left open by an exception, so the stream can launch plainly again.
void abandon_capture(cudaStream_t s) noexcept {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(s, &status) == cudaSuccess && status != cudaStreamCaptureStatusNone) {
    cudaGraph_t g = nullptr;
    cudaStreamEndCapture(s, &g);
    if (g) cudaGraphDestroy(g);
  }
  (void)cudaGetLastError();
}

/// Adds a conditional node (IF or WHILE, one body) to `graph` after `deps`; returns its body.
cudaGraph_t add_conditional(cudaGraph_t graph, const cudaGraphNode_t* deps, size_t n_deps,
                            cudaGraphConditionalHandle handle, cudaGraphConditionalNodeType type,
                            cudaGraphNode_t* node) {
  cudaGraphNodeParams p{};
  p.type = cudaGraphNodeTypeConditional;
  p.conditional.handle = handle;
  p.conditional.type = type;
  p.conditional.size = 1;
  SILT_CUDA_CHECK(cudaGraphAddNode(node, graph, deps, nullptr, n_deps, &p));
  return p.conditional.phGraph_out[0];
}
}  // namespace

struct LoopGraph::Impl {
  Exec exec;
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t instance = nullptr;
  ~Impl() {
    if (instance) cudaGraphExecDestroy(instance);
    if (graph) cudaGraphDestroy(graph);
  }
};

namespace {

/// Records the loop into a new graph (the caller owns it; destroyed here on failure).
cudaGraph_t record_loop(const Exec& exec, const LoopGraph::Pre& pre, const LoopGraph::Phase& branch,
                        const LoopGraph::Pre& step, int copies) {
  const cudaStream_t s = exec.stream;
  cudaGraph_t graph = nullptr;
  SILT_CUDA_CHECK(cudaGraphCreate(&graph, 0));
  try {
    // The loop condition starts at 1 on every launch (cudaGraphCondAssignDefault): a frame always
    // takes at least one step; the dt kernel clears it after the last one.
    cudaGraphConditionalHandle loop = 0;
    SILT_CUDA_CHECK(cudaGraphConditionalHandleCreate(&loop, graph, 1, cudaGraphCondAssignDefault));
    cudaGraphNode_t loop_node = nullptr;
    const cudaGraph_t body =
        add_conditional(graph, nullptr, 0, loop, cudaGraphCondTypeWhile, &loop_node);

    // Loop body: (pre -> IF(branch) -> step) x copies, each IF node with a handle of its own.
    std::vector<cudaGraph_t> branch_bodies;
    SILT_CUDA_CHECK(cudaStreamBeginCaptureToGraph(s, body, nullptr, nullptr, 0,
                                                  cudaStreamCaptureModeThreadLocal));
    for (int k = 0; k < copies; ++k) {
      cudaGraphConditionalHandle branch_if = 0;
      SILT_CUDA_CHECK(cudaGraphConditionalHandleCreate(&branch_if, body, 0, 0));
      LoopHandles h;
      h.loop = loop;
      h.branch = branch_if;
      h.in_graph = 1;
      pre(h);
      cudaStreamCaptureStatus status;
      const cudaGraphNode_t* deps = nullptr;
      size_t n_deps = 0;
      SILT_CUDA_CHECK(
          cudaStreamGetCaptureInfo(s, &status, nullptr, nullptr, &deps, nullptr, &n_deps));
      cudaGraphNode_t if_node = nullptr;
      branch_bodies.push_back(
          add_conditional(body, deps, n_deps, branch_if, cudaGraphCondTypeIf, &if_node));
      SILT_CUDA_CHECK(cudaStreamUpdateCaptureDependencies(s, &if_node, nullptr, 1,
                                                          cudaStreamSetCaptureDependencies));
      step(h);
    }
    SILT_CUDA_CHECK(cudaStreamEndCapture(s, nullptr));

    // Bodies of the IF nodes.
    for (const cudaGraph_t branch_body : branch_bodies) {
      SILT_CUDA_CHECK(cudaStreamBeginCaptureToGraph(s, branch_body, nullptr, nullptr, 0,
                                                    cudaStreamCaptureModeThreadLocal));
      branch();
      SILT_CUDA_CHECK(cudaStreamEndCapture(s, nullptr));
    }
  } catch (...) {
    abandon_capture(s);
    cudaGraphDestroy(graph);
    throw;
  }
  return graph;
}

}  // namespace

LoopGraph::LoopGraph(const Exec& exec, const Pre& pre, const Phase& branch, const Pre& step,
                     int n_copies)
    : impl_(std::make_unique<Impl>()) {
  SILT_REQUIRE(exec.is_cuda() && exec.stream != nullptr,
               std::string("LoopGraph needs a CUDA exec with its own stream"));
  impl_->exec = exec;
  SILT_CUDA_CHECK(cudaSetDevice(exec.device));
  impl_->graph = record_loop(exec, pre, branch, step, n_copies > 1 ? n_copies : 1);
  SILT_CUDA_CHECK(cudaGraphInstantiate(&impl_->instance, impl_->graph, 0));
}

bool LoopGraph::record_again(const Pre& pre, const Phase& branch, const Pre& step, int n_copies) {
  SILT_CUDA_CHECK(cudaSetDevice(impl_->exec.device));
  cudaGraph_t fresh = record_loop(impl_->exec, pre, branch, step, n_copies > 1 ? n_copies : 1);
  // The same phases over new sizes or pointers: the same topology, so the instance takes the new
  // parameters in place (no new instantiation); otherwise it is instantiated again.
  cudaGraphExecUpdateResultInfo info{};
  const bool updated = cudaGraphExecUpdate(impl_->instance, fresh, &info) == cudaSuccess;
  (void)cudaGetLastError();  // a refused update leaves an error to clear
  if (!updated) {
    cudaGraphExec_t instance = nullptr;
    const cudaError_t e = cudaGraphInstantiate(&instance, fresh, 0);
    if (e != cudaSuccess) {
      cudaGraphDestroy(fresh);
      SILT_CUDA_CHECK(e);
    }
    cudaGraphExecDestroy(impl_->instance);
    impl_->instance = instance;
  }
  cudaGraphDestroy(impl_->graph);
  impl_->graph = fresh;
  return updated;
}

LoopGraph::~LoopGraph() = default;

void LoopGraph::launch() {
  SILT_CUDA_CHECK(cudaGraphLaunch(impl_->instance, impl_->exec.stream));
}

bool LoopGraph::supported() {
  return true;
}

#else  // no CUDA in this unit, or a CUDA runtime without conditional graph nodes

struct LoopGraph::Impl {};

LoopGraph::LoopGraph(const Exec&, const Pre&, const Phase&, const Pre&, int) {
  throw Error("CUDA graphs with conditional nodes need the CUDA backend built with CUDA >= 12.4");
}
LoopGraph::~LoopGraph() = default;
bool LoopGraph::record_again(const Pre&, const Phase&, const Pre&, int) {
  return false;
}
void LoopGraph::launch() {}
bool LoopGraph::supported() {
  return false;
}

#endif

}  // namespace silt
