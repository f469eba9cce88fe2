// fsvoladm: list, add, remove and re-class volumes (see cli/fsvoladm.h).
#include <string>
#include <vector>

#include "cli/cli_env.h"
#include "cli/fsvoladm.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  return tierfs::cli::FsvoladmMain(args, tierfs::cli::DefaultCliEnv());
}
