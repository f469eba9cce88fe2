// mkdstfs: set up and mount a tierfs file system (see cli/mkdstfs.h).
#include <string>
#include <vector>

#include "cli/cli_env.h"
#include "cli/mkdstfs.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  return tierfs::cli::MkdstfsMain(args, tierfs::cli::DefaultCliEnv());
}
