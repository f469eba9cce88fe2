// fsmap: the volume and class of each file (see cli/fsmap/fsmap.h).
#include <string>
#include <vector>

#include "cli/common/cli_env.h"
#include "cli/fsmap/fsmap.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  return tierfs::cli::FsmapMain(args, tierfs::cli::DefaultCliEnv());
}
