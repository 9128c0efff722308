#pragma once
/// L2 clipping: the step that bounds each member's influence before the noise is added.
#include <Eigen/Dense>

namespace fedsim::dp {

/// Scales v in place so that |v|_2 <= max_norm; returns true if v had to be shrunk.
/// Throws std::invalid_argument unless max_norm is finite and > 0.
bool clip_to_norm(Eigen::Ref<Eigen::VectorXd> v, double max_norm);

}  // namespace fedsim::dp
