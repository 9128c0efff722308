#pragma once
/// A record's CSV file from its declaration (records.hpp): the header, a row, and a row read
/// back by column name (the replay of a finished run, tests). Only the fields marked in_file.
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "actors/csv_writer.hpp"
#include "actors/records.hpp"

namespace fedsim::actors {

/// A CSV cell or header that is not as the record declares it (the caller adds file and line).
struct RecordError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// R's columns: its in_file fields in order, a numbers field as `width` columns name0 .. .
template <class R>
std::vector<std::string> csv_header(int width = 0) {
  std::vector<std::string> columns;
  for_each_field<R>([&](const auto& field) {
    if (!field.in(in_file)) return;
    if (field.kind == FieldKind::numbers)
      for (int j = 0; j < width; ++j) columns.push_back(field.name + std::to_string(j));
    else
      columns.emplace_back(field.name);
  });
  return columns;
}

/// Writes x as one row of csv (opened with csv_header<R>(width); numbers fields of that width).
template <class R>
void write_csv_row(CsvWriter& csv, const R& x) {
  csv.begin_row();
  for_each_field<R>([&](const auto& field) {
    if (!field.in(in_file)) return;
    const auto& v = x.*(field.member);
    using T = std::decay_t<decltype(v)>;
    if constexpr (std::is_same_v<T, std::vector<double>>) {
      for (double e : v) csv.cells(e);
    } else if constexpr (std::is_same_v<T, std::int32_t>) {
      if (field.kind == FieldKind::label) {
        if (v < 0 || v >= field.label_count)
          throw std::logic_error(std::string(field.name) + ": no label for " + std::to_string(v));
        csv.cells(field.labels[v]);
      } else {
        csv.cells(v);
      }
    } else if constexpr (std::is_same_v<T, node_id>) {
      csv.cells(field.kind == FieldKind::node ? json_node(v) : static_cast<long long>(v));
    } else {
      csv.cells(v);
    }
  });
  csv.end_row();
}

/// Reads rows of R from a CSV file's cells, by column name; fields not in the file (and those
/// not marked in_file) keep their defaults.
template <class R>
class CsvRecordReader {
 public:
  /// Throws RecordError naming a column R needs that the header lacks.
  explicit CsvRecordReader(const std::vector<std::string>& header) {
    for_each_field<R>([&](const auto& field) {
      std::vector<std::size_t> cols;
      if (field.in(in_file)) {
        if (field.kind == FieldKind::numbers) {
          for (int j = 0;; ++j) {
            const auto c = find(header, field.name + std::to_string(j));
            if (c == npos) break;
            cols.push_back(c);
          }
        } else {
          const auto c = find(header, field.name);
          if (c == npos) throw RecordError("no column '" + std::string(field.name) + "'");
          cols.push_back(c);
        }
      }
      columns_.push_back(std::move(cols));
    });
  }

  /// One row; throws RecordError naming the column of a cell that is not a value of its field.
  R read(const std::vector<std::string>& cells) const {
    R x;
    std::size_t k = 0;
    for_each_field<R>([&](const auto& field) {
      const auto& cols = columns_[k++];
      if (cols.empty()) return;
      auto& v = x.*(field.member);
      using T = std::decay_t<decltype(v)>;
      const std::string& cell = cells.at(cols.front());
      if constexpr (std::is_same_v<T, std::vector<double>>) {
        v.clear();
        for (std::size_t c : cols) v.push_back(number(field.name, cells.at(c)));
      } else if constexpr (std::is_same_v<T, double>) {
        v = number(field.name, cell);
      } else if constexpr (std::is_same_v<T, bool>) {
        v = integer<int>(field.name, cell, 0, 1) != 0;
      } else if constexpr (std::is_same_v<T, std::string>) {
        v = cell;
      } else if constexpr (std::is_same_v<T, node_id>) {
        v = node_from_json(integer<long long>(field.name, cell, -2, std::numeric_limits<std::int32_t>::max()));
      } else {
        if (field.kind == FieldKind::label) {
          for (int j = 0; j < field.label_count; ++j)
            if (cell == field.labels[j]) return void(v = static_cast<T>(j));
          std::string names;
          for (int j = 0; j < field.label_count; ++j) names += (j ? ", " : "") + std::string(field.labels[j]);
          throw RecordError("column '" + std::string(field.name) + "': '" + cell + "' is not one of " + names);
        }
        const T lo = field.kind == FieldKind::count ? T{0} : std::numeric_limits<T>::min();
        v = integer<T>(field.name, cell, lo, std::numeric_limits<T>::max());
      }
    });
    return x;
  }

 private:
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);
  static std::size_t find(const std::vector<std::string>& header, const std::string& name) {
    for (std::size_t c = 0; c < header.size(); ++c)
      if (header[c] == name) return c;
    return npos;
  }
  /// A number; empty, "nan", "inf" and the like as the files write them.
  static double number(const char* column, const std::string& cell) {
    if (cell.empty()) return std::numeric_limits<double>::quiet_NaN();
    char* end = nullptr;
    const double v = std::strtod(cell.c_str(), &end);
    if (end == cell.c_str() || *end != '\0')
      throw RecordError("column '" + std::string(column) + "': '" + cell + "' is not a number");
    return v;
  }
  template <class T>
  static T integer(const char* column, const std::string& cell, T lo, T hi) {
    T v{};
    const auto [ptr, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), v);
    if (cell.empty() || ec != std::errc() || ptr != cell.data() + cell.size() || v < lo || v > hi)
      throw RecordError("column '" + std::string(column) + "': '" + cell + "' is not an integer in [" +
                        std::to_string(lo) + ", " + std::to_string(hi) + "]");
    return v;
  }
  std::vector<std::vector<std::size_t>> columns_;  ///< per field, its columns (none: not read)
};

}  // namespace fedsim::actors
