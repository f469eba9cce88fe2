#include "cli/fsppadm/subcommand.h"

namespace tierfs::cli::fsppadm {

const char kCommonOptionsUsage[] =
    "  -h, --help    this text\n"
    "  --version     print the version and exit\n";

Result<std::vector<std::string>> ParseSubcommandOptions(const std::vector<std::string>& args,
                                                        std::vector<OptionSpec> specs,
                                                        CommonFlags* flags,
                                                        const OptionHandler& on_option) {
  // Ahead of the command's own, as they always were: the order getopt_long
  // resolves an ambiguous long prefix in.
  specs.insert(specs.begin(), {{"help", 'h', false, ""}, {"version", 0, false, ""}});
  return ParseOptions(args, specs, [&](const OptionSpec& spec, const char* value) {
    if (spec.short_name == 'h') {
      flags->help = true;
      return Status::Ok();
    }
    if (spec.long_name != nullptr && std::string(spec.long_name) == "version") {
      flags->version = true;
      return Status::Ok();
    }
    return on_option(spec, value);
  });
}

Status ExpectOperands(bool ok, const std::string& syntax) {
  return ok ? Status::Ok() : Status::Invalid("expected " + syntax);
}

}  // namespace tierfs::cli::fsppadm
