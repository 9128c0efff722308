#pragma once
/// The IDX format of MNIST and Fashion-MNIST (http://yann.lecun.com/exdb/mnist/): a 4-byte
/// magic (0, 0, type, number of dimensions), big-endian 32-bit sizes, then the values in row-major
/// order. Unsigned bytes (type 0x08) only, the type every MNIST-family file uses. The file may
/// be gzip-compressed (as Debian ships it) or plain: zlib reads both.
#include <cstdint>
#include <string>
#include <vector>

namespace fedsim::data {

struct IdxArray {
  std::vector<std::uint32_t> dims;   ///< e.g. {60000, 28, 28}
  std::vector<std::uint8_t> values;  ///< product(dims) bytes, row-major
  /// Values per item: the product of every dimension but the first (1 for labels).
  std::size_t item_size() const;
};

/// Reads an IDX file. Throws std::runtime_error naming the file on a missing or unreadable file,
/// a bad magic, a type other than unsigned byte, sizes over max_values, or fewer values than the
/// sizes announce (a truncated file).
IdxArray read_idx(const std::string& path, std::size_t max_values = std::size_t{1} << 31);

}  // namespace fedsim::data
