// fsmap: the volume and class of each file (see cli/fsmap.h).
#include <string>
#include <vector>

#include "cli/cli_env.h"
#include "cli/fsmap.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  return tierfs::cli::FsmapMain(args, tierfs::cli::DefaultCliEnv());
}
