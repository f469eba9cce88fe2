// fsppadm: placement policy administration (see cli/fsppadm.h).
#include <string>
#include <vector>

#include "cli/cli_env.h"
#include "cli/fsppadm.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  return tierfs::cli::FsppadmMain(args, tierfs::cli::DefaultCliEnv());
}
