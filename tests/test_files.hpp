#pragma once
/// File helpers shared by tests that write and read run outputs.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

namespace fedsim::test {

/// A file's whole content.
inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// A file's lines, without their newlines.
inline std::vector<std::string> read_lines(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

/// An empty (removed) folder under the temp directory, named fedsim-test-<pid>-<name>: its
/// own per test process, since ctest runs test cases in parallel processes (and several
/// checkouts may test at once). The folders a process made are removed when it exits.
inline std::filesystem::path fresh_dir(const std::string& name) {
  struct Made {
    std::vector<std::filesystem::path> dirs;
    ~Made() {
      std::error_code ec;
      for (const auto& d : dirs) std::filesystem::remove_all(d, ec);
    }
  };
  static Made made;
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("fedsim-test-" + std::to_string(::getpid()) + "-" + name);
  std::filesystem::remove_all(dir);
  made.dirs.push_back(dir);
  return dir;
}

/// The rows of a CSV file without quoted fields (what fedsim writes), header first; a line
/// ending in a comma has an empty last cell.
inline std::vector<std::vector<std::string>> read_rows(const std::filesystem::path& file) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(slurp(file));
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> row;
    std::string cell;
    std::istringstream cells(line);
    while (std::getline(cells, cell, ',')) row.push_back(cell);
    if (!line.empty() && line.back() == ',') row.push_back("");
    rows.push_back(row);
  }
  return rows;
}

/// A CSV's rows without the named columns (the header row included). Throws
/// std::runtime_error when the file has no rows or lacks a named column.
inline std::vector<std::vector<std::string>> without_columns(
    const std::filesystem::path& file, const std::vector<std::string>& columns) {
  auto rows = read_rows(file);
  if (rows.empty()) throw std::runtime_error("no rows in " + file.string());
  std::vector<std::size_t> drop;
  for (const auto& c : columns) {
    std::size_t at = 0;
    while (at < rows[0].size() && rows[0][at] != c) ++at;
    if (at == rows[0].size()) throw std::runtime_error("no column " + c + " in " + file.string());
    drop.push_back(at);
  }
  std::sort(drop.rbegin(), drop.rend());
  for (auto& row : rows)
    for (std::size_t d : drop) row.erase(row.begin() + static_cast<std::ptrdiff_t>(d));
  return rows;
}

/// The data rows of a CSV file as maps from the header's names. Throws std::runtime_error on
/// a row whose cell count differs from the header's.
inline std::vector<std::map<std::string, std::string>> read_table(
    const std::filesystem::path& file) {
  const auto rows = read_rows(file);
  std::vector<std::map<std::string, std::string>> out;
  for (std::size_t r = 1; r < rows.size(); ++r) {
    if (rows[r].size() != rows[0].size())
      throw std::runtime_error(file.string() + ": row " + std::to_string(r) + " has " +
                               std::to_string(rows[r].size()) + " cells, the header " +
                               std::to_string(rows[0].size()));
    std::map<std::string, std::string> row;
    for (std::size_t k = 0; k < rows[r].size(); ++k) row[rows[0][k]] = rows[r][k];
    out.push_back(std::move(row));
  }
  return out;
}

}  // namespace fedsim::test
