// `fedsim agents`: hosts some of a served run's agents in this process (actors/remote/
// host_agents.hpp). Each evaluates its objective here; the run's records are written by the
// server (fedsim serve).
#include <cstdio>

#include "actors/failure.hpp"
#include "actors/federation.hpp"
#include "actors/logging.hpp"
#include "actors/remote/host_agents.hpp"
#include "actors/remote/join_auth.hpp"
#include "actors/remote/serve.hpp"
#include "scenarios/loader.hpp"
#include "tools/fedsim/commands.hpp"

namespace fedsim::cli {
namespace {

struct AgentsCommandOptions {
  std::string connect;
  std::string secret_file;
  std::string ids;
  std::string out;
  int threads = 0;
  double connect_timeout = 30;
  bool quiet = false;
  std::string log_level;
  actors::remote::TlsFiles tls;
};

/// Which option a refused join points at.
std::string refusal_hint(const std::string& reason) {
  if (reason == "wrong secret")
    return " (--secret-file must hold the same secret as fedsim serve's --secret-file)";
  if (reason.rfind("ids ", 0) == 0 || reason.rfind("id ", 0) == 0)
    return " (--ids: ids below the run's world.agents, each hosted by one agents process)";
  return "";
}

void host(const AgentsCommandOptions& o) {
  if (o.threads < 0) throw UsageError("--threads must be >= 0");
  if (!(o.connect_timeout > 0) || o.connect_timeout > 1e6)
    throw UsageError("--connect-timeout must be in (0, 1e6] seconds");
  if (!o.log_level.empty()) {
    try {
      actors::set_log_levels(o.log_level);
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--log-level: ") + e.what());
    }
  }
  actors::remote::HostOptions h;
  try {
    std::tie(h.host, h.port) = actors::remote::parse_endpoint(o.connect, "--connect");
    if (h.port == 0) throw std::invalid_argument("--connect '" + o.connect + "': port 0 is no server's");
    h.secret = actors::remote::read_secret_file(o.secret_file);
    h.ids = actors::remote::parse_id_list(o.ids);
    caf::actor_system_config probe;  // the TLS files checked, nothing started
    if (o.tls.enabled()) actors::remote::configure_network(probe, o.tls);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  h.tls = o.tls;
  h.connect_timeout = o.connect_timeout;
  h.out_dir = o.out.empty() ? "out/agents-" + actors::remote::format_id_list(h.ids) : o.out;
  h.parse = [](const std::string& text) {
    return scenario::load_scenario_text(text, "the server's scenario").config;
  };
  const bool quiet = o.quiet;
  const std::string ids = actors::remote::format_id_list(h.ids);
  h.on_joined = [quiet, ids, endpoint = o.connect](const scenario::ScenarioConfig& c) {
    if (!quiet)
      std::fprintf(stderr, "fedsim agents: agents %s joined run '%s' (%d agents) at %s\n",
                   ids.c_str(), c.name.c_str(), c.world.agents, endpoint.c_str());
  };
  try {
    actors::remote::host_agents(h, o.threads);
  } catch (const actors::remote::JoinRefused& e) {  // how this process was started: exit 2
    throw UsageError(e.what() + refusal_hint(e.reason));
  } catch (const actors::remote::HostError& e) {
    throw actors::RunFailure(e.what());
  }
  if (!quiet) std::fprintf(stderr, "fedsim agents: agents %s: the run is over\n", ids.c_str());
}

}  // namespace

void add_agents_command(CLI::App& app) {
  auto o = std::make_shared<AgentsCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "agents", "Host some agents of a run served by `fedsim serve` in this process; each "
                "evaluates its objective here");
  cmd->add_option("--connect", o->connect, "HOST:PORT of the server (fedsim serve --listen)")
      ->required();
  cmd->add_option("--secret-file", o->secret_file, "file holding the server's shared secret")
      ->required();
  cmd->add_option("--ids", o->ids, "the agent ids to host: 0-9,12,15-17")->required();
  cmd->add_option("--out", o->out,
                  "folder for what the objective writes here (command workers' logs; default "
                  "out/agents-IDS)");
  cmd->add_option("--threads", o->threads, "actor scheduler threads (0: CAF's default)")
      ->capture_default_str();
  cmd->add_option("--connect-timeout", o->connect_timeout,
                  "seconds to keep trying to reach the server")
      ->capture_default_str();
  cmd->add_option("--tls-cert", o->tls.certificate,
                  "TLS: this process's certificate (PEM), signed by the CA the server trusts");
  cmd->add_option("--tls-key", o->tls.key, "TLS: the certificate's private key (PEM)");
  cmd->add_option("--tls-ca", o->tls.ca, "TLS: the CA certificate that signed the server's (PEM)");
  cmd->add_flag("--quiet", o->quiet, "no progress output");
  cmd->add_option("--log-level", o->log_level,
                  "actor logs on stderr: a level or 'warn,remote=info'; default warn");
  cmd->callback([o] { host(*o); });
}

}  // namespace fedsim::cli
