#pragma once
/// The one-line message of a command line CLI11 refused, naming what it did not know: a missing
/// or unknown subcommand with the list of subcommands, an unknown option with "did you mean"
/// (scenarios/did_you_mean.hpp) and where the options are listed. Other refusals keep CLI11's
/// words.
#include <string>

#include <CLI/CLI.hpp>

namespace fedsim::cli {

/// `app` is the top-level app whose parse threw `e` (its state after the throw tells which
/// subcommand was being read and what it left over).
std::string parse_error_message(const CLI::App& app, const CLI::ParseError& e);

}  // namespace fedsim::cli
