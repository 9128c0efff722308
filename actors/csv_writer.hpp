#pragma once
/// Writing run outputs that pandas reads directly: CSV with a header row, numbers in a
/// fixed round-trip format so the same run gives byte-identical files.
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "actors/decimal.hpp"

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
  void begin_row() {
    line_.clear();
    first_ = true;
  }
  template <class... Values>
  void cells(const Values&... values) {
    ((first_ ? void() : void(line_ += ','), write(values), first_ = false), ...);
  }
  void end_row() {
    line_ += '\n';
    out_.write(line_.data(), static_cast<std::streamsize>(line_.size()));
  }

  template <class... Values>
  void row(const Values&... values) {
    begin_row();
    cells(values...);
    end_row();
  }

 private:
  /// A cell: a number (decimal.hpp; a double as "%.10g"), a bool as 0 or 1, or text.
  template <class V>
  void write(const V& v) {
    if constexpr (std::is_floating_point_v<V>) append_g10(line_, static_cast<double>(v));
    else if constexpr (std::is_same_v<V, bool>) line_ += v ? '1' : '0';
    else if constexpr (std::is_integral_v<V>) append_int(line_, v);
    else line_ += v;
  }
  std::ofstream out_;
  std::string line_;  ///< the row being written, put out whole
  bool first_ = true;
};

}  // namespace fedsim::actors
