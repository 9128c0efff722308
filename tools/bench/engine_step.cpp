// Benchmark of the engine's FBO agent step and of whole synthetic reference runs.
// Build in Release (the default) and run: build/tools/bench_engine_step
// Every figure is printed with a ratio against a baseline measured in the same run.
#include <chrono>
#include <cstdio>
#include <memory>

#include "engine/fbo/agent.hpp"
#include "engine/fbo/algorithms.hpp"
#include "engine/fbo/reference_loop.hpp"

using namespace fedsim;
using namespace fedsim::fbo;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::shared_ptr<const AgentContext> make_context(int M, LocalSampler sampler) {
  Grid grid = Grid::uniform_1d(1000);
  return std::make_shared<const AgentContext>(
      grid, RandomFourierFeatures(1, M, SeKernel{0.03, 1.0}, 7), Partition(Box::unit(1), 2), 0.01,
      1.0, sampler);
}

/// Mean seconds per agent-iteration (local TS choice + observe + message draw), over
/// `iterations` steps after 10 initial points (so histories grow from 10 to 10 + iterations).
double time_agent_step(int M, LocalSampler sampler, int iterations) {
  const auto context = make_context(M, sampler);
  FboAgent agent(0, 0, context);
  RandomStream init(1, "init");
  for (const Point& p : agent.initial_design(10, true, init)) agent.observe(p, 0.5);
  const auto start = Clock::now();
  double sink = 0;
  for (int t = 1; t <= iterations; ++t) {
    RandomStream rng(1, "step", 0, t);
    const Choice c = ts_choose(agent, rng);
    agent.observe(c.point, 0.1 * (c.point.index % 7));
    sink += agent.sample_message(rng)(0);
  }
  const double s = seconds_since(start) / iterations;
  if (sink == 12345.678) std::printf(" ");  // keep the work observable
  return s;
}

/// Baseline for the posterior update: refactorise Sigma = Phi'Phi + lambda I from scratch
/// after each observation instead of a rank-1 update.
double time_refactor_update(int M, int observations) {
  const RandomFourierFeatures f(1, M, SeKernel{0.03, 1.0}, 7);
  Eigen::MatrixXd Sigma = 0.01 * Eigen::MatrixXd::Identity(M, M);
  Eigen::VectorXd phi_y = Eigen::VectorXd::Zero(M);
  double sink = 0;
  const auto start = Clock::now();
  for (int t = 0; t < observations; ++t) {
    const Eigen::VectorXd phi = f.features(Eigen::VectorXd::Constant(1, (t % 997) / 997.0).eval());
    Sigma += phi * phi.transpose();
    phi_y += phi * 0.3;
    Eigen::LLT<Eigen::MatrixXd> llt(Sigma);
    sink += llt.solve(phi_y)(0);
  }
  const double s = seconds_since(start) / observations;
  if (sink == 12345.678) std::printf(" ");
  return s;
}

double time_rank1_update(int M, int observations) {
  const RandomFourierFeatures f(1, M, SeKernel{0.03, 1.0}, 7);
  FeaturePosterior post(M, 0.01);
  double sink = 0;
  const auto start = Clock::now();
  for (int t = 0; t < observations; ++t) {
    post.observe(f.features(Eigen::VectorXd::Constant(1, (t % 997) / 997.0).eval()), 0.3);
    sink += post.mean()(0);
  }
  const double s = seconds_since(start) / observations;
  if (sink == 12345.678) std::printf(" ");
  return s;
}

double time_run(Algorithm algorithm, LocalSampler sampler, int N, int T, int M) {
  ReferenceConfig c;
  c.algorithm = algorithm;
  c.agents = N;
  c.iterations = T;
  c.features = M;
  c.local_sampler = sampler;
  const auto start = Clock::now();
  const ReferenceResult r = run_reference(c);
  const double s = seconds_since(start);
  std::printf("  %-10s local=%-5s N=%d T=%d M=%d: %.3f s  (%.1f us per agent-iteration, "
              "final regret %.4f)\n",
              to_string(algorithm).c_str(), to_string(sampler).c_str(), N, T, M, s,
              1e6 * s / (N * (T + 10.0)), r.final_simple_regret);
  return s;
}

}  // namespace

int main() {
  std::printf("fedsim engine benchmark (Release build, one thread)\n\n");
  std::printf("Agent step (local TS + observe + message draw), grid of 1000 points:\n");
  for (int M : {50, 100}) {
    const double rff = time_agent_step(M, LocalSampler::rff, 300);
    const double exact = time_agent_step(M, LocalSampler::exact, 300);
    std::printf("  M=%3d  rff local TS %.1f us   exact (pathwise) local TS %.1f us   "
                "ratio exact/rff %.2f\n",
                M, 1e6 * rff, 1e6 * exact, exact / rff);
  }
  std::printf("\nPosterior update + mean, 200 observations:\n");
  for (int M : {50, 100}) {
    const double rank1 = time_rank1_update(M, 200);
    const double refactor = time_refactor_update(M, 200);
    std::printf("  M=%3d  rank-1 %.1f us   refactorise (baseline) %.1f us   speed-up %.1fx\n", M,
                1e6 * rank1, 1e6 * refactor, refactor / rank1);
  }
  std::printf("\nWhole synthetic runs (N_init = 10):\n");
  const double ts = time_run(Algorithm::ts, LocalSampler::rff, 200, 60, 50);
  const double dp = time_run(Algorithm::dp_fts_de, LocalSampler::rff, 200, 60, 50);
  const double dp_exact = time_run(Algorithm::dp_fts_de, LocalSampler::exact, 200, 60, 50);
  std::printf("  ratio dp-fts-de / ts (rff): %.2f   dp-fts-de exact / rff: %.2f\n", dp / ts,
              dp_exact / dp);
  return 0;
}
