#include "data/datasets.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <stdexcept>

#include <zlib.h>

#include "data/idx.hpp"

namespace fedsim::data {

namespace {

const std::string fashion_dir = "/usr/share/datasets/fashion-mnist";
const std::string sklearn_dir = "/usr/lib/python3/dist-packages/sklearn/datasets/data";

/// The path of `file` in the package's folder (or where.dir), or an error naming the package.
std::string locate(const DataLocation& where, const std::string& package_dir,
                   const std::string& file, const std::string& package, const std::string& name) {
  const std::string path = (where.dir.empty() ? package_dir : where.dir) + "/" + file;
  if (!std::filesystem::exists(path))
    throw std::runtime_error("data set '" + name + "': " + path + " not found; it comes with " +
                             "Debian's package " + package + " (tools/setup installs it)");
  return path;
}

/// Fashion-MNIST's labels file, checked as fashion_mnist checks it.
std::vector<int> fashion_mnist_labels(const DataLocation& where, int max_samples) {
  const IdxArray labels = read_idx(locate(where, fashion_dir, "train-labels-idx1-ubyte.gz",
                                          "dataset-fashion-mnist", "fashion-mnist"));
  if (labels.dims.size() != 1)
    throw std::runtime_error("data set 'fashion-mnist': the label file is not one-dimensional");
  int n = static_cast<int>(labels.dims[0]);
  if (max_samples > 0) n = std::min(n, max_samples);
  std::vector<int> y(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    y[i] = labels.values[i];
    if (y[i] > 9)
      throw std::runtime_error("data set 'fashion-mnist': label " + std::to_string(y[i]) +
                               " of sample " + std::to_string(i) + " is not in 0..9");
  }
  return y;
}

Dataset fashion_mnist(const DataLocation& where, int max_samples) {
  const std::string name = "fashion-mnist";
  const IdxArray images = read_idx(
      locate(where, fashion_dir, "train-images-idx3-ubyte.gz", "dataset-fashion-mnist", name));
  const std::vector<int> labels = fashion_mnist_labels(where, 0);
  if (images.dims.size() < 2 || images.dims[0] != labels.size())
    throw std::runtime_error("data set 'fashion-mnist': the image and label files disagree on "
                             "the number of samples");
  int n = static_cast<int>(labels.size());
  if (max_samples > 0) n = std::min(n, max_samples);
  const auto d = static_cast<Eigen::Index>(images.item_size());
  Dataset out;
  out.name = name;
  out.classes = 10;
  out.x.resize(n, d);
  out.y.assign(labels.begin(), labels.begin() + n);
  for (int i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < d; ++j)
      out.x(i, j) = static_cast<float>(images.values[static_cast<std::size_t>(i) * d + j]) / 255.0f;
  return out;
}

/// Lines of a plain or gzip-compressed text file.
std::vector<std::string> read_lines(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) throw std::runtime_error(path + ": cannot be opened");
  std::vector<std::string> lines;
  std::string line;
  char buf[8192];
  while (gzgets(f, buf, sizeof buf)) {
    line += buf;
    if (!line.empty() && line.back() == '\n') {
      line.pop_back();
      if (!line.empty() && line.back() == '\r') line.pop_back();
      lines.push_back(std::move(line));
      line.clear();
    }
  }
  if (!line.empty()) lines.push_back(line);
  gzclose(f);
  return lines;
}

/// scikit-learn's CSV layout: optional header line, then features..., label per row.
Dataset sklearn_csv(const DataLocation& where, const std::string& name, const std::string& file,
                    bool header, int features, int classes, int max_samples) {
  const std::string path = locate(where, sklearn_dir, file, "python3-sklearn", name);
  const std::vector<std::string> lines = read_lines(path);
  Dataset out;
  out.name = name;
  out.classes = classes;
  std::vector<std::vector<float>> rows;
  for (std::size_t k = header ? 1 : 0; k < lines.size(); ++k) {
    if (lines[k].empty()) continue;
    if (max_samples > 0 && static_cast<int>(out.y.size()) >= max_samples) break;
    std::vector<float> row;
    std::stringstream in(lines[k]);
    std::string cell;
    while (std::getline(in, cell, ',')) {
      char* end = nullptr;
      errno = 0;
      const double v = std::strtod(cell.c_str(), &end);
      if (end == cell.c_str() || *end != '\0' || errno != 0 || !std::isfinite(v))
        throw std::runtime_error(path + ": line " + std::to_string(k + 1) + ": '" + cell +
                                 "' is not a finite number");
      row.push_back(static_cast<float>(v));
    }
    if (static_cast<int>(row.size()) != features + 1)
      throw std::runtime_error(path + ": line " + std::to_string(k + 1) + " has " +
                               std::to_string(row.size()) + " values, expected " +
                               std::to_string(features + 1));
    const float label = row.back();
    if (label != std::floor(label) || label < 0 || label >= static_cast<float>(classes))
      throw std::runtime_error(path + ": line " + std::to_string(k + 1) + ": label " +
                               std::to_string(label) + " is not in 0.." +
                               std::to_string(classes - 1));
    out.y.push_back(static_cast<int>(label));
    row.pop_back();
    rows.push_back(std::move(row));
  }
  out.x.resize(static_cast<Eigen::Index>(rows.size()), features);
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (int j = 0; j < features; ++j) out.x(static_cast<Eigen::Index>(i), j) = rows[i][j];
  if (out.y.empty()) throw std::runtime_error(path + ": no sample");
  return out;
}

}  // namespace

const std::vector<std::string>& dataset_names() {
  static const std::vector<std::string> names = {"fashion-mnist", "digits", "breast-cancer"};
  return names;
}

DatasetShape dataset_shape(const std::string& name) {
  if (name == "fashion-mnist") return {60000, 10, 784};
  if (name == "digits") return {1797, 10, 64};
  if (name == "breast-cancer") return {569, 2, 30};
  throw std::invalid_argument("unknown data set '" + name + "'");
}

Dataset load_dataset(const std::string& name, const DataLocation& where, int max_samples) {
  if (name == "fashion-mnist") return fashion_mnist(where, max_samples);
  if (name == "digits")
    return sklearn_csv(where, name, "digits.csv.gz", false, 64, 10, max_samples);
  if (name == "breast-cancer")
    return sklearn_csv(where, name, "breast_cancer.csv", true, 30, 2, max_samples);
  std::string known;
  for (const auto& n : dataset_names()) known += (known.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown data set '" + name + "': known " + known);
}

std::vector<int> load_labels(const std::string& name, const DataLocation& where,
                             int max_samples) {
  if (name == "fashion-mnist") return fashion_mnist_labels(where, max_samples);
  return load_dataset(name, where, max_samples).y;  // the scikit-learn sets are small
}

}  // namespace fedsim::data
