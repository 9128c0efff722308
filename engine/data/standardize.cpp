#include "engine/data/standardize.hpp"

#include <stdexcept>

namespace fedsim::data {

Standardizer Standardizer::fit(const Eigen::Ref<const Eigen::MatrixXd>& X) {
  if (X.rows() < 1) throw std::invalid_argument("standardizer: no sample to fit");
  Standardizer s;
  s.mean = X.colwise().mean();
  const Eigen::RowVectorXd var =
      (X.rowwise() - s.mean).cwiseAbs2().colwise().sum() / static_cast<double>(X.rows());
  s.scale = var.unaryExpr([](double v) { return v > 0.0 ? 1.0 / std::sqrt(v) : 1.0; });
  return s;
}

Eigen::MatrixXd Standardizer::apply(const Eigen::Ref<const Eigen::MatrixXd>& X) const {
  if (X.cols() != mean.size()) throw std::invalid_argument("standardizer: wrong number of features");
  return ((X.rowwise() - mean).array().rowwise() * scale.array()).matrix();
}

}  // namespace fedsim::data
