#include "engine/domain.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace fedsim {

Box Box::unit(int dim) {
  if (dim <= 0) throw std::invalid_argument("box dimension must be > 0");
  return Box{Eigen::VectorXd::Zero(dim), Eigen::VectorXd::Ones(dim)};
}

bool Box::contains(const Eigen::Ref<const Eigen::VectorXd>& x) const {
  return x.size() == lower.size() && (x.array() >= lower.array()).all() &&
         (x.array() <= upper.array()).all();
}

double Box::volume() const { return (upper - lower).prod(); }

void Box::validate() const {
  if (lower.size() == 0) throw std::invalid_argument("box has no dimensions");
  if (lower.size() != upper.size())
    throw std::invalid_argument("box lower and upper bounds have different dimensions");
  for (int j = 0; j < dim(); ++j) {
    if (!std::isfinite(lower(j)) || !std::isfinite(upper(j)))
      throw std::invalid_argument("box bound on axis " + std::to_string(j) + " is not finite");
    if (!(lower(j) < upper(j)))
      throw std::invalid_argument("box is empty on axis " + std::to_string(j) +
                                  ": lower bound must be < upper bound");
  }
}

Grid Grid::uniform_1d(int n, double lo, double hi) {
  if (n < 1) throw std::invalid_argument("grid size must be >= 1");
  if (!(lo < hi)) throw std::invalid_argument("grid interval is empty: need lo < hi");
  Grid g;
  g.points.resize(n, 1);
  for (int i = 0; i < n; ++i) g.points(i, 0) = n == 1 ? lo : lo + (hi - lo) * i / (n - 1.0);
  return g;
}

Grid Grid::tensor(const Box& box, int per_dim) {
  box.validate();
  if (per_dim < 1) throw std::invalid_argument("grid points per axis must be >= 1");
  const int d = box.dim();
  long total = 1;
  for (int j = 0; j < d; ++j) total *= per_dim;
  Grid g;
  g.points.resize(total, d);
  for (long r = 0; r < total; ++r) {
    long rest = r;
    for (int j = d - 1; j >= 0; --j) {
      const int k = static_cast<int>(rest % per_dim);
      rest /= per_dim;
      const double u = per_dim == 1 ? 0.5 : k / (per_dim - 1.0);
      g.points(r, j) = box.lower(j) + u * (box.upper(j) - box.lower(j));
    }
  }
  return g;
}

int Grid::nearest(const Eigen::Ref<const Eigen::VectorXd>& x) const {
  Eigen::Index best = 0;
  (points.rowwise() - x.transpose()).rowwise().squaredNorm().minCoeff(&best);
  return static_cast<int>(best);
}

namespace {
/// Splits P over d axes: repeatedly give the smallest prime factor of what is left to the
/// next axis in turn (axis 0, 1, ..., d-1, 0, ...), so P = 4 in 2-D halves both axes and
/// P = 4 in 3-D halves the first two.
std::vector<int> split_over_axes(int P, int d) {
  std::vector<int> cuts(d, 1);
  int rest = P, axis = 0;
  while (rest > 1) {
    int f = 2;
    while (rest % f != 0) ++f;
    cuts[axis] *= f;
    rest /= f;
    axis = (axis + 1) % d;
  }
  return cuts;
}
}  // namespace

Partition::Partition(Box box, int num_regions) : box_(std::move(box)) {
  box_.validate();
  if (num_regions < 1)
    throw std::invalid_argument("number of sub-regions P must be >= 1, got " +
                                std::to_string(num_regions));
  const int d = box_.dim();
  cuts_ = split_over_axes(num_regions, d);
  regions_.reserve(num_regions);
  // Region index: row-major over the axes, axis 0 slowest (the paper's X_1..X_4 order).
  for (int r = 0; r < num_regions; ++r) {
    Box sub{box_.lower, box_.upper};
    int rest = r;
    for (int j = d - 1; j >= 0; --j) {
      const int k = rest % cuts_[j];
      rest /= cuts_[j];
      const double w = (box_.upper(j) - box_.lower(j)) / cuts_[j];
      sub.lower(j) = box_.lower(j) + k * w;
      sub.upper(j) = k + 1 == cuts_[j] ? box_.upper(j) : box_.lower(j) + (k + 1) * w;
    }
    regions_.push_back(std::move(sub));
  }
}

int Partition::region_of(const Eigen::Ref<const Eigen::VectorXd>& x) const {
  int index = 0;
  for (int j = 0; j < box_.dim(); ++j) {
    const double u = (x(j) - box_.lower(j)) / (box_.upper(j) - box_.lower(j));
    int k = static_cast<int>(std::floor(u * cuts_[j]));
    k = std::clamp(k, 0, cuts_[j] - 1);  // the upper boundary belongs to the last cell
    index = index * cuts_[j] + k;
  }
  return index;
}

std::vector<int> Partition::regions_of(const Eigen::Ref<const Eigen::MatrixXd>& X) const {
  std::vector<int> out(X.rows());
  for (Eigen::Index i = 0; i < X.rows(); ++i) out[i] = region_of(X.row(i).transpose());
  return out;
}

}  // namespace fedsim
