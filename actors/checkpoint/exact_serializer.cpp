#include "actors/checkpoint/exact_serializer.hpp"

#include <cstring>

#include <caf/error.hpp>
#include <caf/sec.hpp>

namespace fedsim::actors {
namespace {

caf::error truncated() { return caf::make_error(caf::sec::end_of_stream); }

template <class T>
std::uint64_t bits_of(T x) {
  if constexpr (sizeof(T) == 8) {
    std::uint64_t u;
    std::memcpy(&u, &x, 8);
    return u;
  } else {
    std::uint32_t u;
    std::memcpy(&u, &x, 4);
    return u;
  }
}

/// A length read from the input that cannot be real (more than the bytes left) is an error,
/// not an allocation of that size.
caf::error check_length(std::uint64_t length, std::size_t remaining, std::size_t unit) {
  if (length > remaining / unit) return caf::make_error(caf::sec::end_of_stream);
  return caf::none;
}

}  // namespace

// -- ExactSerializer -----------------------------------------------------------------------

ExactSerializer::ExactSerializer(caf::actor_system& sys, std::vector<char>& out)
    : caf::serializer(sys), out_(out) {}
ExactSerializer::ExactSerializer(caf::execution_unit* context, std::vector<char>& out)
    : caf::serializer(context), out_(out) {}

void ExactSerializer::put(std::uint64_t value, int bytes) {
  char le[8];
  for (int k = 0; k < bytes; ++k) le[k] = static_cast<char>((value >> (8 * k)) & 0xFF);
  out_.insert(out_.end(), le, le + bytes);
}

caf::error ExactSerializer::begin_object(std::uint16_t& type, std::string& name) {
  put(type, 2);
  if (type == 0) return apply_impl(name);
  return caf::none;
}
caf::error ExactSerializer::end_object() { return caf::none; }
caf::error ExactSerializer::begin_sequence(std::size_t& size) {
  put(size, 8);
  return caf::none;
}
caf::error ExactSerializer::end_sequence() { return caf::none; }
caf::error ExactSerializer::apply_raw(std::size_t bytes, void* data) {
  const char* p = static_cast<const char*>(data);
  out_.insert(out_.end(), p, p + bytes);
  return caf::none;
}
caf::error ExactSerializer::apply_impl(std::int8_t& x) { put(static_cast<std::uint8_t>(x), 1); return caf::none; }
caf::error ExactSerializer::apply_impl(std::uint8_t& x) { put(x, 1); return caf::none; }
caf::error ExactSerializer::apply_impl(std::int16_t& x) { put(static_cast<std::uint16_t>(x), 2); return caf::none; }
caf::error ExactSerializer::apply_impl(std::uint16_t& x) { put(x, 2); return caf::none; }
caf::error ExactSerializer::apply_impl(std::int32_t& x) { put(static_cast<std::uint32_t>(x), 4); return caf::none; }
caf::error ExactSerializer::apply_impl(std::uint32_t& x) { put(x, 4); return caf::none; }
caf::error ExactSerializer::apply_impl(std::int64_t& x) { put(static_cast<std::uint64_t>(x), 8); return caf::none; }
caf::error ExactSerializer::apply_impl(std::uint64_t& x) { put(x, 8); return caf::none; }
caf::error ExactSerializer::apply_impl(float& x) { put(bits_of(x), 4); return caf::none; }
caf::error ExactSerializer::apply_impl(double& x) { put(bits_of(x), 8); return caf::none; }
caf::error ExactSerializer::apply_impl(long double& x) {
  double d = static_cast<double>(x);  // fedsim has no long double state
  return apply_impl(d);
}
caf::error ExactSerializer::apply_impl(std::string& x) {
  put(x.size(), 8);
  out_.insert(out_.end(), x.begin(), x.end());
  return caf::none;
}
caf::error ExactSerializer::apply_impl(std::u16string& x) {
  put(x.size(), 8);
  for (char16_t c : x) put(static_cast<std::uint16_t>(c), 2);
  return caf::none;
}
caf::error ExactSerializer::apply_impl(std::u32string& x) {
  put(x.size(), 8);
  for (char32_t c : x) put(static_cast<std::uint32_t>(c), 4);
  return caf::none;
}

// -- ExactDeserializer ---------------------------------------------------------------------

ExactDeserializer::ExactDeserializer(caf::actor_system& sys, const std::vector<char>& in)
    : caf::deserializer(sys), in_(in) {}
ExactDeserializer::ExactDeserializer(caf::execution_unit* context, const std::vector<char>& in)
    : caf::deserializer(context), in_(in) {}

caf::error ExactDeserializer::get(std::uint64_t& value, int bytes) {
  if (remaining() < static_cast<std::size_t>(bytes)) return truncated();
  value = 0;
  for (int k = 0; k < bytes; ++k)
    value |= static_cast<std::uint64_t>(static_cast<unsigned char>(in_[pos_ + k])) << (8 * k);
  pos_ += bytes;
  return caf::none;
}

caf::error ExactDeserializer::begin_object(std::uint16_t& type, std::string& name) {
  std::uint64_t v = 0;
  if (auto e = get(v, 2)) return e;
  type = static_cast<std::uint16_t>(v);
  if (type == 0) return apply_impl(name);
  return caf::none;
}
caf::error ExactDeserializer::end_object() { return caf::none; }
caf::error ExactDeserializer::begin_sequence(std::size_t& size) {
  std::uint64_t v = 0;
  if (auto e = get(v, 8)) return e;
  // Every element takes at least one byte except empty structs (none of fedsim's states or
  // messages holds a long sequence of them): a bound that stops a corrupted length from
  // allocating what the input does not pay for (CAF resizes a container to it before reading
  // its elements; a membership's flags asked for 2 GB) while never refusing a real sequence.
  if (v > remaining() && v > 64) return truncated();
  size = static_cast<std::size_t>(v);
  return caf::none;
}
caf::error ExactDeserializer::end_sequence() { return caf::none; }
caf::error ExactDeserializer::apply_raw(std::size_t bytes, void* data) {
  if (remaining() < bytes) return truncated();
  std::memcpy(data, in_.data() + pos_, bytes);
  pos_ += bytes;
  return caf::none;
}

#define FEDSIM_READ_INT(T, N)                             \
  caf::error ExactDeserializer::apply_impl(T& x) {        \
    std::uint64_t v = 0;                                      \
    if (auto e = get(v, N)) return e;                     \
    x = static_cast<T>(v);                                \
    return caf::none;                                     \
  }
FEDSIM_READ_INT(std::int8_t, 1)
FEDSIM_READ_INT(std::uint8_t, 1)
FEDSIM_READ_INT(std::int16_t, 2)
FEDSIM_READ_INT(std::uint16_t, 2)
FEDSIM_READ_INT(std::int32_t, 4)
FEDSIM_READ_INT(std::uint32_t, 4)
FEDSIM_READ_INT(std::int64_t, 8)
FEDSIM_READ_INT(std::uint64_t, 8)
#undef FEDSIM_READ_INT

caf::error ExactDeserializer::apply_impl(float& x) {
  std::uint64_t v = 0;
  if (auto e = get(v, 4)) return e;
  const auto u = static_cast<std::uint32_t>(v);
  std::memcpy(&x, &u, 4);
  return caf::none;
}
caf::error ExactDeserializer::apply_impl(double& x) {
  std::uint64_t v = 0;
  if (auto e = get(v, 8)) return e;
  std::memcpy(&x, &v, 8);
  return caf::none;
}
caf::error ExactDeserializer::apply_impl(long double& x) {
  double d;
  if (auto e = apply_impl(d)) return e;
  x = d;
  return caf::none;
}
caf::error ExactDeserializer::apply_impl(std::string& x) {
  std::uint64_t n = 0;
  if (auto e = get(n, 8)) return e;
  if (auto e = check_length(n, remaining(), 1)) return e;
  x.assign(in_.data() + pos_, static_cast<std::size_t>(n));
  pos_ += static_cast<std::size_t>(n);
  return caf::none;
}
caf::error ExactDeserializer::apply_impl(std::u16string& x) {
  std::uint64_t n = 0;
  if (auto e = get(n, 8)) return e;
  if (auto e = check_length(n, remaining(), 2)) return e;
  x.resize(static_cast<std::size_t>(n));
  for (auto& c : x) {
    std::uint64_t v = 0;
    if (auto e = get(v, 2)) return e;
    c = static_cast<char16_t>(v);
  }
  return caf::none;
}
caf::error ExactDeserializer::apply_impl(std::u32string& x) {
  std::uint64_t n = 0;
  if (auto e = get(n, 8)) return e;
  if (auto e = check_length(n, remaining(), 4)) return e;
  x.resize(static_cast<std::size_t>(n));
  for (auto& c : x) {
    std::uint64_t v = 0;
    if (auto e = get(v, 4)) return e;
    c = static_cast<char32_t>(v);
  }
  return caf::none;
}

}  // namespace fedsim::actors
