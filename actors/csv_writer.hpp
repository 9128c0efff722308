#pragma once
/// Writing run outputs that pandas reads directly: CSV with a header row, numbers in a
/// fixed round-trip format so the same run gives byte-identical files.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace fedsim::actors {

class CsvWriter {
 public:
  CsvWriter(const std::filesystem::path& file, std::initializer_list<const char*> header)
      : out_(file) {
    if (!out_) throw std::runtime_error("cannot write " + file.string());
    bool first = true;
    for (const char* h : header) {
      out_ << (first ? "" : ",") << h;
      first = false;
    }
    out_ << '\n';
  }

  CsvWriter(const std::filesystem::path& file, const std::vector<std::string>& header)
      : out_(file) {
    if (!out_) throw std::runtime_error("cannot write " + file.string());
    for (std::size_t k = 0; k < header.size(); ++k) out_ << (k ? "," : "") << header[k];
    out_ << '\n';
  }

  /// A row written in pieces: begin_row(), cells(...) any number of times, end_row().
  void begin_row() { first_ = true; }
  template <class... Values>
  void cells(const Values&... values) {
    ((out_ << (first_ ? "" : ","), write(values), first_ = false), ...);
  }
  void end_row() { out_ << '\n'; }

  template <class... Values>
  void row(const Values&... values) {
    bool first = true;
    ((out_ << (first ? "" : ","), write(values), first = false), ...);
    out_ << '\n';
  }

 private:
  template <class V>
  void write(const V& v) {
    if constexpr (std::is_floating_point_v<V>) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.10g", static_cast<double>(v));
      out_ << buf;
    } else {
      out_ << v;
    }
  }
  std::ofstream out_;
  bool first_ = true;
};

}  // namespace fedsim::actors
