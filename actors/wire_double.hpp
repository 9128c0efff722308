#pragma once
/// Doubles in messages cross a process boundary bit for bit. CAF 0.17's binary serializer (the
/// one its network layer, BASP, uses) packs a double with its own IEEE-754 routine, which loses
/// the sign of -0 and subnormals, mangles NaN (an unknown f or regret) and never returns on an
/// infinity: a message holding one would hang its sender. Every double field of a message is
/// therefore inspected through `wire(...)`: serializers and deserializers see its 64 bits as an
/// integer (little-endian in fedsim's checkpoint serializer, the same bytes as its doubles, so
/// checkpoints are unchanged); anything else (to_string) sees the number.
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include <caf/deserializer.hpp>
#include <caf/meta/load_callback.hpp>
#include <caf/serializer.hpp>

namespace fedsim::actors {

template <class Inspector>
constexpr bool is_binary_inspector = std::is_base_of<caf::serializer, Inspector>::value ||
                                     std::is_base_of<caf::deserializer, Inspector>::value;

/// One double field, by reference.
struct wire_double {
  double* value;
};

/// A vector of doubles, by reference.
struct wire_doubles {
  std::vector<double>* values;
};

inline wire_double wire(double& x) { return {&x}; }
inline wire_doubles wire(std::vector<double>& x) { return {&x}; }

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, wire_double& x) {
  if constexpr (is_binary_inspector<Inspector>) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, x.value, sizeof bits);
    return f(bits, caf::meta::load_callback([&]() -> caf::error {
               std::memcpy(x.value, &bits, sizeof bits);
               return caf::none;
             }));
  } else {
    return f(*x.value);
  }
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, wire_doubles& x) {
  if constexpr (is_binary_inspector<Inspector>) {
    std::vector<std::uint64_t> bits;
    if constexpr (Inspector::reads_state) {
      bits.resize(x.values->size());
      if (!bits.empty()) std::memcpy(bits.data(), x.values->data(), bits.size() * sizeof(double));
    }
    return f(bits, caf::meta::load_callback([&]() -> caf::error {
               x.values->resize(bits.size());
               if (!bits.empty())
                 std::memcpy(x.values->data(), bits.data(), bits.size() * sizeof(double));
               return caf::none;
             }));
  } else {
    return f(*x.values);
  }
}

}  // namespace fedsim::actors
