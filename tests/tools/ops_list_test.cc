// `tetune ops` lists every entry of the operator registry (te/ops/registry.h),
// each on its own line with its --shape form and example, and nothing else.
// Argument: the tetune binary.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/child_process.h"
#include "te/ops/registry.h"

namespace tetune {
namespace {

std::string g_tetune;

// stdout of `tetune ops`.
std::string run_tetune_ops() {
  rt::Child child = rt::Child::spawn([](int fd) {
    dup2(fd, STDOUT_FILENO);
    execl(g_tetune.c_str(), g_tetune.c_str(), "ops", static_cast<char *>(nullptr));
    _exit(127);  // exec failed
  });
  child.read_until(std::chrono::steady_clock::now() + std::chrono::seconds(60));
  rt::ChildExit e = child.reap(false);
  EXPECT_TRUE(e.ok()) << "tetune ops: " << e.reason(60);
  return e.payload;
}

// Whitespace-separated words of a line.
std::vector<std::string> words(const std::string &line) {
  std::istringstream in(line);
  std::vector<std::string> w;
  for (std::string s; in >> s;) w.push_back(s);
  return w;
}

TEST(TetuneOps, ListsEveryRegisteredOpWithItsFormAndExample) {
  std::string out = run_tetune_ops();
  std::map<std::string, std::vector<std::string>> lines;  // first word -> the line's words
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    auto w = words(line);
    if (!w.empty()) lines[w[0]] = w;
  }
  std::set<std::string> names;
  for (const auto &e : ops::op_registry()) {
    names.insert(e.name);
    auto it = lines.find(e.name);
    ASSERT_NE(it, lines.end()) << "tetune ops does not list '" << e.name << "':\n" << out;
    ASSERT_GE(it->second.size(), 4u) << e.name;
    EXPECT_EQ(it->second[1], e.shape_help) << e.name;
    EXPECT_EQ(it->second[2], e.example) << e.name;
  }
  // Every other line is the header or the closing count.
  for (const auto &[first, w] : lines)
    if (!names.count(first)) {
      EXPECT_TRUE(first == "name" || w[1] == "operators.") << "unexpected line: " << first;
    }
  EXPECT_NE(out.find(std::to_string(ops::op_registry().size()) + " operators."), std::string::npos) << out;
}

}  // namespace
}  // namespace tetune

int main(int argc, char **argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (argc != 2) {
    std::fprintf(stderr, "usage: ops_list_test TETUNE_BINARY\n");
    return 2;
  }
  tetune::g_tetune = argv[1];
  return RUN_ALL_TESTS();
}
