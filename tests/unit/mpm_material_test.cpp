// Constitutive models behind material_stress(): fixed-corotated, Tait fluid, Drucker-Prager sand
// and NACC snow, in double against closed forms.
#include <gtest/gtest.h>

#include <cmath>

#include "silt/mpm/kernels/material_k.hpp"
#include "silt/mpm/scene_params.hpp"
#include "test_support.hpp"

namespace silt::mpm {
namespace {

using V = Vec3<double>;
using M = Mat3<double>;

double max_abs_diff(const M& a, const M& b) {
  double m = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) m = std::max(m, std::abs(a(i, j) - b(i, j)));
  return m;
}

M rotation(double angle, V axis) {  // Rodrigues
  axis = normalized(axis);
  const M k{0, -axis[2], axis[1], axis[2], 0, -axis[0], -axis[1], axis[0], 0};
  return M::identity() + k * std::sin(angle) + (k * k) * (1 - std::cos(angle));
}

// Stresses of order E = 1e6 Pa computed through a double SVD (round-off ~1e-15 relative):
// 1e-7 Pa absolute is ~1e-13 relative, far below any modelling error.
constexpr double kStressTol = 1e-7;
constexpr double kE = 1.0e6, kNu = 0.3;
const double kMu = lame_mu(kE, kNu), kLambda = lame_lambda(kE, kNu);

TEST(FixedCorotated, ZeroStressAtIdentityAndRotations) {
  EXPECT_LE(max_abs_diff(fixed_corotated_kirchhoff(M::identity(), kMu, kLambda), M::zero()),
            kStressTol);
  const M r = rotation(1.1, V{0.3, -1, 2});
  EXPECT_LE(max_abs_diff(fixed_corotated_kirchhoff(r, kMu, kLambda), M::zero()), kStressTol);
}

TEST(FixedCorotated, UniaxialStretchMatchesFormula) {
  for (double s : {0.8, 0.97, 1.0, 1.05, 1.5}) {
    // tau = P F^T: tau_11 = 2 mu (s - 1) s + lambda (s - 1) s, tau_22 = tau_33 = lambda (s - 1) s.
    const double t11 = 2 * kMu * (s - 1) * s + kLambda * (s - 1) * s;
    const double t22 = kLambda * (s - 1) * s;
    const M f = M::diag(V{s, 1, 1});
    const M expect = M::diag(V{t11, t22, t22});
    EXPECT_LE(max_abs_diff(fixed_corotated_kirchhoff(f, kMu, kLambda), expect), kStressTol) << s;
    // Rotated stretch Q F: tau rotates to Q tau Q^T; and the textbook P F^T agrees.
    const M q = rotation(0.7, V{1, 1, 0});
    const M tq = fixed_corotated_kirchhoff(M(q * f), kMu, kLambda);
    EXPECT_LE(max_abs_diff(tq, q * expect * transpose(q)), kStressTol) << s;
    EXPECT_LE(max_abs_diff(tq, mul_transpose(fixed_corotated_piola(M(q * f), kMu, kLambda), q * f)),
              kStressTol)
        << s;
  }
  // Inverted F (det < 0): the principal form and the textbook P F^T still agree.
  const M inv = rotation(0.4, V{0, 0, 1}) * M::diag(V{-0.3, 1.1, 0.9});
  EXPECT_LE(max_abs_diff(fixed_corotated_kirchhoff(inv, kMu, kLambda),
                         mul_transpose(fixed_corotated_piola(inv, kMu, kLambda), inv)),
            kStressTol);
}

TEST(Fluid, TaitPressureAndReset) {
  const double bulk = 1e5, gamma = 7;
  for (double j : {0.9, 0.99, 1.0, 1.02}) {
    const double rho_ratio = 1 / j;
    EXPECT_NEAR(tait_pressure(j, bulk, gamma), bulk / gamma * (std::pow(rho_ratio, gamma) - 1),
                1e-9 * bulk)
        << j;
  }
  MaterialParams<double> m{};
  m.model = MaterialKind::fluid;
  m.density = 1000, m.bulk = bulk, m.gamma = gamma, m.viscosity = 0.01;
  const M c{0, 2, 0, 0, 0, 0, 0, 0, 1};
  M f = rotation(0.3, V{1, 2, 3}) * M::diag(V{0.9, 1, 1}) * rotation(-0.5, V{0, 1, 0});
  double plastic = 0;
  const M tau = material_stress(m, f, plastic, c);
  const double j = 0.9, p = bulk / gamma * (std::pow(j, -gamma) - 1);
  EXPECT_LE(max_abs_diff(f, M::diag(std::cbrt(j))), 1e-12);  // F reset to J^{1/3} I
  EXPECT_LE(max_abs_diff(tau, M::diag(-j * p) + (c + transpose(c)) * (j * m.viscosity)),
            1e-9 * bulk);
  EXPECT_NEAR(material_wave_speed(m), std::sqrt(bulk / 1000.0), 1e-12);
}

// Drucker-Prager strains are O(1e-2); the yield function after projection is a difference of
// such numbers: 1e-13 is round-off.
constexpr double kStrainTol = 1e-13;
const double kAlpha = dp_alpha_from_friction_angle(30.0);

TEST(DruckerPrager, AlphaFromFrictionAngle) {
  EXPECT_NEAR(kAlpha, std::sqrt(2.0 / 3.0) * 2 * 0.5 / 2.5, 1e-15);  // sin 30 = 0.5
}

TEST(DruckerPrager, InsideConeUnchanged) {
  V eps{-0.01, -0.011, -0.012};
  double vc = 0;
  ASSERT_LT(dp_yield(eps, kMu, kLambda, kAlpha, 0.0), 0.0);
  const V before = eps;
  EXPECT_FALSE(dp_project_strain(eps, vc, kMu, kLambda, kAlpha, 0.0, 1.0));
  EXPECT_LE(norm(eps - before), 0.0);
}

TEST(DruckerPrager, OutsideProjectedOntoConeKeepingVolume) {
  for (double c : {0.0, 0.005}) {
    V eps{0.02 + c, -0.03 + c, -0.01 + c};
    double vc = 0;
    ASSERT_GT(dp_yield(eps, kMu, kLambda, kAlpha, c), 0.0);
    const double tr = sum(eps);
    EXPECT_TRUE(dp_project_strain(eps, vc, kMu, kLambda, kAlpha, c, 1.0));
    EXPECT_NEAR(dp_yield(eps, kMu, kLambda, kAlpha, c), 0.0, kStrainTol) << c;
    EXPECT_NEAR(sum(eps), tr, kStrainTol) << "return map is purely deviatoric";
  }
}

TEST(DruckerPrager, TensionGoesToTipAndVolumeCorrectionDelaysRecompression) {
  V eps{0.01, 0.005, -0.002};
  double vc = 0;
  EXPECT_TRUE(dp_project_strain(eps, vc, kMu, kLambda, kAlpha, 0.0, 1.0));
  EXPECT_LE(norm(eps), 0.0);  // apex: zero strain, zero stress
  EXPECT_NEAR(vc, 0.013, kStrainTol);
  // Slight compression afterwards is absorbed by the correction: still stress-free.
  V eps2{-0.002, -0.002, -0.001};
  EXPECT_TRUE(dp_project_strain(eps2, vc, kMu, kLambda, kAlpha, 0.0, 1.0));
  EXPECT_LE(norm(eps2), 0.0);
  EXPECT_NEAR(vc, 0.008, kStrainTol);
  // With cohesion the apex is eps = c I and carries tension (2 mu + 3 lambda) c.
  const double c = 0.01;
  V eps3{0.03, 0.02, 0.015};
  double vc3 = 0;
  EXPECT_TRUE(dp_project_strain(eps3, vc3, kMu, kLambda, kAlpha, c, 0.0));
  EXPECT_LE(norm(eps3 - V::constant(c)), kStrainTol);
  EXPECT_EQ(vc3, 0.0);  // volume_correction = 0 disables it
}

TEST(DruckerPrager, UpdateRebuildsFAndStressIsHencky) {
  const M q = rotation(0.6, V{1, -1, 2}), w = rotation(-1.2, V{0, 1, 1});
  const V eps{0.02, -0.03, -0.01};
  M f = u_diag_vt(q, V{std::exp(eps[0]), std::exp(eps[1]), std::exp(eps[2])}, w);
  double vc = 0;
  const M tau = drucker_prager_update(f, vc, kMu, kLambda, kAlpha, 0.0, 1.0);
  const Svd3<double> d = svd3(f);
  const V h{std::log(d.sigma[0]), std::log(d.sigma[1]), std::log(d.sigma[2])};
  EXPECT_NEAR(dp_yield(h, kMu, kLambda, kAlpha, 0.0), 0.0, 1e-12);  // through exp/log and SVD
  const double lt = kLambda * sum(h);
  EXPECT_LE(
      max_abs_diff(
          tau,
          u_diag_vt(d.u, V{2 * kMu * h[0] + lt, 2 * kMu * h[1] + lt, 2 * kMu * h[2] + lt}, d.u)),
      kStressTol);
  // Projecting again changes nothing beyond round-off (the state is on the surface).
  M f2 = f;
  drucker_prager_update(f2, vc, kMu, kLambda, kAlpha, 0.0, 1.0);
  EXPECT_LE(max_abs_diff(f2, f), 1e-12);
}

// NACC with the paper 000 snow (man crawling in snow) parameters, converted from cgs: kappa 5e5
// dyne/cm^2 = 5e4 Pa, nu 0.3, M 0.8, beta 0.9, xi 5.
NaccParams<double> snow() {
  const double kappa = 5e4;
  return NaccParams<double>{kappa, mu_from_bulk(kappa, 0.3), 0.8, 0.9, 5.0, true};
}
// y is in Pa^2 with terms ~1e8: relative 1e-10 of the p-term is far above double round-off.
constexpr double kYieldRelTol = 1e-10;

TEST(Nacc, CompressionPastTipHardens) {
  const NaccParams<double> q = snow();
  double alpha = -0.04;
  const double p0 = nacc_p0(alpha, q.kappa, q.xi);
  V sigma = V::constant(0.7);  // J = 0.343: p = 5.3e4 Pa > p0 = 1.0e4 Pa
  ASSERT_GT(nacc_pressure(0.343, q.kappa), p0);
  EXPECT_TRUE(nacc_project(sigma, alpha, q));
  EXPECT_LT(alpha, -0.04);  // alpha = log J_p decreases: p0 grows, snow hardens
  const double j = sigma[0] * sigma[1] * sigma[2];
  EXPECT_NEAR(nacc_pressure(j, q.kappa), p0, 1e-9 * p0);   // on the compressive tip
  EXPECT_NEAR(alpha, -0.04 + std::log(0.343 / j), 1e-12);  // alpha += log(J / J_e)
  EXPECT_GT(nacc_p0(alpha, q.kappa, q.xi), p0);
}

// The return mapping reaches the compressive tip for every size of the yield surface. Snow
// hardened past p0 = kappa/2 (alpha < -0.096 at xi = 5, reached by 10% compaction) could not be
// crushed further under Wolper et al.'s elastic law, whose Kirchhoff pressure kappa/2 (1 - J^2)
// never exceeds kappa/2: it was elastic in compression without bound.
TEST(Nacc, CompressiveTipReachedAtEveryHardening) {
  const NaccParams<double> q = snow();
  for (double alpha0 : {-0.04, -0.1, -0.3, -0.6, -1.0}) {
    const double p0 = nacc_p0(alpha0, q.kappa, q.xi);
    // A trial state 20% further compressed than the tip itself.
    const double j_tip = nacc_j_at_pressure(p0, q.kappa);
    V sigma = V::constant(std::cbrt(0.8 * j_tip));
    double alpha = alpha0;
    EXPECT_TRUE(nacc_project(sigma, alpha, q)) << alpha0;
    const double j = sigma[0] * sigma[1] * sigma[2];
    EXPECT_NEAR(nacc_pressure(j, q.kappa), p0, 1e-9 * p0) << alpha0;
    EXPECT_NEAR(alpha, alpha0 + std::log(0.8), 1e-9) << alpha0;  // the 20% went plastic
  }
}

TEST(Nacc, TensionPastTipSoftens) {
  const NaccParams<double> q = snow();
  double alpha = -0.04;
  const double p0 = nacc_p0(alpha, q.kappa, q.xi);
  V sigma = V::constant(1.1);  // J = 1.331: p = -1.4e4 Pa < -beta p0
  EXPECT_TRUE(nacc_project(sigma, alpha, q));
  EXPECT_GT(alpha, -0.04);
  const double j = sigma[0] * sigma[1] * sigma[2];
  EXPECT_NEAR(nacc_pressure(j, q.kappa), -q.beta * p0, 1e-9 * p0);
}

TEST(Nacc, ShearProjectedOntoYieldSurfaceAtConstantVolume) {
  const NaccParams<double> q = snow();
  for (double j0 : {0.9, 1.0, 1.05}) {
    double alpha = -0.04;
    const double a = std::cbrt(j0);
    V sigma{1.2 * a, a / 1.2, a};
    const double p0 = nacc_p0(alpha, q.kappa, q.xi);
    ASSERT_GT(nacc_yield(sigma, alpha, q), 0.0) << j0;
    const double p_c = (1 - q.beta) * p0 / 2, p = nacc_pressure(j0, q.kappa);
    EXPECT_TRUE(nacc_project(sigma, alpha, q));
    const double j = sigma[0] * sigma[1] * sigma[2];
    EXPECT_NEAR(j, j0, 1e-12) << "shear return keeps J";
    // On the surface of the ellipse of the *old* p0 (hardening moves alpha afterwards).
    const double scale = q.m * q.m * p0 * p0;
    NaccParams<double> frozen = q;
    EXPECT_NEAR(nacc_yield(sigma, -0.04, frozen) / scale, 0.0, kYieldRelTol) << j0;
    // Hardening: compressive side (p > p_c) hardens, tensile side softens.
    if (p > p_c)
      EXPECT_LT(alpha, -0.04) << j0;
    else
      EXPECT_GT(alpha, -0.04) << j0;
  }
}

TEST(Nacc, InsideUnchangedAndStressFormula) {
  const NaccParams<double> q = snow();
  double alpha = -0.04;
  V sigma{1.001, 1.0, 0.995};
  const V before = sigma;
  ASSERT_LT(nacc_yield(sigma, alpha, q), 0.0);
  EXPECT_FALSE(nacc_project(sigma, alpha, q));
  EXPECT_LE(norm(sigma - before), 0.0);
  EXPECT_EQ(alpha, -0.04);
  // tau = U diag(2 mu dev(log sigma) + kappa log J) U^T: at sigma = s I it is isotropic.
  const double s = 0.98, j = s * s * s;
  const M tau = nacc_kirchhoff(M::identity(), V::constant(s), q.mu, q.kappa);
  EXPECT_LE(max_abs_diff(tau, M::diag(q.kappa * std::log(j))), kStressTol);
}

// Principal tangent modulus d tau_i / d eps_i (Pa) of the elastic law at singular values sigma,
// by central differences in the Hencky strain eps_i = log sigma_i.
double nacc_axial_modulus(const V& sigma, int i, const NaccParams<double>& q) {
  const double h = 1e-6;
  V up = sigma, down = sigma;
  up[i] *= std::exp(h), down[i] *= std::exp(-h);
  const M t_up = nacc_kirchhoff(M::identity(), up, q.mu, q.kappa);
  const M t_down = nacc_kirchhoff(M::identity(), down, q.mu, q.kappa);
  return (t_up(i, i) - t_down(i, i)) / (2 * h);
}

// The adaptive dt takes the P-wave speed at rest, sqrt((kappa + 4/3 mu) / rho0). It bounds the
// waves of every state the return mapping leaves only if no axial modulus d tau_i / d eps_i
// exceeds kappa + 4/3 mu there. A material point pushed the way packed snow is in front of a
// post (confined compression, then shear at constant volume, then compression again) breaks that
// under Wolper et al.'s law: J_e fell to 0.05, and the J^(-2/3) shear term took the modulus to
// ~3x the rest value (the paper-parameter snow scene blew up at elastic_cfl 0.5, not at 0.3).
TEST(Nacc, WaveModulusBoundedOnACompactionPath) {
  const NaccParams<double> q = snow();
  const double rest = q.kappa + 4.0 / 3.0 * q.mu;
  // d tau / d eps of Hencky elasticity is constant: only the difference quotient's error.
  constexpr double kModulusRelTol = 1e-6;
  M f = M::identity();
  double alpha = -0.04, worst = 0;
  for (int step = 0; step < 400; ++step) {
    V stretch{1, 1, 1};
    if (step < 150 || step >= 250)
      stretch[2] = 0.99;  // confined compression
    else
      stretch = V{1.01, 1 / 1.01, 1};  // shear at constant volume
    f = M::diag(stretch) * f;
    nacc_update(f, alpha, q);
    const Svd3<double> d = svd3(f);
    for (int i = 0; i < 3; ++i) worst = std::max(worst, nacc_axial_modulus(d.sigma, i, q) / rest);
    ASSERT_TRUE(std::isfinite(alpha)) << step;
  }
  EXPECT_LE(worst, 1 + kModulusRelTol) << "largest axial modulus over kappa + 4/3 mu";
  EXPECT_LT(alpha, -0.3);  // the path did compact the snow (p0 > 2 kappa)
}

TEST(MaterialStress, DispatchesAndSceneParamsConvert) {
  Material in;
  in.kind = MaterialKind::fixed_corotated;
  in.youngs_modulus = kE, in.poisson_ratio = kNu, in.density = 1200;
  MaterialParams<double> m = make_material_params<double>(in);
  EXPECT_NEAR(m.mu, kE / 2.6, 1e-9);
  EXPECT_NEAR(m.lambda, kE * 0.3 / (1.3 * 0.4), 1e-9);
  EXPECT_NEAR(m.wave_speed, std::sqrt((m.lambda + 2 * m.mu) / 1200), 1e-9);
  const M f0 = rotation(0.2, V{1, 0, 0}) * M::diag(V{1.1, 0.95, 1.0});
  M f = f0;
  double plastic = 0;
  EXPECT_LE(max_abs_diff(material_stress(m, f, plastic, M::zero()),
                         fixed_corotated_kirchhoff(f0, m.mu, m.lambda)),
            kStressTol);
  EXPECT_LE(max_abs_diff(f, f0), 0.0);  // elastic: F untouched

  in.kind = MaterialKind::nacc;
  in.nacc_kappa = 5e5;
  m = make_material_params<double>(in);
  EXPECT_NEAR(m.lambda + 2.0 / 3.0 * m.mu, 5e5, 1e-6);  // bulk modulus kept
  EXPECT_EQ(material_initial_plastic(m), in.nacc_alpha0);

  in.kind = MaterialKind::drucker_prager;
  m = make_material_params<double>(in);
  f = M::diag(V{1.02, 1.01, 1.0});  // tension: to the apex, zero stress, F -> I
  plastic = 0;
  EXPECT_LE(max_abs_diff(material_stress(m, f, plastic, M::zero()), M::zero()), kStressTol);
  EXPECT_LE(max_abs_diff(f, M::identity()), 1e-12);
  EXPECT_GT(plastic, 0.0);
}

}  // namespace
}  // namespace silt::mpm
