// The join's cryptography and its input parsing (actors/remote/join_auth.hpp): the MAC is
// HMAC-SHA256 as an independent implementation computes it, and a valid answer is accepted for
// exactly its secret, nonce and ids; nonces are fresh; id lists and secret files are parsed
// strictly, with messages that name what is wrong.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "actors/remote/join_auth.hpp"
#include "tests/test_files.hpp"

using namespace fedsim::actors::remote;
namespace fs = std::filesystem;

namespace {

std::vector<std::uint8_t> from_hex(const std::string& hex) {
  std::vector<std::uint8_t> out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    out.push_back(static_cast<std::uint8_t>(std::stoul(hex.substr(i, 2), nullptr, 16)));
  return out;
}

std::string to_hex(const std::vector<std::uint8_t>& bytes) {
  std::string out;
  char b[3];
  for (std::uint8_t x : bytes) {
    std::snprintf(b, sizeof b, "%02x", x);
    out += b;
  }
  return out;
}

std::vector<std::uint8_t> counting_nonce() {  // 00 01 02 .. 1f
  std::vector<std::uint8_t> n(32);
  for (int i = 0; i < 32; ++i) n[i] = static_cast<std::uint8_t>(i);
  return n;
}

/// The message of the std::invalid_argument `f` throws ("" if it throws none).
template <class F>
std::string invalid_argument_of(F&& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

void write_file(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary);
  out << bytes;
}

}  // namespace

TEST_CASE("join_mac is HMAC-SHA256 over the tag, the nonce and the ids (little endian)",
          "[remote][security]") {
  // Computed independently with OpenSSL's command line (and cross-checked with Python's hmac):
  //   { printf 'fedsim-join-v1'; printf "$(for i in $(seq 0 31); do printf '\\x%02x' $i; done)";
  //     printf '\x01\x00\x00\x00\x02\x01\x00\x00'; } > joindata.bin
  //   openssl dgst -sha256 -hmac 'correct horse battery staple' joindata.bin
  // i.e. key "correct horse battery staple", data "fedsim-join-v1" || 00 01 .. 1f || ids {1, 258}
  // as 4-byte little-endian words.
  CHECK(to_hex(join_mac("correct horse battery staple", counting_nonce(), {1, 258})) ==
        "0ed193a89e619f22c7680718affb4ad6a6e84da17f48d7cd4da85a1c795b8b17");
  //   printf 'fedsim-join-v1' > tagonly.bin; openssl dgst -sha256 -hmac 'sixteen-byte-key' tagonly.bin
  CHECK(to_hex(join_mac("sixteen-byte-key", {}, {})) ==
        "7d66ee0fe228ad015b1f27c4d79f12e3055b7a5a4c4294dabea55dfc3181dde2");
  CHECK(join_mac("sixteen-byte-key", counting_nonce(), {0}).size() == mac_bytes);
}

TEST_CASE("join_mac_valid accepts exactly the right secret, nonce, ids and MAC",
          "[remote][security]") {
  const std::string secret = "correct horse battery staple";
  const auto nonce = counting_nonce();
  const std::vector<std::uint32_t> ids = {1, 258};
  const auto mac = from_hex("0ed193a89e619f22c7680718affb4ad6a6e84da17f48d7cd4da85a1c795b8b17");
  REQUIRE(join_mac_valid(secret, nonce, ids, mac));

  SECTION("every flipped bit of the MAC is refused") {
    for (std::size_t byte = 0; byte < mac.size(); ++byte)
      for (int bit = 0; bit < 8; ++bit) {
        auto bad = mac;
        bad[byte] ^= static_cast<std::uint8_t>(1u << bit);
        CAPTURE(byte, bit);
        CHECK_FALSE(join_mac_valid(secret, nonce, ids, bad));
      }
  }
  SECTION("a MAC of the wrong length is refused, truncated or extended") {
    CHECK_FALSE(join_mac_valid(secret, nonce, ids, {}));
    CHECK_FALSE(join_mac_valid(secret, nonce, ids, std::vector<std::uint8_t>(mac.begin(), mac.end() - 1)));
    CHECK_FALSE(join_mac_valid(secret, nonce, ids, std::vector<std::uint8_t>(mac.begin(), mac.begin() + 16)));
    auto longer = mac;
    longer.push_back(0);
    CHECK_FALSE(join_mac_valid(secret, nonce, ids, longer));
  }
  SECTION("other ids are refused: another set, another order, one more or one fewer") {
    CHECK_FALSE(join_mac_valid(secret, nonce, {1, 259}, mac));
    CHECK_FALSE(join_mac_valid(secret, nonce, {258, 1}, mac));
    CHECK_FALSE(join_mac_valid(secret, nonce, {1}, mac));
    CHECK_FALSE(join_mac_valid(secret, nonce, {1, 258, 3}, mac));
    CHECK_FALSE(join_mac_valid(secret, nonce, {}, mac));
    // The ids are fixed-width words: {1, 258} and {0x02000001 ...} never share an encoding.
    CHECK_FALSE(join_mac_valid(secret, nonce, {0x00010001u}, mac));
  }
  SECTION("another nonce is refused") {
    for (std::size_t i = 0; i < nonce.size(); ++i) {
      auto other = nonce;
      other[i] ^= 0x80;
      CAPTURE(i);
      CHECK_FALSE(join_mac_valid(secret, other, ids, mac));
    }
    CHECK_FALSE(join_mac_valid(secret, std::vector<std::uint8_t>(nonce.begin(), nonce.end() - 1), ids, mac));
    CHECK_FALSE(join_mac_valid(secret, {}, ids, mac));
  }
  SECTION("another secret is refused, even one differing in its last byte") {
    CHECK_FALSE(join_mac_valid("correct horse battery stapla", nonce, ids, mac));
    CHECK_FALSE(join_mac_valid("correct horse battery staple\n", nonce, ids, mac));
    CHECK_FALSE(join_mac_valid("", nonce, ids, mac));
  }
}

