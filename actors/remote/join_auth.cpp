#include "actors/remote/join_auth.hpp"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

namespace fedsim::actors::remote {

std::string read_secret_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument("secret file '" + path + "': cannot be read");
  std::string secret;
  try {  // a folder opens, and libstdc++ throws std::ios_base::failure reading it
    secret.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  } catch (const std::exception& e) {
    throw std::invalid_argument("secret file '" + path + "': cannot be read (" + e.what() + ")");
  }
  if (!secret.empty() && secret.back() == '\n') secret.pop_back();
  if (!secret.empty() && secret.back() == '\r') secret.pop_back();
  if (secret.size() < min_secret_bytes)
    throw std::invalid_argument("secret file '" + path + "': " + std::to_string(secret.size()) +
                                " bytes, at least " + std::to_string(min_secret_bytes) +
                                " needed (e.g. openssl rand -hex 32 > " + path + ")");
  return secret;
}

std::vector<std::uint8_t> make_nonce() {
  std::vector<std::uint8_t> nonce(nonce_bytes);
  if (RAND_bytes(nonce.data(), static_cast<int>(nonce.size())) != 1)
    throw std::runtime_error("join: OpenSSL's random generator gave no nonce");
  return nonce;
}

std::vector<std::uint8_t> join_mac(const std::string& secret,
                                   const std::vector<std::uint8_t>& nonce,
                                   const std::vector<std::uint32_t>& ids) {
  static const std::string tag = "fedsim-join-v1";
  std::vector<std::uint8_t> data(tag.begin(), tag.end());
  data.insert(data.end(), nonce.begin(), nonce.end());
  for (std::uint32_t id : ids)
    for (int b = 0; b < 4; ++b) data.push_back(static_cast<std::uint8_t>(id >> (8 * b)));
  std::vector<std::uint8_t> mac(EVP_MAX_MD_SIZE);
  unsigned int length = 0;
  if (!HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()), data.data(),
            data.size(), mac.data(), &length))
    throw std::runtime_error("join: HMAC-SHA256 failed");
  mac.resize(length);
  return mac;
}

bool join_mac_valid(const std::string& secret, const std::vector<std::uint8_t>& nonce,
                    const std::vector<std::uint32_t>& ids, const std::vector<std::uint8_t>& mac) {
  const std::vector<std::uint8_t> expected = join_mac(secret, nonce, ids);
  return mac.size() == expected.size() &&
         CRYPTO_memcmp(mac.data(), expected.data(), mac.size()) == 0;
}

namespace {

std::uint32_t parse_id(const std::string& part, const std::string& text) {
  if (part.empty() || part.size() > 9 ||
      !std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; }))
    throw std::invalid_argument("agent ids '" + text + "': '" + part +
                                "' is not an id (ids are 0, 1, ...; ranges 0-9, lists 0-4,7)");
  return static_cast<std::uint32_t>(std::stoul(part));
}

}  // namespace

std::vector<std::uint32_t> parse_id_list(const std::string& text) {
  std::vector<std::uint32_t> ids;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    const auto dash = item.find('-');
    if (dash == std::string::npos) {
      ids.push_back(parse_id(item, text));
      continue;
    }
    const std::uint32_t lo = parse_id(item.substr(0, dash), text);
    const std::uint32_t hi = parse_id(item.substr(dash + 1), text);
    if (hi < lo)
      throw std::invalid_argument("agent ids '" + text + "': range '" + item + "' is empty");
    if (hi - lo >= 1000000)
      throw std::invalid_argument("agent ids '" + text + "': range '" + item + "' is too long");
    for (std::uint32_t i = lo; i <= hi; ++i) ids.push_back(i);
  }
  if (ids.empty()) throw std::invalid_argument("agent ids '" + text + "': no id");
  std::sort(ids.begin(), ids.end());
  if (std::adjacent_find(ids.begin(), ids.end()) != ids.end())
    throw std::invalid_argument("agent ids '" + text + "': an id is listed twice");
  return ids;
}

std::string format_id_list(const std::vector<std::uint32_t>& ids) {
  std::string out;
  for (std::size_t i = 0; i < ids.size();) {
    std::size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(ids[i]);
    if (j > i) out += '-' + std::to_string(ids[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace fedsim::actors::remote
