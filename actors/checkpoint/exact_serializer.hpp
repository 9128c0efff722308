#pragma once
/// A CAF serializer and deserializer whose numbers round-trip exactly. CAF 0.17's binary
/// serializer packs doubles with its own IEEE-754 routine, which loses the sign of -0 and
/// subnormals, mangles NaN and never returns on an infinity; a checkpoint holds reports a
/// corruption made non-finite, so it needs every double bit for bit. Same interface as CAF's
/// (every type with an `inspect` overload, caf::message included): integers little-endian in
/// fixed width, doubles as their 64 bits, strings and sequences length-prefixed.
#include <cstddef>
#include <string>
#include <vector>

#include <caf/deserializer.hpp>
#include <caf/serializer.hpp>

namespace fedsim::actors {

class ExactSerializer final : public caf::serializer {
 public:
  /// `sys` (or a context) is needed for caf::message and actor handles; nullptr otherwise.
  ExactSerializer(caf::actor_system& sys, std::vector<char>& out);
  ExactSerializer(caf::execution_unit* context, std::vector<char>& out);

  caf::error begin_object(std::uint16_t& type, std::string& name) override;
  caf::error end_object() override;
  caf::error begin_sequence(std::size_t& size) override;
  caf::error end_sequence() override;
  caf::error apply_raw(std::size_t bytes, void* data) override;

 protected:
  caf::error apply_impl(std::int8_t& x) override;
  caf::error apply_impl(std::uint8_t& x) override;
  caf::error apply_impl(std::int16_t& x) override;
  caf::error apply_impl(std::uint16_t& x) override;
  caf::error apply_impl(std::int32_t& x) override;
  caf::error apply_impl(std::uint32_t& x) override;
  caf::error apply_impl(std::int64_t& x) override;
  caf::error apply_impl(std::uint64_t& x) override;
  caf::error apply_impl(float& x) override;
  caf::error apply_impl(double& x) override;
  caf::error apply_impl(long double& x) override;
  caf::error apply_impl(std::string& x) override;
  caf::error apply_impl(std::u16string& x) override;
  caf::error apply_impl(std::u32string& x) override;

 private:
  void put(std::uint64_t value, int bytes);
  std::vector<char>& out_;
};

class ExactDeserializer final : public caf::deserializer {
 public:
  ExactDeserializer(caf::actor_system& sys, const std::vector<char>& in);
  ExactDeserializer(caf::execution_unit* context, const std::vector<char>& in);

  /// Bytes not read yet (a complete load leaves none).
  std::size_t remaining() const { return in_.size() - pos_; }

  caf::error begin_object(std::uint16_t& type, std::string& name) override;
  caf::error end_object() override;
  caf::error begin_sequence(std::size_t& size) override;
  caf::error end_sequence() override;
  caf::error apply_raw(std::size_t bytes, void* data) override;

 protected:
  caf::error apply_impl(std::int8_t& x) override;
  caf::error apply_impl(std::uint8_t& x) override;
  caf::error apply_impl(std::int16_t& x) override;
  caf::error apply_impl(std::uint16_t& x) override;
  caf::error apply_impl(std::int32_t& x) override;
  caf::error apply_impl(std::uint32_t& x) override;
  caf::error apply_impl(std::int64_t& x) override;
  caf::error apply_impl(std::uint64_t& x) override;
  caf::error apply_impl(float& x) override;
  caf::error apply_impl(double& x) override;
  caf::error apply_impl(long double& x) override;
  caf::error apply_impl(std::string& x) override;
  caf::error apply_impl(std::u16string& x) override;
  caf::error apply_impl(std::u32string& x) override;

 private:
  /// Reads `bytes` little-endian bytes; an error past the end.
  caf::error get(std::uint64_t& value, int bytes);
  const std::vector<char>& in_;
  std::size_t pos_ = 0;
};

}  // namespace fedsim::actors