TEST_CASE("make_nonce gives 32 fresh random bytes", "[remote][security]") {
  std::set<std::vector<std::uint8_t>> seen;
  for (int i = 0; i < 64; ++i) {
    const auto n = make_nonce();
    REQUIRE(n.size() == nonce_bytes);
    REQUIRE(n.size() == 32);
    CHECK(seen.insert(n).second);  // never repeats (a repeat has probability 2^-256 per pair)
    CHECK(n != std::vector<std::uint8_t>(32, 0));
  }
  CHECK(make_nonce() != make_nonce());
}

TEST_CASE("parse_id_list reads ranges and lists into sorted unique ids", "[remote][security]") {
  using V = std::vector<std::uint32_t>;
  CHECK(parse_id_list("0-9,12") == V{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12});
  CHECK(parse_id_list("7") == V{7});
  CHECK(parse_id_list("0") == V{0});
  CHECK(parse_id_list("3-3") == V{3});
  CHECK(parse_id_list("15-17,12,0-2") == V{0, 1, 2, 12, 15, 16, 17});  // sorted
  CHECK(parse_id_list("999999999") == V{999999999});                 // the largest id it reads
  CHECK(parse_id_list("0-999999").size() == 1000000);                 // the longest range
}

TEST_CASE("parse_id_list refuses malformed, empty, reversed, huge and repeated ids",
          "[remote][security]") {
  struct Bad {
    std::string text;
    std::string in_message;  ///< the part the message must name
  };
  const std::vector<Bad> bad = {
      {"", "no id"},
      {"5-3", "'5-3' is empty"},
      {"a", "'a' is not an id"},
      {"1,,2", "'' is not an id"},
      {",1", "'' is not an id"},
      {"-1", "'' is not an id"},
      {"1-", "'' is not an id"},
      {"1-2-3", "'2-3' is not an id"},
      {" 1", "' 1' is not an id"},
      {"+1", "'+1' is not an id"},
      {"0x10", "'0x10' is not an id"},
      {"1.5", "'1.5' is not an id"},
      {"4294967296", "'4294967296' is not an id"},  // 2^32: would wrap
      {"4294967295", "'4294967295' is not an id"},  // 10 digits: refused, not truncated
      {"99999999999999999999", "is not an id"},
      {"0-1000000", "'0-1000000' is too long"},     // 10^6 + 1 ids
      {"0-999999999", "is too long"},
      // Overlapping or repeated ids are refused, not silently merged: "0-9,5" is more likely a
      // typo than a wish, and one id hosted twice would be a second join for it.
      {"1,1", "listed twice"},
      {"0-9,5", "listed twice"},
      {"0-5,3-8", "listed twice"},
      {"2-4,2-4", "listed twice"},
  };
  for (const Bad& b : bad) {
    CAPTURE(b.text);
    const std::string what = invalid_argument_of([&] { parse_id_list(b.text); });
    REQUIRE_FALSE(what.empty());
    CHECK_THAT(what, Catch::Contains("agent ids '" + b.text + "'"));
    CHECK_THAT(what, Catch::Contains(b.in_message));
  }
}

