#pragma once
/// A labelled data set in memory (data/datasets.hpp reads the ones Debian ships).
#include <string>
#include <vector>

#include <Eigen/Dense>

namespace fedsim::data {

struct Dataset {
  std::string name;
  Eigen::MatrixXf x;   ///< n x d features, as stored (pixels scaled to [0, 1])
  std::vector<int> y;  ///< n labels in 0 .. classes - 1
  int classes = 0;
  int size() const { return static_cast<int>(y.size()); }
  int features() const { return static_cast<int>(x.cols()); }
};

}  // namespace fedsim::data
