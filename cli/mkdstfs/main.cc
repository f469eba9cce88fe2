// mkdstfs: set up and mount a tierfs file system (see cli/mkdstfs/mkdstfs.h).
#include <string>
#include <vector>

#include "cli/common/cli_env.h"
#include "cli/mkdstfs/mkdstfs.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  return tierfs::cli::MkdstfsMain(args, tierfs::cli::DefaultCliEnv());
}
