// hopmap: map a parallel job's tasks onto a machine allocation to cut hop-bytes.
#include <algorithm>
#include <cstddef>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "client/commands.h"
#include "core/io/escape.h"

namespace {

// Edit distance with adjacent transpositions (optimal string alignment): "drwa" is
// one edit from "draw".
size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t substitute = d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, substitute});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

// The subcommand a mistyped `word` most likely meant, or "" when none is close:
// the first that `word` begins (at least 2 letters: "sim" for simulate), else the
// nearest within 2 edits and half the word's length ("maps", "drwa"; not "x"), the
// first in `names` on a tie; case ignored.
std::string NearestName(const std::string& word, const std::vector<std::string>& names) {
  const std::string lower = absl::AsciiStrToLower(word);
  if (lower.size() >= 2) {
    for (const std::string& name : names) {
      if (absl::StartsWith(name, lower)) return name;
    }
  }
  std::string best;
  size_t best_distance = std::min<size_t>(2, lower.size() / 2) + 1;
  for (const std::string& name : names) {
    const size_t distance = EditDistance(lower, name);
    if (distance < best_distance) {
      best = name;
      best_distance = distance;
    }
  }
  return best;
}

// A word from the command line for a one-line message: control characters made
// visible, cut to 40 characters.
std::string Shown(const std::string& word) {
  constexpr size_t kMax = 40;
  const std::string escaped = hopmap::EscapeControlCharacters(word);
  return escaped.size() <= kMax ? escaped : escaped.substr(0, kMax) + "...";
}

// "hopmap: unknown subcommand 'WORD'; did you mean 'NAME'? (see hopmap --help)", or
// with nothing close, the list of subcommands.
std::string UnknownSubcommand(const std::string& word, const std::vector<std::string>& names) {
  const std::string nearest = NearestName(word, names);
  if (!nearest.empty()) {
    return absl::StrCat("hopmap: unknown subcommand '", Shown(word), "'; did you mean '", nearest,
                        "'? (see hopmap --help)");
  }
  return absl::StrCat("hopmap: unknown subcommand '", Shown(word),
                      "'; the subcommands are: ", absl::StrJoin(names, ", "),
                      " (see hopmap --help)");
}

}  // namespace

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
  // Set after the subcommands, which would inherit it.
  app.footer("`hopmap SUBCOMMAND --help` or `hopmap help SUBCOMMAND` prints a subcommand's flags.");

  // The first word names the subcommand (the top level has no option taking a
  // value). CLI11 would answer a missing or mistyped one alike ("A subcommand is
  // required"), so both are told apart here; `help [SUBCOMMAND]` is `--help`.
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    names.push_back(sub->get_name());
  }
  const auto is_subcommand = [&app](const std::string& word) {
    return !app.get_subcommands([&word](CLI::App* sub) { return sub->check_name(word); }).empty();
  };
  if (argc < 2) {
    std::cerr << "hopmap: a subcommand is required: " << absl::StrJoin(names, ", ")
              << " (see hopmap --help)\n";
    return 1;
  }
  std::vector<char*> args(argv, argv + argc);
  std::string help_flag = "--help";
  const std::string first = argv[1];
  if (first == "help") {
    if (argc > 3) {
      std::cerr << "hopmap help: expected at most one subcommand, got '" << Shown(argv[2]) << "' '"
                << Shown(argv[3]) << "'" << (argc > 4 ? " ..." : "") << " (see hopmap --help)\n";
      return 1;
    }
    if (argc == 3 && !is_subcommand(argv[2])) {
      std::cerr << UnknownSubcommand(argv[2], names) << "\n";
      return 1;
    }
    // `hopmap help` is `hopmap --help`; `hopmap help map` is `hopmap map --help`.
    args.erase(args.begin() + 1);
    args.push_back(help_flag.data());
  } else if (!first.empty() && first[0] != '-' && !is_subcommand(first)) {
    std::cerr << UnknownSubcommand(first, names) << "\n";
    return 1;
  } else if (first.size() > 1 && first[0] == '-' &&
             app.get_option_no_throw(first.substr(0, first.find('='))) == nullptr) {
    // "hopmap --local map ...": CLI11 would only say that a subcommand is required.
    std::cerr << "hopmap: unknown option '" << Shown(first)
              << "' before the subcommand; a subcommand's options follow it: hopmap SUBCOMMAND "
                 "[OPTIONS] (see hopmap --help)\n";
    return 1;
  }

  try {
    app.parse(static_cast<int>(args.size()), args.data());
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
