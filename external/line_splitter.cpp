#include "external/line_splitter.hpp"

namespace fedsim::external {

bool LineSplitter::feed(std::string_view bytes, const std::function<bool(std::string&&)>& on_line) {
  while (!too_long_ && !bytes.empty()) {
    const auto newline = bytes.find('\n');
    const std::string_view piece = bytes.substr(0, newline);
    if (partial_.size() + piece.size() > max_line_ + 1) {  // + 1: a "\r" before the "\n"
      too_long_ = true;
      partial_.clear();
      partial_.shrink_to_fit();
      break;
    }
    partial_.append(piece);
    if (newline == std::string_view::npos) {
      // Without its "\n" the line may still end in "\r": only more than max_line + 1 is sure.
      if (partial_.size() > max_line_ &&
          !(partial_.size() == max_line_ + 1 && partial_.back() == '\r')) {
        too_long_ = true;
        partial_.clear();
        partial_.shrink_to_fit();
      }
      break;
    }
    bytes.remove_prefix(newline + 1);
    std::string line = std::move(partial_);
    partial_.clear();
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.size() > max_line_) {
      too_long_ = true;
      break;
    }
    if (!on_line(std::move(line))) return !too_long_;
  }
  return !too_long_;
}

}  // namespace fedsim::external
