// Do small step chains in WHILE-conditional CUDA graphs overlap on one GPU? (issue 37: MPM members
// in flight gave 33.6 us a member-step at 8 members against 43 us alone.) A member here is a
// chain of CHAIN dependent kernels of BLOCKS x 256 threads (about an MPM member's dt, P2G, grid
// update and G2P) looped STEPS times by a WHILE node whose counter kernel ends it. Timed:
//   separate: N graphs, one a member, each launched on its own stream;
//   branches: one graph whose WHILE body forks into N member branches and joins on the counter;
//   plain:    N streams of plain launches (no graph).
// Prints us per member-step for each N. Asserts nothing.
//   nvcc -O3 -arch=sm_90 -o graph_concurrency bench/graph_concurrency.cu && ./graph_concurrency
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                                                              \
  do {                                                                                        \
    cudaError_t e_ = (x);                                                                     \
    if (e_ != cudaSuccess) {                                                                  \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                           \
    }                                                                                         \
  } while (0)

namespace {
constexpr int kThreads = 256;
int g_blocks = 128, g_chain = 4, g_steps = 2000, g_work = 16;

__global__ void work(float* a, int n, int iters) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = a[i];
  for (int k = 0; k < iters; ++k) v = v * 0.999f + 0.001f;
  a[i] = v;
}

__global__ void count_down(int* counter, cudaGraphConditionalHandle h) {
  const int left = --*counter;
  cudaGraphSetConditional(h, left > 0 ? 1 : 0);
}

__global__ void count_down_all(int* counters, int n, cudaGraphConditionalHandle h) {
  int any = 0;
  for (int k = 0; k < n; ++k) any |= --counters[k] > 0;
  cudaGraphSetConditional(h, any);
}

