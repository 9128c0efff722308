#pragma once
/// Rows sorted by a key on disk rather than in memory: the recorder's bounded buffer. Rows are
/// kept in memory up to `max_rows`; then that chunk is sorted and written to a spill file in
/// the output folder (each row serialised with its CAF inspect, length-prefixed). drain()
/// merges the spilled chunks and the rows still in memory in key order, reading one row per
/// chunk at a time, so a run's memory for its records is bounded by max_rows (plus one row per
/// chunk) however long it runs. The key must be a total order (no two rows equal), so the
/// result never depends on the order rows arrived in.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <queue>
#include <stdexcept>
#include <string>
#include <vector>

#include "actors/checkpoint/exact_serializer.hpp"

namespace fedsim::actors {

template <class T, class Less>
class SpillSorter {
 public:
  /// Keeps at most max_rows rows in memory; spill files are `folder/.STEM.spill.K` (see
  /// spill_to), removed by drain() and by the destructor.
  SpillSorter(std::size_t max_rows, Less less) : max_rows_(std::max<std::size_t>(1, max_rows)), less_(less) {}
  SpillSorter(const SpillSorter&) = delete;
  SpillSorter& operator=(const SpillSorter&) = delete;
  SpillSorter(SpillSorter&&) = default;
  SpillSorter& operator=(SpillSorter&&) = default;
  ~SpillSorter() { remove_spills(); }

  /// Where spill files go and their stem: must be set before the first spill.
  void spill_to(std::filesystem::path folder, std::string stem) {
    folder_ = std::move(folder);
    stem_ = std::move(stem);
  }

  void push(T row) {
    ++total_;
    rows_.push_back(std::move(row));
    if (rows_.size() >= max_rows_) spill();
  }

  std::size_t size() const { return total_; }

  /// Checkpoints (actors/checkpoint/checkpoint.hpp). The rows still in memory (unsorted).
  const std::vector<T>& rows_in_memory() const { return rows_; }
  /// Puts every spill file into `folder` under its own name (a hard link: spill files never
  /// change once written; a copy where links fail) and returns the names, in order.
  std::vector<std::string> link_spills_into(const std::filesystem::path& folder) const {
    std::vector<std::string> names;
    for (const auto& f : files_) {
      names.push_back(f.filename().string());
      link_or_copy(f, folder / f.filename());
    }
    return names;
  }
  /// Takes a saved state back: `rows` in memory, the spill files `names` (linked from
  /// `folder` into this sorter's spill folder, which must be set) and the count of all rows.
  void restore(std::vector<T> rows, const std::vector<std::string>& names,
               const std::filesystem::path& folder, std::size_t total) {
    remove_spills();
    if (names.size() > total || rows.size() > total)
      throw std::runtime_error("recorder: checkpoint counts " + std::to_string(total) +
                               " rows, fewer than its spill files and rows in memory");
    for (const auto& name : names) {
      // The names spill() gives, in order: nothing else is taken from the checkpoint folder.
      if (name != "." + stem_ + ".spill." + std::to_string(files_.size()))
        throw std::runtime_error("recorder: checkpoint names a bad spill file '" + name + "'");
      const auto target = folder_ / name;
      std::filesystem::create_directories(folder_);
      link_or_copy(folder / name, target);
      files_.push_back(target);
    }
    rows_ = std::move(rows);
    total_ = total;
  }
  std::size_t spilled_chunks() const { return files_.size(); }
  std::size_t in_memory() const { return rows_.size(); }

  /// Calls f(row) for every row in key order, then forgets them all.
  template <class F>
  void drain(F&& f) {
    std::sort(rows_.begin(), rows_.end(), less_);
    if (files_.empty()) {
      for (const T& r : rows_) f(r);
      clear();
      return;
    }
    struct Source {
      std::unique_ptr<std::ifstream> in;  ///< null: the rows in memory
      std::size_t next = 0;               ///< the rows in memory: the next index
      T head;
    };
    std::vector<Source> sources;
    for (const auto& file : files_) {
      Source s;
      s.in = std::make_unique<std::ifstream>(file, std::ios::binary);
      if (!*s.in) throw std::runtime_error("recorder: cannot read back " + file.string());
      if (read_row(*s.in, s.head)) sources.push_back(std::move(s));
    }
    if (!rows_.empty()) {
      Source s;
      s.head = rows_[0];
      s.next = 1;
      sources.push_back(std::move(s));
    }
    auto later = [this, &sources](std::size_t a, std::size_t b) {
      return less_(sources[b].head, sources[a].head);
    };
    std::priority_queue<std::size_t, std::vector<std::size_t>, decltype(later)> heap(later);
    for (std::size_t k = 0; k < sources.size(); ++k) heap.push(k);
    while (!heap.empty()) {
      const std::size_t k = heap.top();
      heap.pop();
      Source& s = sources[k];
      f(s.head);
      bool more;
      if (s.in) {
        more = read_row(*s.in, s.head);
      } else {
        more = s.next < rows_.size();
        if (more) s.head = rows_[s.next++];
      }
      if (more) heap.push(k);
    }
    clear();
  }

 private:
  void clear() {
    rows_.clear();
    rows_.shrink_to_fit();
    remove_spills();
    total_ = 0;
  }

  void remove_spills() {
    std::error_code ec;
    for (const auto& f : files_) std::filesystem::remove(f, ec);
    files_.clear();
  }

  void spill() {
    if (folder_.empty()) return;  // nowhere to spill: keep the rows in memory
    std::sort(rows_.begin(), rows_.end(), less_);
    std::filesystem::create_directories(folder_);
    const auto file = folder_ / ("." + stem_ + ".spill." + std::to_string(files_.size()));
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    std::vector<char> buf;
    for (T& r : rows_) {
      buf.clear();
      ExactSerializer sink{nullptr, buf};
      if (auto err = sink(r)) throw std::runtime_error("recorder: cannot serialise a row");
      const auto n = static_cast<std::uint32_t>(buf.size());
      out.write(reinterpret_cast<const char*>(&n), sizeof n);
      out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
    }
    out.flush();
    if (!out) throw std::runtime_error("recorder: cannot write " + file.string());
    files_.push_back(file);
    rows_.clear();
  }

  static void link_or_copy(const std::filesystem::path& from, const std::filesystem::path& to) {
    std::error_code ec;
    std::filesystem::remove(to, ec);
    std::filesystem::create_hard_link(from, to, ec);
    if (ec) std::filesystem::copy_file(from, to, std::filesystem::copy_options::overwrite_existing);
  }

  static bool read_row(std::ifstream& in, T& row) {
    std::uint32_t n = 0;
    if (!in.read(reinterpret_cast<char*>(&n), sizeof n)) return false;
    std::vector<char> buf(n);
    if (!in.read(buf.data(), n)) throw std::runtime_error("recorder: a spill file ends early");
    ExactDeserializer source{nullptr, buf};
    if (auto err = source(row)) throw std::runtime_error("recorder: cannot read a spilled row");
    return true;
  }

  std::size_t max_rows_;
  Less less_;
  std::vector<T> rows_;
  std::vector<std::filesystem::path> files_;
  std::filesystem::path folder_;
  std::string stem_;
  std::size_t total_ = 0;
};

}  // namespace fedsim::actors
