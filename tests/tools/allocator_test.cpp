// The programs' allocator (CMakeLists.txt, FEDSIM_ALLOCATOR): built with jemalloc, the tests'
// own process and the fedsim binary allocate through it, not through glibc's malloc (a library
// order or a linker flag can silently lose it).
#include <catch2/catch.hpp>

#include <dlfcn.h>

#include <cstdlib>
#include <string>

#include "tests/tools/run_command.hpp"

TEST_CASE("fedsim's programs allocate with the allocator they were built with", "[allocator]") {
  const std::string allocator = FEDSIM_ALLOCATOR;
  using mallctl_fn = int (*)(const char*, void*, std::size_t*, void*, std::size_t);
  const auto mallctl = reinterpret_cast<mallctl_fn>(dlsym(RTLD_DEFAULT, "mallctl"));
  if (allocator == "system") {
    CHECK(mallctl == nullptr);
    return;
  }
  REQUIRE(allocator == "jemalloc");
  REQUIRE(mallctl != nullptr);
  // A block from malloc belongs to one of jemalloc's arenas.
  void* block = std::malloc(64);
  unsigned arena = 0;
  std::size_t size = sizeof arena;
  CHECK(mallctl("arenas.lookup", &arena, &size, &block, sizeof block) == 0);
  std::free(block);
  // The fedsim binary: jemalloc prints its statistics at exit when asked to.
  const auto r = fedsim::test::run_shell("MALLOC_CONF=stats_print:true " +
                                         std::string(FEDSIM_BINARY) + " --version");
  INFO(r.output.substr(0, 400));
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("Begin jemalloc statistics") != std::string::npos);
}
