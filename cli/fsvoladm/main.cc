// fsvoladm: list, add, remove and re-class volumes (see cli/fsvoladm/fsvoladm.h).
#include <string>
#include <vector>

#include "cli/common/cli_env.h"
#include "cli/fsvoladm/fsvoladm.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  return tierfs::cli::FsvoladmMain(args, tierfs::cli::DefaultCliEnv());
}
