// The IDX reader (data/idx) on small handmade files, plain and gzip-compressed, and on every
// way such a file can be wrong; the data sets of Debian's packages (data/datasets).
#include <catch2/catch.hpp>

#include <cstdint>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <zlib.h>

#include "data/datasets.hpp"
#include "data/idx.hpp"
#include "tests/test_files.hpp"

using namespace fedsim::data;
namespace fs = std::filesystem;

namespace {

std::vector<unsigned char> idx_bytes(std::vector<std::uint32_t> dims,
                                     const std::vector<unsigned char>& values,
                                     unsigned char type = 0x08) {
  std::vector<unsigned char> b = {0, 0, type, static_cast<unsigned char>(dims.size())};
  for (std::uint32_t d : dims)
    for (int s = 24; s >= 0; s -= 8) b.push_back(static_cast<unsigned char>(d >> s));
  b.insert(b.end(), values.begin(), values.end());
  return b;
}

std::string write_plain(const std::string& name, const std::vector<unsigned char>& bytes) {
  const fs::path dir = fedsim::test::fresh_dir("idx-" + name);
  fs::create_directories(dir);
  const fs::path p = dir / name;
  std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                           static_cast<std::streamsize>(bytes.size()));
  return p.string();
}

std::string write_gz(const std::string& name, const std::vector<unsigned char>& bytes) {
  const fs::path dir = fedsim::test::fresh_dir("idx-gz-" + name);
  fs::create_directories(dir);
  const fs::path p = dir / name;
  gzFile f = gzopen(p.string().c_str(), "wb");
  REQUIRE(f);
  gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size()));
  gzclose(f);
  return p.string();
}

}  // namespace

TEST_CASE("read_idx: a handmade 3 x 2 x 2 file, plain and gzip-compressed", "[data][idx]") {
  std::vector<unsigned char> values(12);
  for (int i = 0; i < 12; ++i) values[i] = static_cast<unsigned char>(20 * i);
  const auto bytes = idx_bytes({3, 2, 2}, values);
  for (const std::string& path : {write_plain("a.idx", bytes), write_gz("a.idx.gz", bytes)}) {
    const IdxArray a = read_idx(path);
    CHECK(a.dims == std::vector<std::uint32_t>{3, 2, 2});
    CHECK(a.item_size() == 4);
    CHECK(a.values == values);
  }
  const IdxArray labels = read_idx(write_plain("l.idx", idx_bytes({4}, {7, 0, 9, 3})));
  CHECK(labels.item_size() == 1);
  CHECK(labels.values == std::vector<std::uint8_t>{7, 0, 9, 3});
}

TEST_CASE("read_idx: malformed files are errors naming the file and the fault", "[data][idx]") {
  CHECK_THROWS_WITH(read_idx("/nonexistent/x.idx"), Catch::Contains("cannot be opened"));
  CHECK_THROWS_WITH(read_idx(write_plain("short", {0, 0})), Catch::Contains("cut short"));
  CHECK_THROWS_WITH(read_idx(write_plain("magic", {1, 2, 8, 1, 0, 0, 0, 1, 5})),
                    Catch::Contains("not an IDX file"));
  CHECK_THROWS_WITH(read_idx(write_plain("float", idx_bytes({1}, {0, 0, 0, 0}, 0x0D))),
                    Catch::Contains("only unsigned bytes"));
  CHECK_THROWS_WITH(read_idx(write_plain("dims0", {0, 0, 8, 0})), Catch::Contains("dimensions"));
  CHECK_THROWS_WITH(read_idx(write_plain("empty-dim", idx_bytes({0}, {}))),
                    Catch::Contains("an empty dimension"));
  // Truncated values: the sizes promise 6, the file holds 5.
  const std::string truncated = write_plain("trunc", idx_bytes({2, 3}, {1, 2, 3, 4, 5}));
  CHECK_THROWS_WITH(read_idx(truncated), Catch::Contains("the values is cut short after 5 of 6"));
  CHECK_THROWS_WITH(read_idx(truncated), Catch::Contains(truncated));
  // Sizes beyond the cap are refused before anything is allocated.
  CHECK_THROWS_WITH(read_idx(write_plain("huge", idx_bytes({65536, 65536, 65536}, {}))),
                    Catch::Contains("more than"));
}

TEST_CASE("data sets from Debian's packages: sizes, labels, and a missing file named with its "
          "package",
          "[data][datasets]") {
  const Dataset digits = load_dataset("digits");
  CHECK(digits.size() == 1797);
  CHECK(digits.features() == 64);
  CHECK(digits.classes == 10);
  CHECK(std::set<int>(digits.y.begin(), digits.y.end()).size() == 10);
  CHECK(digits.y[0] == 0);  // the first row of digits.csv.gz is a zero
  CHECK(digits.x.maxCoeff() == 16.0f);
  const Dataset cancer = load_dataset("breast-cancer");
  CHECK(cancer.size() == 569);
  CHECK(cancer.features() == 30);
  CHECK(std::count(cancer.y.begin(), cancer.y.end(), 0) == 212);  // malignant
  CHECK(cancer.x(0, 0) == Approx(17.99f));
  const Dataset fashion = load_dataset("fashion-mnist", {}, 1000);
  CHECK(fashion.size() == 1000);
  CHECK(fashion.features() == 784);
  CHECK(fashion.x.minCoeff() >= 0.0f);
  CHECK(fashion.x.maxCoeff() <= 1.0f);
  CHECK(fashion.y[0] == 9);  // Fashion-MNIST's first training image is an ankle boot
  CHECK_THROWS_WITH(load_dataset("fashion-mnist", {"/nonexistent"}),
                    Catch::Contains("comes with Debian's package dataset-fashion-mnist"));
  CHECK_THROWS_WITH(load_dataset("digits", {"/nonexistent"}),
                    Catch::Contains("python3-sklearn"));
  CHECK_THROWS_WITH(load_dataset("mnist"), Catch::Contains("known fashion-mnist, digits"));
}
