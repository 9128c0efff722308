#pragma once
/// Named choices for the moments (RDP) accountant: which orders to try and how to convert.
/// The DP-FTS-DE paper's privacy losses come from the original moments accountant of
/// Abadi et al. 2016 (integer moments 1..32, i.e. RDP orders 2..33) with the classic
/// conversion and steps = T; see docs/privacy.md.
#include <string>
#include <string_view>
#include <vector>

#include "engine/dp/rdp.hpp"

namespace fedsim::dp {

/// Grids of RDP orders.
enum class OrderGrid {
  fine,         ///< default: 1.1, 1.2, ..., 10.9, 11..64, 80, 96, ..., 1024 (a modern dense grid)
  abadi,        ///< 2, 3, ..., 33: the moment orders 1..32 of Abadi et al. (the paper's)
  tf,           ///< TF Privacy's list 1.25, 1.5, 1.75, 2, 2.25, 2.5, 3, 3.5, 4, 4.5, 5..63
  tf_extended,  ///< tf plus 64, 128, 256, 512
  tf_legacy,    ///< TF Privacy's older 1.1, 1.2, ..., 10.9 plus 12..63
};

/// The orders of a grid, ascending.
std::vector<double> rdp_orders(OrderGrid grid);

/// "fine", "abadi", "tf", "tf-extended", "tf-legacy".
std::string to_string(OrderGrid grid);
/// "classic", "improved".
std::string to_string(RdpConversion conversion);
/// Inverse of to_string; throws std::invalid_argument naming the allowed values.
OrderGrid order_grid_from_string(std::string_view name);
RdpConversion rdp_conversion_from_string(std::string_view name);

/// Orders and conversion of a moments accountant.
struct RdpConvention {
  OrderGrid grid = OrderGrid::fine;
  RdpConversion conversion = RdpConversion::improved;
};

/// The convention that reproduces the DP-FTS-DE paper: abadi orders, classic conversion.
inline RdpConvention paper_rdp_convention() { return {OrderGrid::abadi, RdpConversion::classic}; }

}  // namespace fedsim::dp
