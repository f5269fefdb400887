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

LoopGraph::LoopGraph(const Exec& exec, const Pre& pre, const Phase& branch, const Pre& step,
                     int n_copies)
    : impl_(std::make_unique<Impl>()) {
  const int copies = n_copies > 1 ? n_copies : 1;
  SILT_REQUIRE(exec.is_cuda() && exec.stream != nullptr,
               std::string("LoopGraph needs a CUDA exec with its own stream"));
  impl_->exec = exec;
  const cudaStream_t s = exec.stream;
  SILT_CUDA_CHECK(cudaSetDevice(exec.device));
  SILT_CUDA_CHECK(cudaGraphCreate(&impl_->graph, 0));
  try {
    // The loop condition starts at 1 on every launch (cudaGraphCondAssignDefault): a frame always
    // takes at least one step; the dt kernel clears it after the last one.
    cudaGraphConditionalHandle loop = 0;
    SILT_CUDA_CHECK(
        cudaGraphConditionalHandleCreate(&loop, impl_->graph, 1, cudaGraphCondAssignDefault));
    cudaGraphNode_t loop_node = nullptr;
    const cudaGraph_t body =
        add_conditional(impl_->graph, nullptr, 0, loop, cudaGraphCondTypeWhile, &loop_node);

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

    SILT_CUDA_CHECK(cudaGraphInstantiate(&impl_->instance, impl_->graph, 0));
  } catch (...) {
    abandon_capture(s);
    throw;
  }
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
void LoopGraph::launch() {}
bool LoopGraph::supported() {
  return false;
}

#endif

}  // namespace silt
