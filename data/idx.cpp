#include "data/idx.hpp"

#include <stdexcept>

#include <zlib.h>

namespace fedsim::data {

namespace {

/// A gzFile closed on every path out.
struct GzFile {
  gzFile f;
  explicit GzFile(const std::string& path) : f(gzopen(path.c_str(), "rb")) {}
  ~GzFile() {
    if (f) gzclose(f);
  }
  GzFile(const GzFile&) = delete;
  GzFile& operator=(const GzFile&) = delete;
};

/// Reads exactly n bytes, or throws naming the file and what was being read.
void read_exactly(gzFile f, void* out, std::size_t n, const std::string& path, const char* what) {
  std::size_t done = 0;
  auto* p = static_cast<unsigned char*>(out);
  while (done < n) {
    const unsigned chunk = static_cast<unsigned>(std::min<std::size_t>(n - done, 1u << 30));
    const int got = gzread(f, p + done, chunk);
    if (got <= 0) {
      int code = 0;
      const char* message = gzerror(f, &code);
      throw std::runtime_error(path + ": " + what + " is cut short after " + std::to_string(done) +
                               " of " + std::to_string(n) + " bytes" +
                               (code < 0 && message ? std::string(" (") + message + ")" : ""));
    }
    done += static_cast<std::size_t>(got);
  }
}

}  // namespace

std::size_t IdxArray::item_size() const {
  std::size_t n = 1;
  for (std::size_t k = 1; k < dims.size(); ++k) n *= dims[k];
  return n;
}

IdxArray read_idx(const std::string& path, std::size_t max_values) {
  GzFile file(path);
  if (!file.f) throw std::runtime_error(path + ": cannot be opened");
  unsigned char magic[4];
  read_exactly(file.f, magic, 4, path, "the magic number");
  if (magic[0] != 0 || magic[1] != 0)
    throw std::runtime_error(path + ": not an IDX file (its first two bytes are not zero)");
  if (magic[2] != 0x08)
    throw std::runtime_error(path + ": IDX values of type " + std::to_string(magic[2]) +
                             "; only unsigned bytes (type 8) are read");
  if (magic[3] < 1 || magic[3] > 4)
    throw std::runtime_error(path + ": IDX with " + std::to_string(magic[3]) +
                             " dimensions; 1 to 4 are read");
  IdxArray a;
  std::size_t total = 1;
  for (int k = 0; k < magic[3]; ++k) {
    unsigned char b[4];
    read_exactly(file.f, b, 4, path, "a dimension size");
    const std::uint32_t d = (std::uint32_t{b[0]} << 24) | (std::uint32_t{b[1]} << 16) |
                            (std::uint32_t{b[2]} << 8) | std::uint32_t{b[3]};
    if (d == 0 || total > max_values / d)
      throw std::runtime_error(path + ": IDX sizes announce " +
                               (d == 0 ? std::string("an empty dimension")
                                       : "more than " + std::to_string(max_values) + " values"));
    total *= d;
    a.dims.push_back(d);
  }
  a.values.resize(total);
  read_exactly(file.f, a.values.data(), total, path, "the values");
  return a;
}

}  // namespace fedsim::data