TEST_CASE("format_id_list writes ranges and round-trips through parse_id_list",
          "[remote][security]") {
  using V = std::vector<std::uint32_t>;
  CHECK(format_id_list({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12}) == "0-9,12");
  CHECK(format_id_list({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 15, 16, 17}) == "0-9,12,15-17");
  CHECK(format_id_list({5}) == "5");
  CHECK(format_id_list({4, 5}) == "4-5");
  CHECK(format_id_list({1, 3, 5}) == "1,3,5");
  CHECK(format_id_list({}) == "");
  for (const std::string text : {"0-9,12", "0-9,12,15-17", "5", "1,3,5", "0-1,3-4,999999999"})
    CHECK(format_id_list(parse_id_list(text)) == text);
  // Every subset of 0..11 (sorted unique by construction) survives format then parse.
  for (std::uint32_t mask = 1; mask < (1u << 12); ++mask) {
    V ids;
    for (std::uint32_t i = 0; i < 12; ++i)
      if (mask & (1u << i)) ids.push_back(i * 3 / 2);  // gaps and runs
    CAPTURE(mask);
    REQUIRE(parse_id_list(format_id_list(ids)) == ids);
  }
}

TEST_CASE("read_secret_file strips one newline and refuses short, missing files",
          "[remote][security]") {
  const fs::path dir = fedsim::test::fresh_dir("join-auth-secret");
  fs::create_directories(dir);
  const std::string sixteen = "0123456789abcdef";
  REQUIRE(sixteen.size() == min_secret_bytes);

  SECTION("the exact bytes, without one trailing newline") {
    write_file(dir / "plain", sixteen);
    CHECK(read_secret_file((dir / "plain").string()) == sixteen);
    write_file(dir / "lf", sixteen + "\n");
    CHECK(read_secret_file((dir / "lf").string()) == sixteen);
    write_file(dir / "crlf", sixteen + "\r\n");
    CHECK(read_secret_file((dir / "crlf").string()) == sixteen);
    write_file(dir / "two", sixteen + "\n\n");  // only one newline is the file's ending
    CHECK(read_secret_file((dir / "two").string()) == sixteen + "\n");
    const std::string binary = std::string("\0\x01\xff secret bytes\0!", 18);
    write_file(dir / "binary", binary);
    CHECK(read_secret_file((dir / "binary").string()) == binary);
  }
  SECTION("shorter than min_secret_bytes is refused, the newline not counted") {
    for (const std::string& text : {std::string(), std::string("\n"), sixteen.substr(0, 15),
                                    sixteen.substr(0, 15) + "\n", sixteen.substr(0, 15) + "\r\n"}) {
      CAPTURE(text);
      write_file(dir / "short", text);
      const std::string what =
          invalid_argument_of([&] { read_secret_file((dir / "short").string()); });
      REQUIRE_FALSE(what.empty());
      CHECK_THAT(what, Catch::Contains((dir / "short").string()));
      CHECK_THAT(what, Catch::Contains("at least 16"));
    }
  }
  SECTION("a missing file is refused, naming it") {
    const std::string missing = (dir / "no-such-secret").string();
    const std::string what = invalid_argument_of([&] { read_secret_file(missing); });
    REQUIRE_FALSE(what.empty());
    CHECK_THAT(what, Catch::Contains("secret file '" + missing + "'"));
    CHECK_THAT(what, Catch::Contains("cannot be read"));
  }
}

// A folder given as the secret file opens as a stream on Linux, and libstdc++'s filebuf then
// throws std::ios_base::failure while reading it: read_secret_file turns that into the
// documented std::invalid_argument naming the file (a usage error for fedsim serve/agents).
TEST_CASE("read_secret_file refuses a folder with invalid_argument naming it",
          "[remote][security]") {
  const fs::path dir = fedsim::test::fresh_dir("join-auth-secret-folder");
  fs::create_directories(dir);
  std::string what;
  try {
    read_secret_file(dir.string());
  } catch (const std::invalid_argument& e) {
    what = e.what();
  } catch (const std::exception& e) {
    FAIL_CHECK("not std::invalid_argument: " << e.what());
  }
  CHECK_THAT(what, Catch::Contains("secret file '" + dir.string() + "'"));
}
