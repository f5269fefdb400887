// The limiters' and the Roe flux's sign tests in float32 on the backend chosen by --backend,
// against the forms they replaced, evaluated beside them in the same kernel (so under the same
// compile flags: a CUDA unit's compares flush subnormals, a host's do not): same_sign_k, minmod_k
// and monotonized_central_k (kernels/muscl_k.hpp) over pairs, transonic_k (roe_flux_k.hpp) over
// triples, of signed zeros, subnormals, the smallest normals, infinities, NaNs, ties and random
// values. On CUDA (sm_80 and later) the new forms take NaN-propagating min and max
// (math/minmax_nan.hpp, PTX min.NaN / max.NaN), which no other test reaches with such inputs; on
// the CPU the host forms run (monotonized_central_k's one compare is new there too). Bit for bit:
// a swapped min and max, a dropped NaN or a zero of the wrong sign fails. min_nan and max_nan
// themselves against the host's compares (on CUDA: the PTX instructions, subnormals kept).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "silt/core/buffer.hpp"
#include "silt/core/parallel_for.hpp"
#include "silt/swe/kernels/muscl_k.hpp"
#include "silt/swe/kernels/roe_flux_k.hpp"
#include "test_support.hpp"

namespace silt::swe {
namespace {

using test::exec;

// The forms the kernels had before min.NaN / max.NaN (muscl_k.hpp and roe_flux_k.hpp at 583caef).
SILT_HD bool same_sign_before(float a, float b) {
  return (a > 0.0f && b > 0.0f) || (a < 0.0f && b < 0.0f);
}
SILT_HD float minmod_before(float a, float b) {
  const float m = math::abs(a) < math::abs(b) ? a : b;
  return same_sign_before(a, b) ? m : 0.0f;
}
SILT_HD float monotonized_central_before(float a, float b) {
  const float c = 0.5f * (a + b), m = 2.0f * (math::abs(a) < math::abs(b) ? a : b);
  return same_sign_before(a, b) ? (c > 0.0f ? (c < m ? c : m) : (c > m ? c : m)) : 0.0f;
}
SILT_HD bool transonic_before(float lam, float lam_l, float lam_r) {
  return (lam_l < 0.0f) && (lam_r > 0.0f) && (lam_l < lam) && (lam < lam_r);
}

SILT_HD std::uint32_t bits_of(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

std::string hex(std::uint32_t u) {
  std::ostringstream s;
  s << std::hex << u;
  return s.str();
}

// One pair's (or triple's) results: the kernel's form and the form before, side by side.
struct Results {
  float min, max;  // math::min_nan, math::max_nan
  std::uint32_t minmod, minmod_before, mc, mc_before;
  int same_sign, same_sign_before, transonic, transonic_before;
};

std::vector<float> edge_values(int random) {
  const float inf = std::numeric_limits<float>::infinity(),
              nan = std::numeric_limits<float>::quiet_NaN(),
              sub = std::numeric_limits<float>::denorm_min(),
              tiny = std::numeric_limits<float>::min(), big = std::numeric_limits<float>::max();
  std::vector<float> v{0.0f,   -0.0f,   sub,  -sub,  3.0f * sub, -3.0f * sub, tiny, -tiny,
                       1e-30f, -1e-30f, 0.5f, -0.5f, 1.0f,       -1.0f,       2.0f, -2.0f,
                       3.0f,   -3.0f,   big,  -big,  inf,        -inf,        nan,  -nan};
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> d(-4.0f, 4.0f);
  for (int k = 0; k < random; ++k) v.push_back(d(rng));
  return v;
}

// Every pair of v (a = v[i / n], b = v[i % n]) and every triple of its first nt values (lam,
// lam_l, lam_r), through both forms on exec().
std::vector<Results> run_forms(const std::vector<float>& v, Index nt) {
  const Index nv = Index(v.size()), pairs = nv * nv, triples = nt * nt * nt;
  DeviceBuffer<float> values(exec(), nv, "test.values");
  values.upload(v);
  DeviceBuffer<Results> out(exec(), pairs + triples, "test.results");
  const float* x = values.data();
  Results* r = out.data();
  parallel_for(
      exec(), "test.sign_tests", pairs + triples, SILT_LAMBDA(Index i) {
        Results o{};
        if (i < pairs) {
          const float a = x[i / nv], b = x[i % nv];
          o.min = math::min_nan(a, b);
          o.max = math::max_nan(a, b);
          o.minmod = bits_of(minmod_k(a, b));
          o.minmod_before = bits_of(minmod_before(a, b));
          o.mc = bits_of(monotonized_central_k(a, b));
          o.mc_before = bits_of(monotonized_central_before(a, b));
          o.same_sign = same_sign_k(a, b);
          o.same_sign_before = same_sign_before(a, b);
        } else {
          const Index t = i - pairs;
          const float lam = x[t / (nt * nt)], lam_l = x[t / nt % nt], lam_r = x[t % nt];
          o.transonic = bool(transonic_k(lam, lam_l, lam_r));
          o.transonic_before = transonic_before(lam, lam_l, lam_r);
        }
        r[i] = o;
      });
  return out.download();
}

// Mismatches of one form, counted; the first few are named (every form is checked over every
// input before the test fails, so that one run on a GPU shows all that differs).
struct Mismatches {
  const char* form;
  int count = 0;
  void note(bool same, const std::string& what) {
    if (same) return;
    if (++count <= 4) ADD_FAILURE() << form << ": " << what;
  }
};

std::string args(std::initializer_list<float> xs) {
  std::ostringstream s;
  s.precision(9);
  const char* sep = "(";
  for (float x : xs) {
    s << sep << x << " [0x" << std::hex << bits_of(x) << std::dec << "]";
    sep = ", ";
  }
  s << ")";
  return s.str();
}

TEST(SweSignTests, TheKernelFormsGiveTheBitsOfTheFormsBefore) {
  const std::vector<float> v = edge_values(200);
  // Triples over the 24 edge values and 16 of the random ones.
  const Index nv = Index(v.size()), pairs = nv * nv, nt = 40, triples = nt * nt * nt;
  ASSERT_GE(nv, nt);
  const std::vector<Results> got = run_forms(v, nt);
  Mismatches min{"min_nan"}, max{"max_nan"}, same{"same_sign_k"}, mm{"minmod_k bits"},
      mc{"monotonized_central_k bits"}, tr{"transonic_k"};
  for (Index i = 0; i < pairs; ++i) {
    const Results& o = got[size_t(i)];
    const float a = v[size_t(i / nv)], b = v[size_t(i % nv)];
    const std::string ab = args({a, b});
    // NaN where a or b is, else the smaller or the larger (a zero's sign left open: the kernels
    // only compare the result with 0).
    const bool nan = std::isnan(a) || std::isnan(b);
    min.note(nan ? std::isnan(o.min) : o.min == (b < a ? b : a), ab + " = " + args({o.min}));
    max.note(nan ? std::isnan(o.max) : o.max == (a < b ? b : a), ab + " = " + args({o.max}));
    same.note(o.same_sign == o.same_sign_before, ab);
    mm.note(o.minmod == o.minmod_before,
            ab + ": 0x" + hex(o.minmod) + " against 0x" + hex(o.minmod_before) + " before");
    mc.note(o.mc == o.mc_before,
            ab + ": 0x" + hex(o.mc) + " against 0x" + hex(o.mc_before) + " before");
  }
  for (Index t = 0; t < triples; ++t) {
    const Results& o = got[size_t(pairs + t)];
    tr.note(o.transonic == o.transonic_before,
            args({v[size_t(t / (nt * nt))], v[size_t(t / nt % nt)], v[size_t(t % nt)]}));
  }
  for (const Mismatches* m : {&min, &max, &same, &mm, &mc, &tr})
    EXPECT_EQ(m->count, 0) << m->form << ": " << m->count << " of " << (m == &tr ? triples : pairs)
                           << " inputs differ";
}

}  // namespace
}  // namespace silt::swe
