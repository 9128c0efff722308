#include "engine/dp/accountant.hpp"

#include <stdexcept>
#include <string>

#include "engine/dp/pld_accountant.hpp"
#include "engine/dp/rdp_accountant.hpp"

namespace fedsim::dp {

std::unique_ptr<Accountant> make_accountant(std::string_view name) {
  if (name == "moments") return std::make_unique<RdpAccountant>();
  if (name == "moments-paper") return std::make_unique<RdpAccountant>(paper_rdp_convention());
  if (name == "tight") return std::make_unique<PldAccountant>();
  throw std::invalid_argument("unknown accountant '" + std::string(name) +
                              "' (allowed: moments, moments-paper, tight)");
}

}  // namespace fedsim::dp
