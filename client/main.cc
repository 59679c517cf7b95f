// hopmap: map a parallel job's tasks onto a machine allocation to cut hop-bytes.
#include <iostream>
#include <string>

#include "client/commands.h"
#include "core/io/escape.h"

int main(int argc, char** argv) {
  CLI::App app{
      "hopmap: places the tasks of a parallel job on the nodes and cores of an allocation so "
      "that their messages cross as few network hops as possible.\n"
      "Exit status: 0 on success, 1 on a user error (one line on stderr)."};
  app.set_version_flag("--version", std::string("hopmap 0.1.0"));
  app.require_subcommand(1);
  hopmap::cli::Action run;
  hopmap::cli::AddMapCommand(app, run);
  hopmap::cli::AddEvalCommand(app, run);
  hopmap::cli::AddDrawCommand(app, run);
  hopmap::cli::AddSimulateCommand(app, run);
  hopmap::cli::AddAnalyzeCommand(app, run);
  hopmap::cli::AddGenCommand(app, run);
  hopmap::cli::AddConvertCommand(app, run);
  hopmap::cli::AddMachinesCommand(app, run);
  hopmap::cli::AddAlgorithmsCommand(app, run);
  hopmap::cli::AddQapCommand(app, run);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string where = "hopmap";
    for (const CLI::App* sub : app.get_subcommands()) where += " " + sub->get_name();
    std::cerr << where << ": " << e.what() << " (see " << where << " --help)\n";
    return 1;
  }
  const absl::Status status = run ? run() : absl::InternalError("no subcommand ran");
  if (!status.ok()) {
    // One line whatever a file or the daemon put in the message.
    std::cerr << "hopmap: " << hopmap::EscapeControlCharacters(status.message()) << "\n";
    return 1;
  }
  return 0;
}
