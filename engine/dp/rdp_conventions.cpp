#include "engine/dp/rdp_conventions.hpp"

#include <stdexcept>

namespace fedsim::dp {
namespace {
struct GridName {
  OrderGrid grid;
  const char* name;
};
constexpr GridName kGrids[] = {{OrderGrid::fine, "fine"},
                               {OrderGrid::abadi, "abadi"},
                               {OrderGrid::tf, "tf"},
                               {OrderGrid::tf_extended, "tf-extended"},
                               {OrderGrid::tf_legacy, "tf-legacy"}};

void append_range(std::vector<double>& v, int from, int to) {
  for (int a = from; a <= to; ++a) v.push_back(a);
}
}  // namespace

std::vector<double> rdp_orders(OrderGrid grid) {
  std::vector<double> v;
  switch (grid) {
    case OrderGrid::fine:
      for (int x = 1; x < 100; ++x) v.push_back(1.0 + x / 10.0);
      append_range(v, 11, 64);
      for (double a : {80, 96, 112, 128, 160, 192, 224, 256, 384, 512, 768, 1024}) v.push_back(a);
      break;
    case OrderGrid::abadi:
      append_range(v, 2, 33);
      break;
    case OrderGrid::tf:
    case OrderGrid::tf_extended:
      v = {1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 3.0, 3.5, 4.0, 4.5};
      append_range(v, 5, 63);
      if (grid == OrderGrid::tf_extended) v.insert(v.end(), {64, 128, 256, 512});
      break;
    case OrderGrid::tf_legacy:
      for (int x = 1; x < 100; ++x) v.push_back(1.0 + x / 10.0);
      append_range(v, 12, 63);
      break;
  }
  return v;
}

std::string to_string(OrderGrid grid) {
  for (const auto& g : kGrids)
    if (g.grid == grid) return g.name;
  throw std::logic_error("to_string: not a OrderGrid value");
}

std::string to_string(RdpConversion conversion) {
  return conversion == RdpConversion::classic ? "classic" : "improved";
}

OrderGrid order_grid_from_string(std::string_view name) {
  for (const auto& g : kGrids)
    if (name == g.name) return g.grid;
  throw std::invalid_argument("unknown order grid '" + std::string(name) +
                              "' (allowed: fine, abadi, tf, tf-extended, tf-legacy)");
}

RdpConversion rdp_conversion_from_string(std::string_view name) {
  if (name == "classic") return RdpConversion::classic;
  if (name == "improved") return RdpConversion::improved;
  throw std::invalid_argument("unknown RDP conversion '" + std::string(name) +
                              "' (allowed: classic, improved)");
}

}  // namespace fedsim::dp
