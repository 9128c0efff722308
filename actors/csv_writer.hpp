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
};

}  // namespace fedsim::actors
