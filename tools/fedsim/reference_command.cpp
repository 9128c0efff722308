#include "tools/fedsim/commands.hpp"
namespace fedsim::cli {
void add_reference_command(CLI::App& app) { app.add_subcommand("reference", "placeholder"); }
}
