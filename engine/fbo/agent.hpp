#pragma once
/// One FBO agent's state on its search domain (a finite candidate set, or the whole unit box
/// [0, 1]^d when there are no candidates): its observations, its feature-space posterior
/// (for the omega_{n,t} it sends), and its own GP for local Thompson sampling, whose
/// hyperparameters it may refit during the run (engine/fbo/refit.hpp says which parts use the
/// fitted values). The decisions of each algorithm (which branch, which message) live in
/// algorithms.hpp.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Dense>

#include "engine/acquisition.hpp"
#include "engine/domain.hpp"
#include "engine/fbo/refit.hpp"
#include "engine/fbo/refit_rff.hpp"
#include "engine/gp_exact.hpp"
#include "engine/hyperparameters.hpp"
#include "engine/posterior.hpp"
#include "engine/rff.hpp"
#include "engine/rng.hpp"

namespace fedsim::fbo {

/// How an agent draws a function from its own posterior for local TS.
/// rff: f = phi(x)'omega, omega ~ N(nu, beta^2 lambda Sigma^-1) (FTS section 3.2's cheap way);
/// exact: the exact GP posterior on the grid, drawn by pathwise conditioning;
/// refit_rff, refit_rff_bounded: the DP-FTS-DE authors' sampler, fresh features with GP
/// hyperparameters refitted every few observations, unbounded as theirs or within bounds
/// (engine/fbo/refit_rff.hpp).
enum class LocalSampler { rff, exact, refit_rff, refit_rff_bounded };
/// "rff", "exact", "refit-rff", "refit-rff-bounded"
LocalSampler parse_local_sampler(const std::string& name);
std::string to_string(LocalSampler sampler);

/// How an agent keeps its posterior over the shared features' weights (FeaturePosterior);
/// both give the same draws, bit for bit (algorithm.posterior_memory).
enum class PosteriorMemory {
  /// Its Cholesky factor, M x M doubles (19.5 KiB at M = 50), one O(M^2) update per
  /// observation.
  factor,
  /// Its observations only. The factor is rebuilt from them, by the same updates in the same
  /// order, when the agent draws: O(n M^2) for n observations, in a buffer of the calling
  /// thread that the next observations of the same agent extend.
  history,
};
std::string to_string(PosteriorMemory memory);

/// A point the agent queries: a candidate (index >= 0, x its row) or a point of the box
/// (index -1). x is in unit coordinates.
struct Point {
  int index = -1;
  Eigen::VectorXd x;
};

/// Everything agents share, built once per run and never mutated (shared by pointer).
/// On a box (no candidates, grid.size() == 0) acquisition maximises sampled functions with
/// random candidates and local refinement (engine/acquisition.hpp, `acquisition`); on a
/// candidate set it is exhaustive.
struct AgentContext {
  Grid grid;                            ///< candidate points: n_c x d (0 x d: the box)
  RandomFourierFeatures features;       ///< the shared random features
  Eigen::MatrixXd grid_features;        ///< Phi(grid): n_c x M
  Partition partition;                  ///< DE sub-regions
  std::vector<int> grid_region;         ///< sub-region of each grid point: n_c
  std::vector<std::vector<int>> region_points;  ///< grid indices of each sub-region
  double lambda = 0.01;                 ///< noise variance / regulariser
  double beta = 1.0;                    ///< TS scale (the papers' experiments use 1)
  LocalSampler local_sampler = LocalSampler::rff;
  /// Low-rank prior factor of the grid for exact local TS (null with the rff sampler).
  std::shared_ptr<const CandidatePrior> prior;
  /// Hyperparameter refits of the agents' local models (off by default); with
  /// refit_rff_bounded, `refit`'s length-scale and noise bounds bound its fits.
  RefitConfig refit;
  /// The authors' sampler (local_sampler refit_rff and refit_rff_bounded).
  RefitRffConfig refit_rff;
  std::uint64_t seed = 1;  ///< the run seed, keying the refits' streams
  BoxMaximizerOptions acquisition;  ///< on a box: random candidates and refinement
  PosteriorMemory posterior_memory = PosteriorMemory::factor;

  /// Throws std::invalid_argument if a sub-region holds no grid point, refit, refit_rff or
  /// acquisition is invalid, the exact local sampler is asked for on a box (it needs
  /// candidates), or refit.every > 0 with a refit-rff sampler (which refits on its own period).
  AgentContext(Grid grid, RandomFourierFeatures features, Partition partition, double lambda,
               double beta, LocalSampler local_sampler, RefitConfig refit = {},
               std::uint64_t seed = 1, BoxMaximizerOptions acquisition = {},
               RefitRffConfig refit_rff = {},
               PosteriorMemory posterior_memory = PosteriorMemory::factor);
  /// Whether local TS is the authors' sampler (refit_rff or refit_rff_bounded).
  bool authors_sampler() const {
    return local_sampler == LocalSampler::refit_rff ||
           local_sampler == LocalSampler::refit_rff_bounded;
  }
  /// Whether agents search a finite candidate set (else the whole box).
  bool discrete() const { return grid.size() > 0; }
  int dim() const { return features.dim(); }
  /// Candidate `index` as a point.
  Point candidate(int index) const { return {index, grid.points.row(index).transpose()}; }
};

class FboAgent {
 public:
  FboAgent(int id, int region, std::shared_ptr<const AgentContext> context);