__global__ void set_counter(int* c, int v) {
  *c = v;
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

void chain(cudaStream_t s, float* a) {
  const int n = g_blocks * kThreads;
  for (int k = 0; k < g_chain; ++k) work<<<g_blocks, kThreads, 0, s>>>(a, n, g_work);
}

/// A new graph holding one WHILE node (condition 1 at each launch); its handle and body.
void while_graph(cudaGraph_t* g, cudaGraphConditionalHandle* h, cudaGraph_t* body) {
  CHECK(cudaGraphCreate(g, 0));
  CHECK(cudaGraphConditionalHandleCreate(h, *g, 1, cudaGraphCondAssignDefault));
  cudaGraphNodeParams p{};
  p.type = cudaGraphNodeTypeConditional;
  p.conditional.handle = *h;
  p.conditional.type = cudaGraphCondTypeWhile;
  p.conditional.size = 1;
  cudaGraphNode_t node;
  CHECK(cudaGraphAddNode(&node, *g, nullptr, nullptr, 0, &p));
  *body = p.conditional.phGraph_out[0];
}

/// WHILE{ count_down -> chain } on stream s, as one executable graph.
cudaGraphExec_t member_graph(cudaStream_t s, float* a, int* counter) {
  cudaGraph_t g, body;
  cudaGraphConditionalHandle h;
  while_graph(&g, &h, &body);
  CHECK(cudaStreamBeginCaptureToGraph(s, body, nullptr, nullptr, 0,
                                      cudaStreamCaptureModeThreadLocal));
  count_down<<<1, 1, 0, s>>>(counter, h);
  chain(s, a);
  CHECK(cudaStreamEndCapture(s, nullptr));
  cudaGraphExec_t e;
  CHECK(cudaGraphInstantiate(&e, g, 0));
  CHECK(cudaGraphDestroy(g));
  return e;
}

/// WHILE{ fork -> N chains -> join -> count_down_all } captured over N streams.
cudaGraphExec_t branch_graph(const std::vector<cudaStream_t>& s, const std::vector<float*>& a,
                             int* counters) {
  const int n = int(s.size());
  cudaGraph_t g, body;
  cudaGraphConditionalHandle h;
  while_graph(&g, &h, &body);
  std::vector<cudaEvent_t> ev(n + 1);
  for (auto& e : ev) CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  CHECK(cudaStreamBeginCaptureToGraph(s[0], body, nullptr, nullptr, 0,
                                      cudaStreamCaptureModeThreadLocal));
  CHECK(cudaEventRecord(ev[n], s[0]));
  for (int k = 1; k < n; ++k) CHECK(cudaStreamWaitEvent(s[k], ev[n], 0));
  for (int k = 0; k < n; ++k) chain(s[k], a[k]);
  for (int k = 1; k < n; ++k) {
    CHECK(cudaEventRecord(ev[k], s[k]));
    CHECK(cudaStreamWaitEvent(s[0], ev[k], 0));
  }
  count_down_all<<<1, 1, 0, s[0]>>>(counters, n, h);
  CHECK(cudaStreamEndCapture(s[0], nullptr));
  cudaGraphExec_t e;
  CHECK(cudaGraphInstantiate(&e, g, 0));
  CHECK(cudaGraphDestroy(g));
  for (auto& x : ev) CHECK(cudaEventDestroy(x));
  return e;
}

void run(int n) {
  std::vector<cudaStream_t> s(n);
  std::vector<float*> a(n);
  int* counters;
  CHECK(cudaMalloc(&counters, sizeof(int) * n));
  for (int k = 0; k < n; ++k) {
    CHECK(cudaStreamCreateWithFlags(&s[k], cudaStreamNonBlocking));
    CHECK(cudaMalloc(&a[k], sizeof(float) * g_blocks * kThreads));
    CHECK(cudaMemset(a[k], 0, sizeof(float) * g_blocks * kThreads));
  }
  const double steps = double(g_steps) * n;
  // separate graphs
  std::vector<cudaGraphExec_t> ge(n);
  for (int k = 0; k < n; ++k) ge[k] = member_graph(s[k], a[k], counters + k);
  double best_sep = 1e30, best_br = 1e30, best_plain = 1e30;
  cudaGraphExec_t gb = branch_graph(s, a, counters);
  for (int rep = 0; rep < 3; ++rep) {
    for (int k = 0; k < n; ++k) set_counter<<<1, 1, 0, s[k]>>>(counters + k, g_steps);
    CHECK(cudaDeviceSynchronize());
    auto t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < n; ++k) CHECK(cudaGraphLaunch(ge[k], s[k]));
    CHECK(cudaDeviceSynchronize());
    best_sep = std::min(best_sep, ms_since(t0));

    for (int k = 0; k < n; ++k) set_counter<<<1, 1, 0, s[0]>>>(counters + k, g_steps);
    CHECK(cudaDeviceSynchronize());
    t0 = std::chrono::steady_clock::now();
    CHECK(cudaGraphLaunch(gb, s[0]));
    CHECK(cudaDeviceSynchronize());
    best_br = std::min(best_br, ms_since(t0));

    t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < g_steps; ++i)
      for (int k = 0; k < n; ++k) chain(s[k], a[k]);
    CHECK(cudaDeviceSynchronize());
    best_plain = std::min(best_plain, ms_since(t0));
  }
  std::printf(
      "%3d members: separate graphs %7.2f us a member-step, one graph of branches %7.2f, "
      "plain launches %7.2f\n",
      n, best_sep * 1e3 / steps, best_br * 1e3 / steps, best_plain * 1e3 / steps);
  for (auto& e : ge) CHECK(cudaGraphExecDestroy(e));
  CHECK(cudaGraphExecDestroy(gb));
  for (int k = 0; k < n; ++k) {
    CHECK(cudaFree(a[k]));
    CHECK(cudaStreamDestroy(s[k]));
  }
  CHECK(cudaFree(counters));
}
}  // namespace

int main(int argc, char** argv) {
  if (argc > 1) g_blocks = std::atoi(argv[1]);
  if (argc > 2) g_chain = std::atoi(argv[2]);
  if (argc > 3) g_work = std::atoi(argv[3]);
  cudaDeviceProp p;
  CHECK(cudaGetDeviceProperties(&p, 0));
  std::printf("%s: a member is %d kernels of %d x %d threads (%d loop turns each), %d steps\n",
              p.name, g_chain, g_blocks, kThreads, g_work, g_steps);
  for (int n : {1, 2, 4, 8, 16, 32}) run(n);
  return 0;
}
