#include "tools/fedsim/parse_error.hpp"

#include <vector>

#include "scenarios/did_you_mean.hpp"
#include "scenarios/echo.hpp"
#include "scenarios/schema.hpp"

namespace fedsim::cli {
namespace {

using scenario::did_you_mean;
using scenario::quote;
using scenario::schema::join;

/// The names of an app's subcommands, in the order they were added.
std::vector<std::string> subcommand_names(const CLI::App& app) {
  std::vector<std::string> out;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    out.push_back(sub->get_name());
  return out;
}

/// Every spelling of an app's options: "--seed", "-h".
std::vector<std::string> option_names(const CLI::App& app) {
  std::vector<std::string> out;
  for (const CLI::Option* o : app.get_options()) {
    for (const std::string& l : o->get_lnames()) out.push_back("--" + l);
    for (const std::string& s : o->get_snames()) out.push_back("-" + s);
  }
  return out;
}

/// The first argument `app` left over that looks like an option ("--seeds" of "--seeds=3"), or "".
std::string unknown_option(const CLI::App& app) {
  for (const std::string& arg : app.remaining(false))
    if (arg.size() > 1 && arg[0] == '-') return arg.substr(0, arg.find('='));
  return "";
}

}  // namespace

std::string parse_error_message(const CLI::App& app, const CLI::ParseError& e) {
  const std::vector<std::string> commands = subcommand_names(app);
  const std::vector<CLI::App*> chosen = app.get_subcommands();
  if (chosen.empty()) {
    // Nothing named a subcommand: the first word that is not an option was meant to.
    for (const std::string& arg : app.remaining(false))
      if (!arg.empty() && arg[0] != '-')
        return "unknown subcommand " + quote(arg) + did_you_mean(arg, commands) +
               " (allowed: " + join(commands) + ")";
    if (const std::string option = unknown_option(app); !option.empty())
      return "unknown option " + quote(option) + did_you_mean(option, option_names(app)) +
             " and no subcommand (allowed: " + join(commands) + ")";
    return "a subcommand is required (allowed: " + join(commands) +
           "; fedsim SUBCOMMAND --help lists its options)";
  }
  const CLI::App& sub = *chosen.front();
  if (const std::string option = unknown_option(sub); !option.empty())
    return sub.get_name() + ": unknown option " + quote(option) +
           did_you_mean(option, option_names(sub)) + " (fedsim " + sub.get_name() +
           " --help lists them)";
  if (const std::string option = unknown_option(app); !option.empty())
    return "unknown option " + quote(option) + did_you_mean(option, option_names(app)) +
           " before the subcommand " + sub.get_name();
  return e.what();
}

}  // namespace fedsim::cli
