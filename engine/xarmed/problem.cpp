#include "engine/xarmed/problem.hpp"

#include <cmath>
#include <stdexcept>

#include "engine/objectives/double_sine.hpp"
#include "engine/objectives/garland.hpp"
#include "engine/objectives/seir.hpp"
#include "engine/rng.hpp"

namespace fedsim::xarmed {

ObjectiveKind parse_objective_kind(const std::string& name) {
  if (name == "garland") return ObjectiveKind::garland;
  if (name == "double-sine") return ObjectiveKind::double_sine;
  if (name == "seir") return ObjectiveKind::seir;
  if (name == "tuning") return ObjectiveKind::tuning;
  throw std::invalid_argument("unknown objective '" + name +
                              "': allowed garland, double-sine, seir, tuning");
}

std::string to_string(ObjectiveKind kind) {
  switch (kind) {
    case ObjectiveKind::garland: return "garland";
    case ObjectiveKind::double_sine: return "double-sine";
    case ObjectiveKind::seir: return "seir";
    case ObjectiveKind::tuning: return "tuning";
  }
  throw std::logic_error("to_string: not a ObjectiveKind value");
}

OffsetObjective::OffsetObjective(std::shared_ptr<const Objective> base, double offset)
    : base_(std::move(base)), offset_(offset) {
  if (!base_) throw std::invalid_argument("OffsetObjective: null base");
}

double ProblemConfig::default_noise() const {
  switch (objective) {
    case ObjectiveKind::garland:
    case ObjectiveKind::double_sine: return 0.1;
    case ObjectiveKind::seir: return 0.01;
    case ObjectiveKind::tuning: return 0.0;
  }
  throw std::logic_error("default_noise: not an ObjectiveKind value");
}

void ProblemConfig::validate() const {
  if (clients < 1) throw std::invalid_argument("clients M must be >= 1");
  if (!(std::isfinite(offset_std) && offset_std >= 0.0))
    throw std::invalid_argument("offset_std must be >= 0");
  if (!std::isfinite(noise)) throw std::invalid_argument("noise must be finite");
  if (is_tuning()) {
    if (samples < 0) throw std::invalid_argument("tuning: samples must be >= 0 (0: all)");
    if (!(label_skew > 0)) throw std::invalid_argument("tuning: label_skew must be > 0");
    if (!(std::isfinite(quantity_skew) && quantity_skew >= 0))
      throw std::invalid_argument("tuning: quantity_skew must be >= 0");
    if (positive_class < 0) throw std::invalid_argument("tuning: positive_class must be >= 0");
    if (epochs < 1) throw std::invalid_argument("tuning: epochs must be >= 1");
  }
}

FederatedProblem make_problem(const ProblemConfig& config) {
  config.validate();
  if (config.is_tuning())
    throw std::invalid_argument(
        "make_problem: the tuning objective needs its data set (make_tuning_problem)");
  FederatedProblem p;
  p.domain = Box::unit(1);
  p.noise = config.effective_noise();
  const auto m_count = static_cast<std::uint64_t>(config.clients);
  if (config.objective == ObjectiveKind::seir) {
    std::vector<SeirRegion> regions;
    for (std::uint64_t m = 0; m < m_count; ++m) {
      RandomStream rng(config.seed, "xarmed.seir_region", m);
      regions.push_back(SeirRegion::draw(rng));
      p.locals.push_back(std::make_shared<SeirObjective>(std::vector<SeirRegion>{regions.back()}));
    }
    p.global = std::make_shared<SeirObjective>(std::move(regions));
    return p;
  }
  if (config.objective == ObjectiveKind::garland) p.global = std::make_shared<Garland>();
  else p.global = std::make_shared<DoubleSine>();
  for (std::uint64_t m = 0; m < m_count; ++m) {
    RandomStream rng(config.seed, "xarmed.offset", m);
    p.locals.push_back(std::make_shared<OffsetObjective>(p.global, config.offset_std * rng.normal()));
  }
  return p;
}

}  // namespace fedsim::xarmed
