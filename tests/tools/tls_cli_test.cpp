// `fedsim serve` / `fedsim agents` over TLS (docs/distributed.md): certificates made here with
// the openssl command; an agent process with the CA's certificate joins and the run equals
// `fedsim run`'s; one without TLS, or with a certificate of another CA, cannot connect. Loopback
// only; every process is bounded by `timeout`.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "tests/test_files.hpp"
#include "tests/tools/run_command.hpp"

namespace fs = std::filesystem;
using fedsim::test::fresh_dir;
using fedsim::test::run_shell;
using fedsim::test::slurp;

namespace {

const std::string tiny = (fs::path(FEDSIM_SCENARIO_DIR) / "tiny.toml").string();

/// A CA, the server's and the agents' certificates signed by it, and an impostor's self-signed
/// one, in `dir`.
void make_certificates(const fs::path& dir) {
  const std::string d = dir.string();
  const auto r = run_shell(
      "cd '" + d + "' && "
      "openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=ca -keyout ca.key -out ca.pem && "
      "for who in server agents; do "
      "openssl req -newkey rsa:2048 -nodes -subj /CN=$who -keyout $who.key -out $who.csr && "
      "openssl x509 -req -in $who.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -out $who.pem"
      " || exit 1; done && "
      "openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=impostor -keyout impostor.key "
      "-out impostor.pem");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
}

std::string tls(const fs::path& dir, const std::string& who, const std::string& ca = "ca") {
  const std::string d = dir.string() + "/";
  return " --tls-cert '" + d + who + ".pem' --tls-key '" + d + who + ".key' --tls-ca '" + d + ca +
         ".pem'";
}

}  // namespace

TEST_CASE("a served run over TLS admits only certificates of its CA", "[cli][remote][tls]") {
  const fs::path dir = fresh_dir("cli-tls");
  fs::create_directories(dir);
  make_certificates(dir);
  const std::string d = dir.string();
  const std::string bin = fedsim::test::fedsim_binary();
  const std::string secret = d + "/secret";
  REQUIRE(run_shell("openssl rand -hex 32 > '" + secret + "'").exit_code == 0);

  // The server in the background; the port from its port file; each agent process bounded.
  const std::string script =
      "set -u; cd '" + d + "'; "
      "timeout 60 '" + bin + "' serve '" + tiny + "' --listen 127.0.0.1:0 --port-file port "
      "--secret-file secret --out served --quiet --join-timeout 40" + tls(dir, "server") +
      " > serve.log 2>&1 & S=$!; "
      "for i in $(seq 200); do [ -s port ] && break; sleep 0.05; done; P=$(cat port); "
      "timeout 20 '" + bin + "' agents --connect 127.0.0.1:$P --secret-file secret --ids 0-7 "
      "--quiet --connect-timeout 1 > plain.log 2>&1; echo \"plain $?\"; "
      "timeout 20 '" + bin + "' agents --connect 127.0.0.1:$P --secret-file secret --ids 0-7 "
      "--quiet --connect-timeout 1" + tls(dir, "impostor", "ca") + " > impostor.log 2>&1; "
      "echo \"impostor $?\"; "
      "timeout 40 '" + bin + "' agents --connect 127.0.0.1:$P --secret-file secret --ids 0-7 "
      "--quiet" + tls(dir, "agents") + " > agents.log 2>&1; echo \"agents $?\"; "
      "wait $S; echo \"serve $?\"";
  const auto r = run_shell(script);
  INFO(r.output);
  INFO(slurp(dir / "serve.log"));
  CHECK(r.output.find("plain 1") != std::string::npos);
  CHECK(r.output.find("impostor 1") != std::string::npos);
  CHECK(r.output.find("agents 0") != std::string::npos);
  REQUIRE(r.output.find("serve 0") != std::string::npos);
  CHECK(slurp(dir / "plain.log").find("cannot reach the server") != std::string::npos);

  const auto local = fedsim::test::run_fedsim("run '" + tiny + "' --quiet --out '" + d + "/local'");
  REQUIRE(local.exit_code == 0);
  for (const char* f : {"observations.csv", "rounds.csv", "events.jsonl"}) {
    INFO(f);
    CHECK(slurp(dir / "served" / f) == slurp(dir / "local" / f));
  }
}

TEST_CASE("TLS needs all three files, each readable", "[cli][remote][tls]") {
  const fs::path dir = fresh_dir("cli-tls-args");
  fs::create_directories(dir);
  const std::string d = dir.string();
  REQUIRE(run_shell("openssl rand -hex 32 > '" + d + "/secret'").exit_code == 0);
  const auto half = fedsim::test::run_fedsim("agents --connect 127.0.0.1:1 --secret-file '" + d +
                                             "/secret' --ids 0 --tls-cert '" + d + "/secret'");
  INFO(half.output);
  CHECK(half.exit_code == 2);
  CHECK(half.output.find("--tls-key is missing") != std::string::npos);
  const auto missing = fedsim::test::run_fedsim(
      "serve '" + tiny + "' --listen 127.0.0.1:0 --secret-file '" + d + "/secret' --out '" + d +
      "/o' --tls-cert '" + d + "/nope.pem' --tls-key '" + d + "/secret' --tls-ca '" + d + "/secret'");
  INFO(missing.output);
  CHECK(missing.exit_code == 2);
  CHECK(missing.output.find("nope.pem': cannot be read") != std::string::npos);
}
