#pragma once
/// Saving and restoring an actor's state for a checkpoint with one list of its fields:
///   save_state(ctx, [&](auto& a) { a(s.round, s.kept, s.members); })
///   load_state(ctx, bytes, "server", [&](auto& a) { a(s.round, s.kept, s.members); })
/// The same lambda serves both directions, so the two can never list different fields.
/// A field may be anything ExactSerializer takes (numbers, strings, structs with a CAF
/// `inspect`, caf::message), a std::optional, std::pair or std::vector of fields, an Eigen vector or
/// matrix, or a type with a `fields(archive, x)` overload found by argument-dependent lookup
/// (for types whose members are themselves such fields).
#include <climits>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <Eigen/Dense>

#include <caf/error.hpp>
#include <caf/result.hpp>
#include <caf/sec.hpp>

#include "actors/checkpoint/exact_serializer.hpp"
#include "engine/rng.hpp"

namespace fedsim {
/// A random stream's position (engine/rng.hpp) as checkpoint fields.
template <class Archive>
void fields(Archive& a, RandomStream::State& s) {
  a(s.key, s.s[0], s.s[1], s.s[2], s.s[3], s.spare_normal, s.has_spare);
}
}  // namespace fedsim

namespace fedsim::actors {

namespace detail {
template <class A, class T, class = void>
struct has_fields : std::false_type {};
template <class A, class T>
struct has_fields<A, T, std::void_t<decltype(fields(std::declval<A&>(), std::declval<T&>()))>>
    : std::true_type {};
}  // namespace detail

template <class Processor>
class StateArchive {
 public:
  /// True when reading a checkpoint back (the fields are written to).
  static constexpr bool loading = Processor::writes_state;

  explicit StateArchive(Processor& p) : p_(p) {}

  template <class... Ts>
  void operator()(Ts&... xs) {
    (io(xs), ...);
  }

 private:
  void check(const caf::error& e) {
    if (e) throw std::runtime_error("checkpoint: cannot " + std::string(loading ? "read" : "write") +
                                    " a state (" + caf::to_string(e) + ")");
  }

  template <class T>
  void io(T& x) {
    if constexpr (detail::has_fields<StateArchive, T>::value) fields(*this, x);
    else check(p_(x));
  }

  template <class T>
  void io(std::optional<T>& x) {
    bool has = x.has_value();
    io(has);
    if (!has) {
      x.reset();
      return;
    }
    if (!x) x.emplace();
    io(*x);
  }

  template <class T>
  void io(std::vector<T>& v) {
    std::uint64_t n = v.size();
    io(n);
    if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
      // Numbers in one block, little-endian as ExactSerializer writes each (the bytes of a
      // double are its bits): a checkpoint of megabytes costs one copy, not a call per value.
      static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "checkpoints assume little-endian");
      if constexpr (loading) {
        if (n > p_.remaining() / sizeof(T)) check(caf::make_error(caf::sec::end_of_stream));
        v.resize(static_cast<std::size_t>(n));
      }
      if (n > 0) check(p_.apply_raw(static_cast<std::size_t>(n) * sizeof(T), v.data()));
      return;
    }
    if constexpr (loading) {
      v.clear();
      for (std::uint64_t k = 0; k < n; ++k) {
        T x{};
        io(x);
        v.push_back(std::move(x));
      }
    } else {
      for (T& x : v) io(x);
    }
  }

  template <class A, class B>
  void io(std::pair<A, B>& p) {
    io(p.first);
    io(p.second);
  }

  void io(std::vector<bool>& v) {
    std::vector<std::uint8_t> bytes(v.begin(), v.end());
    io(bytes);
    if constexpr (loading) v.assign(bytes.begin(), bytes.end());
  }

  template <int Rows, int Cols>
  void io(Eigen::Matrix<double, Rows, Cols>& m) {
    std::int64_t rows = m.rows(), cols = m.cols();
    io(rows);
    io(cols);
    std::vector<double> data(m.data(), m.data() + m.size());
    io(data);
    if constexpr (loading) {
      // rows x cols without overflow (a product that wraps could match any size), and the
      // fixed dimension of a vector as it is (Eigen only asserts it).
      const std::uint64_t n = data.size();
      const bool fits = rows >= 0 && cols >= 0 && rows <= INT32_MAX && cols <= INT32_MAX &&
                        static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(cols) == n &&
                        (Rows == Eigen::Dynamic || rows == Rows) && (Cols == Eigen::Dynamic || cols == Cols);
      if (!fits) throw std::runtime_error("checkpoint: a matrix's size does not match its data");
      m = Eigen::Map<const Eigen::Matrix<double, Rows, Cols>>(data.data(), rows, cols);
    }
  }

  Processor& p_;
};

/// The bytes of the fields `list(archive)` names. ctx: the actor's context (needed for
/// caf::message fields), or nullptr.
template <class List>
std::vector<char> save_state(caf::execution_unit* ctx, List&& list) {
  std::vector<char> out;
  ExactSerializer sink(ctx, out);
  StateArchive<ExactSerializer> archive(sink);
  list(archive);
  return out;
}

/// Reads the fields back from bytes save_state wrote; throws std::runtime_error naming `who`
/// when the bytes are short or longer than the fields, or the list throws.
template <class List>
void load_state(caf::execution_unit* ctx, const std::vector<char>& bytes, const std::string& who,
                List&& list) {
  ExactDeserializer source(ctx, bytes);
  StateArchive<ExactDeserializer> archive(source);
  try {
    list(archive);
  } catch (const std::exception& e) {  // a field that does not decode, or breaks an invariant
    throw std::runtime_error(who + ": " + e.what());
  }
  if (source.remaining() != 0)
    throw std::runtime_error(who + ": checkpoint state has " + std::to_string(source.remaining()) +
                             " bytes more than its fields");
}

/// load_state for an actor's (restore_atom, bytes) handler: ok, or an error whose text names
/// `who` and what is wrong (describe_failure, actors/failure.hpp), which the driver turns into
/// CheckpointRefused. The loading lambda decodes the fields and checks them (sizes, ranges,
/// counts, orderings against the scenario), throwing on anything a run could not go on from.
template <class List>
caf::result<caf::ok_atom> restore_state(caf::execution_unit* ctx, const std::vector<char>& bytes,
                                        const std::string& who, List&& list) {
  try {
    load_state(ctx, bytes, who, std::forward<List>(list));
    return caf::ok_atom_v;
  } catch (const std::exception& e) {
    return caf::make_error(caf::sec::runtime_error, std::string(e.what()));
  }
}

}  // namespace fedsim::actors
