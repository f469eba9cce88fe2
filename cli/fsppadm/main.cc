// fsppadm: placement policy administration (see cli/fsppadm/fsppadm.h).
#include <string>
#include <vector>

#include "cli/common/cli_env.h"
#include "cli/fsppadm/fsppadm.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  return tierfs::cli::FsppadmMain(args, tierfs::cli::DefaultCliEnv());
}
