// The hopmap subcommands. Each Add*Command registers a subcommand on `root` and,
// when it is chosen on the command line, sets `run` to the action to perform.
#ifndef HOPMAP_CLIENT_COMMANDS_H_
#define HOPMAP_CLIENT_COMMANDS_H_

#include <functional>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"

namespace hopmap::cli {

using Action = std::function<absl::Status()>;

void AddMapCommand(CLI::App& root, Action& run);
void AddEvalCommand(CLI::App& root, Action& run);
void AddGenCommand(CLI::App& root, Action& run);
void AddConvertCommand(CLI::App& root, Action& run);
void AddAnalyzeCommand(CLI::App& root, Action& run);
void AddMachinesCommand(CLI::App& root, Action& run);
void AddAlgorithmsCommand(CLI::App& root, Action& run);
void AddQapCommand(CLI::App& root, Action& run);
void AddDrawCommand(CLI::App& root, Action& run);
void AddSimulateCommand(CLI::App& root, Action& run);

}  // namespace hopmap::cli

#endif  // HOPMAP_CLIENT_COMMANDS_H_