  int id() const { return id_; }
  int region() const { return region_; }
  int num_observations() const { return static_cast<int>(observed_.size()); }

  /// n_init points drawn uniformly from the agent's sub-region (or the whole domain): grid
  /// points, or on a box uniform points of the sub-region's box.
  std::vector<Point> initial_design(int n_init, bool in_region, RandomStream& rng) const;
  /// Local TS: argmax of one function drawn from the agent's own posterior (on a box, the
  /// acquisition's random candidates are drawn from rng after the function).
  Point argmax_local_ts(RandomStream& rng) const;
  /// argmax of phi(x)'omega (rng: the box's random candidates; unused on a grid).
  Point argmax_omega(const Eigen::Ref<const Eigen::VectorXd>& omega, RandomStream& rng) const;
  /// argmax of phi(x)'omega^(i[x]) (DP-FTS-DE Algo 2 line 8). joint: M x P.
  Point argmax_joint(const Eigen::Ref<const Eigen::MatrixXd>& joint, RandomStream& rng) const;
  /// Records y observed at p; when this observation's count is due (context.refit.due),
  /// refits the local model's hyperparameters from the whole history. A candidate (index >= 0)
  /// must have its grid row as x (std::invalid_argument otherwise): only its index is kept.
  void observe(const Point& p, double y);
  /// observe(candidate `index`).
  void observe(int index, double y) { observe(context_->candidate(index), y); }
  /// omega_{n,t} ~ N(nu, lambda Sigma^-1), the vector sent to the server: always the shared
  /// model (configured lambda, signal variance 1), never the fitted one.
  Eigen::VectorXd sample_message(RandomStream& rng) const;

  /// The local model's hyperparameters: the last refit's, or before any the shared model's
  /// (kernel lengthscale, signal variance 1, noise variance lambda; with the authors' sampler
  /// their start, refit_rff_initial()).
  const GpHyperparameters& local_hyperparameters() const { return local_; }
  int refits() const { return refits_; }  ///< refits done so far
  /// The feature posterior local TS samples with the rff sampler (at scale beta sqrt(s2)):
  /// the shared one, or after a refit the one with regulariser n2 / s2. With
  /// PosteriorMemory::history the shared one is the calling thread's rebuilt copy, valid
  /// until this thread asks another agent for its posterior.
  const FeaturePosterior& local_posterior() const {
    return local_posterior_ ? *local_posterior_ : posterior();
  }
  /// The exact GP local TS samples (LocalSampler::exact), else null.
  const ExactGp* exact_gp() const { return exact_ ? &*exact_ : nullptr; }
  /// (point, y) of every observation, in order.
  std::vector<std::pair<Point, double>> history() const;

 private:
  void refit();
  void refit_authors();
  /// The history's points (n x d) and values (n).
  Eigen::MatrixXd history_points() const;
  Eigen::VectorXd history_values() const;
  /// phi(p): the cached row of a candidate, else computed.
  Eigen::VectorXd features_of(const Point& p) const;
  /// The point and the features of observation s.
  Point observed_point(std::size_t s) const;
  Eigen::VectorXd observed_features(std::size_t s) const;
  /// The shared model's posterior: posterior_, or rebuilt from the history
  /// (PosteriorMemory::history).
  const FeaturePosterior& posterior() const;

  int id_;
  int region_;
  std::shared_ptr<const AgentContext> context_;
  /// The shared model: messages, and local TS before a refit (absent with
  /// PosteriorMemory::history).
  std::optional<FeaturePosterior> posterior_;
  /// Unique to this agent object, whose posterior a thread has rebuilt: a copy or an
  /// assignment takes a new one, so two agents never share one.
  struct Serial {
    std::uint64_t value;
    Serial();
    Serial(const Serial&) : Serial() {}
    Serial& operator=(const Serial&) {
      value = Serial().value;
      return *this;
    }
  };
  Serial serial_;
  std::optional<ExactGp> exact_;  ///< present with LocalSampler::exact
  /// rff sampler after a refit: the posterior with regulariser n2 / s2 (refit.hpp).
  std::optional<FeaturePosterior> local_posterior_;
  GpHyperparameters local_;
  int refits_ = 0;
  /// The observations, in order, as compactly as a million agents need: (k, y) where k >= 0
  /// is a candidate's index, and k < 0 a point of the box, row -1 - k of box_points_.
  std::vector<std::pair<int, double>> observed_;
  std::vector<double> box_points_;  ///< the box points observed, d coordinates each
};

}  // namespace fedsim::fbo
