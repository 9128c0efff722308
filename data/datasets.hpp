#pragma once
/// The real data sets fedsim tunes hyperparameters on (issue 14), read from what Debian's
/// packages install:
/// - "fashion-mnist": Zalando's Fashion-MNIST, 60000 training images of 28 x 28 pixels in 10
///   classes (package dataset-fashion-mnist, /usr/share/datasets/fashion-mnist/*.gz; IDX files);
/// - "digits": the UCI 8 x 8 handwritten digits, 1797 samples, 64 features, 10 classes;
/// - "breast-cancer": the Wisconsin diagnostic breast-cancer set, 569 samples, 30 features, 2
///   classes (0 malignant, 1 benign);
/// the last two from python3-sklearn's bundled CSV files
/// (/usr/lib/python3/dist-packages/sklearn/datasets/data/). A missing file is an error naming
/// the package that ships it.
#include <string>
#include <vector>

#include "engine/data/dataset.hpp"

namespace fedsim::data {

/// The names load_dataset knows, in a stable order.
const std::vector<std::string>& dataset_names();

/// What a data set holds, known without reading it (so a scenario can be checked before a
/// run): its samples, classes and features. std::invalid_argument for an unknown name.
struct DatasetShape {
  int samples = 0;
  int classes = 0;
  int features = 0;
};
DatasetShape dataset_shape(const std::string& name);

/// Where the files are looked for: Debian's folders unless `dir` is given (then every file is
/// looked for in it, for tests and other installs).
struct DataLocation {
  std::string dir;  ///< empty: the package's own folder
};

/// Loads a data set by name. max_samples > 0 keeps the first max_samples samples (Fashion-MNIST
/// in full is 60000 x 784). Throws std::invalid_argument on an unknown name (listing the known
/// ones), std::runtime_error naming the file and the Debian package when a file is missing, and
/// naming the file and line when one is malformed.
Dataset load_dataset(const std::string& name, const DataLocation& where = {},
                     int max_samples = 0);

/// load_dataset(name, where, max_samples).y, without keeping the features (Fashion-MNIST's
/// images are not read): for the scenario loader, which draws a run's split from the labels
/// alone to refuse one that cannot be drawn. The same errors as load_dataset.
std::vector<int> load_labels(const std::string& name, const DataLocation& where = {},
                             int max_samples = 0);

}  // namespace fedsim::data
