#include "scenarios/tuning_split.hpp"

#include <stdexcept>
#include <vector>

#include "data/datasets.hpp"
#include "engine/data/federated_split.hpp"

namespace fedsim::scenario {

std::string tuning_split_problem(const TuningSplit& split) {
  data::SplitConfig config;
  config.agents = split.agents;
  config.alpha = split.label_skew;
  config.quantity_sigma = split.quantity_skew;
  try {
    config.validate();
  } catch (const std::invalid_argument&) {
    return "";
  }
  std::vector<int> labels;
  try {
    labels = data::load_labels(split.dataset, {}, split.samples);
  } catch (const std::exception&) {
    return "";  // not installed (or unreadable): the run says which package
  }
  try {
    data::federated_split(labels, data::dataset_shape(split.dataset).classes, config, split.seed);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace fedsim::scenario
