#include "tools/fedsim/commands.hpp"
namespace fedsim::cli {
void add_privacy_command(CLI::App& app) { app.add_subcommand("privacy", "placeholder"); }
}
