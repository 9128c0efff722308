// libFuzzer target: the checkpoint reader (actors/checkpoint/checkpoint.hpp), input from a file
// that a crash, a disk or a person may have altered. Each input is read twice: as a whole
// state.bin (magic, version and checksum stop almost everything), and as the body of one with a
// valid frame, so the field decoder itself (lengths, strings, nested vectors) meets every
// mutation. Promise under test: a Checkpoint or std::invalid_argument naming the file; never a
// crash, a hang, another exception or an allocation the input does not pay for.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "actors/checkpoint/checkpoint.hpp"

namespace {

void read_one(const std::vector<char>& bytes) {
  try {
    const fedsim::actors::Checkpoint c = fedsim::actors::parse_checkpoint(bytes, "state.bin");
    // What was read fits in the input: no field claims more than it paid for.
    std::size_t total = c.header.size() + c.network.size() + c.server.size() + c.recorder.size() +
                        c.accountant.size();
    for (const auto& m : c.members) total += m.size();
    if (total > bytes.size()) std::abort();
  } catch (const std::invalid_argument& e) {
    if (std::string(e.what()).rfind("checkpoint state.bin: ", 0) != 0) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::vector<char> input(reinterpret_cast<const char*>(data),
                                reinterpret_cast<const char*>(data) + size);
  read_one(input);
  read_one(fedsim::actors::seal_checkpoint_body(input));
  return 0;
}
