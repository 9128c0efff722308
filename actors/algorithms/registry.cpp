#include <stdexcept>
#include <utility>

#include "actors/algorithms/algorithm_kind.hpp"
#include "actors/algorithms/loop_run.hpp"

namespace fedsim::actors::algorithms {

// One line per algorithm: each kind is defined in its own file.
AlgorithmKind ts();
AlgorithmKind fts();
AlgorithmKind fts_de();
AlgorithmKind dp_fts();
AlgorithmKind dp_fts_de();
AlgorithmKind fed_pne();
AlgorithmKind dp_fed_pne();
AlgorithmKind hct();
AlgorithmKind kernel_ts();
AlgorithmKind fed1_ucb();
AlgorithmKind fn_ucb();
AlgorithmKind gp_bo();
AlgorithmKind batched_bo();
AlgorithmKind rgpe();
AlgorithmKind taf();

namespace {

/// The kinds a program registered (register_algorithm), and whether the registry was read.
std::vector<AlgorithmKind>& registered() {
  static std::vector<AlgorithmKind> r;
  return r;
}
bool& registry_read() {
  static bool read = false;
  return read;
}

}  // namespace

void register_algorithm(AlgorithmKind kind) {
  if (kind.actors)
    throw std::logic_error("register_algorithm('" + kind.name +
                           "'): the actors run only fedsim's own algorithms; set actors = false "
                           "(its loop runs it: --driver loop)");
  if (registry_read())
    throw std::logic_error("register_algorithm('" + kind.name +
                           "'): the registry was already read; register before loading any "
                           "scenario or looking up any algorithm");
  registered().push_back(std::move(kind));
}

const std::vector<AlgorithmKind>& algorithm_kinds() {
  static const std::vector<AlgorithmKind> kinds = [] {
    registry_read() = true;
    std::vector<AlgorithmKind> k{ts(),      fts(),     fts_de(),     dp_fts(),
                                 dp_fts_de(), fed_pne(), dp_fed_pne(), hct(),
                                 kernel_ts(), fed1_ucb(), fn_ucb(),
                                 gp_bo(),     batched_bo(), rgpe(), taf()};
    for (AlgorithmKind& r : registered()) k.push_back(std::move(r));
    registered().clear();
    for (std::size_t i = 0; i < k.size(); ++i) {
      // A kind is what its family asks of it: an FBO kind has an engine variant, an X-armed
      // kind its traits, and names are unique.
      const bool fbo = k[i].family == Family::fbo;
      if (fbo != k[i].fbo.has_value() || fbo == k[i].xarmed.has_value())
        throw std::logic_error("algorithm '" + k[i].name + "': traits of another family");
      if (!k[i].loop) throw std::logic_error("algorithm '" + k[i].name + "': no loop");
      if (fbo && !k[i].fbo->variant && !variant_with_traits(k[i].fbo->traits))
        throw std::logic_error("algorithm '" + k[i].name + "': no engine variant has its traits");
      for (std::size_t p = 0; p < k[i].parameters.size(); ++p) {
        const Parameter& q = k[i].parameters[p];
        if (!q.problem(q.default_value).empty())
          throw std::logic_error("algorithm '" + k[i].name + "': parameter '" + q.name +
                                 "' has a default its rule refuses");
        for (std::size_t r = 0; r < p; ++r)
          if (k[i].parameters[r].name == q.name)
            throw std::logic_error("algorithm '" + k[i].name + "': parameter '" + q.name +
                                   "' declared twice");
      }
      for (std::size_t j = 0; j < i; ++j)
        if (k[j].name == k[i].name)
          throw std::logic_error("algorithm '" + k[i].name + "' registered twice");
    }
    return k;
  }();
  return kinds;
}

std::string to_string(Family family) {
  switch (family) {
    case Family::fbo: return "FBO";
    case Family::xarmed: return "X-armed";
  }
  throw std::logic_error("to_string: not an algorithms::Family value");
}

namespace {

/// A kind with its names and family, every other member at its default.
AlgorithmKind named_kind(std::string name, Family family, std::string doc, std::string source) {
  AlgorithmKind k;
  k.name = std::move(name);
  k.family = family;
  k.doc = std::move(doc);
  k.source = std::move(source);
  return k;
}

}  // namespace

AlgorithmKind fbo_kind(std::string name, fbo::Algorithm variant, std::string doc,
                       std::string source) {
  AlgorithmKind k = named_kind(std::move(name), Family::fbo, std::move(doc), std::move(source));
  k.fbo = AlgorithmKind::Fbo{variant, fbo::traits(variant)};
  k.loop = fbo_loop;
  return k;
}

AlgorithmKind fbo_plugin_kind(std::string name, fbo::AlgorithmTraits traits, std::string doc,
                              std::string source) {
  AlgorithmKind k = named_kind(std::move(name), Family::fbo, std::move(doc), std::move(source));
  k.fbo = AlgorithmKind::Fbo{std::nullopt, traits};
  return k;
}

AlgorithmKind xarmed_kind(std::string name, XarmedTraits traits, std::string doc,
                          std::string source) {
  AlgorithmKind k = named_kind(std::move(name), Family::xarmed, std::move(doc), std::move(source));
  k.xarmed = traits;
  return k;
}

const AlgorithmKind* find_algorithm(const std::string& name) {
  for (const AlgorithmKind& k : algorithm_kinds())
    if (k.name == name) return &k;
  return nullptr;
}

const AlgorithmKind& algorithm(const std::string& name) {
  if (const AlgorithmKind* k = find_algorithm(name)) return *k;
  throw std::logic_error("no algorithm is registered as '" + name + "'");
}

const AlgorithmKind& algorithm(fbo::Algorithm variant) {
  for (const AlgorithmKind& k : algorithm_kinds())
    if (k.fbo && k.fbo->variant == variant) return k;
  throw std::logic_error("no algorithm is registered for an fbo::Algorithm value");
}

std::optional<fbo::Algorithm> variant_with_traits(const fbo::AlgorithmTraits& t) {
  // Every value of the enum: fbo::traits throws for the first past its last.
  for (int i = 0;; ++i) {
    const auto v = static_cast<fbo::Algorithm>(i);
    fbo::AlgorithmTraits u{};
    try {
      u = fbo::traits(v);
    } catch (const std::logic_error&) {
      break;
    }
    if (u.sends_messages == t.sends_messages && u.server == t.server &&
        u.is_private == t.is_private && u.regional == t.regional)
      return v;
  }
  return std::nullopt;
}

std::vector<std::string> algorithm_names() {
  return names_where([](const AlgorithmKind&) { return true; });
}

std::vector<std::string> algorithm_names(Family family) {
  return names_where([family](const AlgorithmKind& k) { return k.family == family; });
}

std::string joined(const std::vector<std::string>& names, const std::string& separator) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : separator) + n;
  return out;
}

std::string algorithms_markdown() {
  std::string out = "| `algorithm.name` | family | what | source |\n|---|---|---|---|\n";
  for (const AlgorithmKind& k : algorithm_kinds())
    out += "| `" + k.name + "` | " + to_string(k.family) + " | " + k.doc + " | " + k.source +
           " |\n";
  return out;
}

}  // namespace fedsim::actors::algorithms
