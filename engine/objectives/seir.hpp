#pragma once
/// The COVID-19 vaccine-dosage objective of Fed-PNE appendix E.2: an SEIR epidemic per region
/// with vaccination, integrated by fixed-step RK4; the dosage x in [0, 1] is the fraction of a
/// full dose. Fractional doses reach more people (V proportional to 1/x) but protect less
/// (efficacy falls quadratically to zero at half a dose). Maximised: minus the fraction of the
/// population ever infected by the horizon.
#include <vector>

#include <Eigen/Dense>

#include "engine/objectives/objective.hpp"
#include "engine/rng.hpp"

namespace fedsim {

/// One region's epidemic and vaccination parameters. In fractions of the population N, with
/// s, e, i the susceptible, exposed and infectious fractions and c the cumulative infections:
///   ds/dt = -beta s i - v(x) s        de/dt = beta s i - sigma e
///   di/dt = sigma e - gamma i         dc/dt = beta s i
/// beta = r0 gamma, sigma = 1 / incubation_days, gamma = 1 / infectious_days, and
/// v(x) = alpha(x) V(x) / N the immunisation rate: alpha(x) = efficacy max(0, 1 - 4 (1 - x)^2)
/// (quadratic, 0 at half a dose, flat at a full dose), V(x) = min(doses_per_day / x,
/// capacity_per_day) people vaccinated per day (the same dose volume split 1/x ways, capped by
/// what the region can administer). The paper's dS/dt carries -alpha V; it is multiplied by s
/// here (doses go to random people, a fraction s of them susceptible) so S never turns negative.
/// With V(x) = doses / x every region's best dosage is sqrt(3)/2 (argmax of alpha(x)/x); the
/// capacity makes it max(sqrt(3)/2, doses/capacity), so regions disagree.
struct SeirRegion {
  double population = 1e6;
  double initial_infectious = 100.0;  ///< people infectious at t = 0 (everyone else susceptible)
  double r0 = 2.5;                    ///< basic reproduction number
  double incubation_days = 5.0;       ///< 1 / sigma
  double infectious_days = 7.0;       ///< 1 / gamma
  double doses_per_day = 4000.0;      ///< full-dose courses delivered per day (V at x = 1)
  double capacity_per_day = 5000.0;   ///< most people the region can vaccinate per day
  double efficacy = 0.9;              ///< alpha at a full dose
  double horizon_days = 180.0;
  double step_days = 1.0;             ///< RK4 step

  /// Throws std::invalid_argument naming the bad field.
  void validate() const;
  /// A region drawn from the ranges used for the heterogeneous objective: population log-uniform
  /// in [1e5, 1e7], initial infectious log-uniform in [10, 1000], r0 in [1.5, 3], incubation in
  /// [4, 6] days, infectious period in [5, 9] days, doses per day population x U[0.002, 0.006],
  /// capacity doses x U[1, 1.4]; efficacy 0.9, horizon 180 days, step 1 day.
  static SeirRegion draw(RandomStream& rng);
};

/// alpha(x) / efficacy = max(0, 1 - 4 (1 - x)^2) for x in [0, 1].
double seir_relative_efficacy(double x);
/// v(x) = alpha(x) V(x) / N, per day (0 when alpha is 0, including x = 0).
double seir_immunisation_rate(const SeirRegion& region, double x);
/// Fraction of the population ever infected by the horizon: i(0) + c(horizon).
double seir_attack_rate(const SeirRegion& region, double x);

/// Minus the mean attack rate over one or more regions, on [0, 1]. A single region is one
/// client's local objective; the mean over all regions is the federation's global objective.
/// No closed form: the optimum is found numerically once, in the constructor (a grid of 501
/// points, then golden-section search between the best grid point's neighbours).
class SeirObjective final : public Objective {
 public:
  /// Throws std::invalid_argument if regions is empty or a region is invalid.
  explicit SeirObjective(std::vector<SeirRegion> regions);
  int dim() const override { return 1; }
  double value(const Eigen::Ref<const Eigen::VectorXd>& x) const override;
  double optimum_value() const override { return best_value_; }
  Eigen::VectorXd optimum_location() const override;
  const std::vector<SeirRegion>& regions() const { return regions_; }

 private:
  double value_at(double x) const;
  std::vector<SeirRegion> regions_;
  double best_x_ = 0.0;
  double best_value_ = 0.0;
};

}  // namespace fedsim
