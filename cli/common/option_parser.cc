#include "cli/common/option_parser.h"

#include <getopt.h>

#include <algorithm>
#include <cstring>

namespace tierfs::cli {
namespace {

// getopt_long's return value for the long-only option at `index`.
constexpr int kLongOnlyBase = 0x1000;

std::string NameFromArg(const char* arg) {
  std::string name = arg == nullptr ? "" : arg;
  size_t eq = name.find('=');
  if (eq != std::string::npos) name.resize(eq);
  return name;
}

}  // namespace

Result<ActionWord> ParseActionWord(const std::vector<std::string>& args, std::string_view tool,
                                   const std::vector<std::string_view>& actions) {
  if (args.size() < 2) {
    return Status::Invalid("no action given (see " + std::string(tool) + " --help)");
  }
  ActionWord word{ActionWord::kAction, args[1]};
  if (word.action == "--help" || word.action == "-h" || word.action == "help") {
    word.kind = ActionWord::kHelp;
    return word;
  }
  if (word.action == "--version") {
    word.kind = ActionWord::kVersion;
    return word;
  }
  if (std::find(actions.begin(), actions.end(), word.action) != actions.end()) return word;
  std::string expected;
  for (size_t i = 0; i < actions.size(); ++i) {
    if (i > 0) expected += i + 1 == actions.size() ? " or " : ", ";
    expected += actions[i];
  }
  return Status::Invalid("unknown action \"" + word.action + "\" (expected " + expected + ")");
}

std::string OptionName(const OptionSpec& spec) {
  if (spec.short_name != 0) return std::string("-") + spec.short_name;
  return std::string("--") + (spec.long_name == nullptr ? "" : spec.long_name);
}

Result<std::vector<std::string>> ParseOptions(const std::vector<std::string>& args,
                                              const std::vector<OptionSpec>& specs,
                                              const OptionHandler& on_option) {
  // ':' first: report a missing value as ':' rather than '?'.
  std::string optstring = ":";
  std::vector<option> longopts;
  for (size_t i = 0; i < specs.size(); ++i) {
    const OptionSpec& spec = specs[i];
    if (spec.short_name != 0) {
      optstring += spec.short_name;
      if (spec.takes_value) optstring += ':';
    }
    if (spec.long_name != nullptr) {
      int val = spec.short_name != 0 ? spec.short_name : kLongOnlyBase + static_cast<int>(i);
      longopts.push_back(
          option{spec.long_name, spec.takes_value ? required_argument : no_argument, nullptr, val});
    }
  }
  longopts.push_back(option{nullptr, 0, nullptr, 0});

  // getopt permutes argv; work on a private copy.
  std::vector<std::string> storage = args;
  if (storage.empty()) storage.push_back("command");
  std::vector<char*> argv;
  for (std::string& s : storage) argv.push_back(s.data());
  argv.push_back(nullptr);
  const int argc = static_cast<int>(storage.size());

  optind = 0;  // glibc: 0 re-initializes the scanner (including permutation state)
  opterr = 0;  // we word the errors ourselves
  for (;;) {
    optopt = 0;
    int longindex = -1;
    int c = getopt_long(argc, argv.data(), optstring.c_str(), longopts.data(), &longindex);
    if (c == -1) break;
    // The argument getopt was looking at, for a long option or a missing value
    // (optind has moved past it in both cases).
    const char* current = optind > 0 && optind <= argc ? argv[optind - 1] : nullptr;
    bool was_long = current != nullptr && std::strncmp(current, "--", 2) == 0;
    if (c == '?') {
      // optopt says which case this is: 0 for an unknown or ambiguous long option;
      // the option's own value for a flag given a value (--json=x); otherwise the
      // unknown short option's letter.
      const OptionSpec* given_value = nullptr;
      for (size_t i = 0; i < specs.size(); ++i) {
        int val =
            specs[i].short_name != 0 ? specs[i].short_name : kLongOnlyBase + static_cast<int>(i);
        if (optopt != 0 && optopt == val && specs[i].long_name != nullptr) given_value = &specs[i];
      }
      if (given_value != nullptr) {
        return Status::Invalid(std::string("option --") + given_value->long_name +
                               " takes no value");
      }
      if (optopt != 0) {
        return Status::Invalid(std::string("unknown option -") + static_cast<char>(optopt));
      }
      std::string name = NameFromArg(current);
      size_t matches = 0;
      for (const OptionSpec& spec : specs) {
        if (spec.long_name != nullptr && name.size() > 2 &&
            std::strncmp(spec.long_name, name.c_str() + 2, name.size() - 2) == 0) {
          ++matches;
        }
      }
      if (matches > 1) return Status::Invalid("ambiguous option " + name);
      return Status::Invalid("unknown option " + name);
    }
    const OptionSpec* spec = nullptr;
    int key = c == ':' ? optopt : c;
    if (key >= kLongOnlyBase && key < kLongOnlyBase + static_cast<int>(specs.size())) {
      spec = &specs[static_cast<size_t>(key - kLongOnlyBase)];
    } else {
      for (const OptionSpec& s : specs) {
        if (s.short_name != 0 && s.short_name == key) spec = &s;
      }
    }
    if (spec == nullptr) return Status::Invalid("unknown option " + NameFromArg(current));
    if (c == ':') {
      std::string name = was_long ? NameFromArg(current) : OptionName(*spec);
      return Status::Invalid("option " + name + " needs a value (" + spec->value_name + ")");
    }
    TIERFS_RETURN_IF_ERROR(on_option(*spec, spec->takes_value ? optarg : nullptr));
  }
  std::vector<std::string> operands;
  for (int i = optind; i < argc; ++i) operands.push_back(argv[static_cast<size_t>(i)]);
  return operands;
}

}  // namespace tierfs::cli
