// The subset reader of rule files' YAML against yaml-cpp (Note: [Rule file YAML] in
// engine/src/rules/yaml_tree.cc): on every YAML file of rules/ and tests/, and on crafted texts at the
// subset's edges, a text the reader accepts gives the tree YAML::Load gives (kinds, scalars, marks),
// and a text it refuses is parsed by yaml-cpp with yaml-cpp's answer or error.
#include "rules/yaml_tree.h"
#include "source_paths.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

namespace triage {
namespace {
namespace fs = std::filesystem;

std::string MarkText(const YAML::Mark& m) {
  return std::to_string(m.line) + ":" + std::to_string(m.column) + "@" + std::to_string(m.pos);
}

// A node graph (yaml-cpp's or a YamlTree's) written out with every kind, scalar and mark, for
// comparing two of them.
template <typename Node>
void Dump(const Node& n, std::string* out) {
  *out += MarkText(n.Mark());
  switch (n.Type()) {
    case YAML::NodeType::Null: *out += " ~\n"; return;
    case YAML::NodeType::Scalar: *out += " =" + n.Scalar() + "|\n"; return;
    case YAML::NodeType::Sequence:
      *out += " [" + std::to_string(n.size()) + "\n";
      for (const Node& item : n) Dump(item, out);
      *out += "]\n";
      return;
    case YAML::NodeType::Map:
      *out += " {" + std::to_string(n.size()) + "\n";
      for (const auto& kv : n) {
        Dump(kv.first, out);
        Dump(kv.second, out);
      }
      *out += "}\n";
      return;
    default: *out += " ?\n"; return;
  }
}

// YAML::Load's answer: the dumped tree, or the error with its mark.
std::string YamlCppAnswer(const std::string& text) {
  try {
    std::string out;
    Dump(YAML::Load(text), &out);
    return out;
  } catch (const YAML::Exception& e) {
    return "error " + MarkText(e.mark) + " " + e.msg;
  }
}

std::string TreeAnswer(const std::string& text, bool* subset) {
  YamlTree tree;
  *subset = ReadYamlSubset(text, &tree);
  try {
    if (!*subset) ParseYamlWithYamlCpp(text, &tree);
    std::string out;
    Dump(tree.Root(), &out);
    return out;
  } catch (const YAML::Exception& e) {
    return "error " + MarkText(e.mark) + " " + e.msg;
  }
}

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<fs::path> YamlFiles(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file() && (e.path().extension() == ".yaml" || e.path().extension() == ".yml")) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(YamlTree, SubsetReaderGivesYamlCppsTreeOnEveryRuleFile) {
  std::vector<fs::path> files = YamlFiles(fs::path(TRIAGE_SOURCE_DIR) / "rules");
  ASSERT_GT(files.size(), 100u);
  for (const fs::path& f : files) {
    std::string text = ReadFile(f);
    bool subset = false;
    EXPECT_EQ(TreeAnswer(text, &subset), YamlCppAnswer(text)) << f;
    // The point of the reader: the rule files a load reads lie in its subset (a new construct in one
    // only costs time, but should be noticed). taxonomy.yaml is compiled in, never loaded.
    if (f.filename() != "taxonomy.yaml") {
      EXPECT_TRUE(subset) << f << " is left to yaml-cpp";
    }
  }
}

TEST(YamlTree, SubsetReaderGivesYamlCppsTreeOnTestFiles) {
  size_t n = 0;
  for (const fs::path& f : YamlFiles(fs::path(TRIAGE_SOURCE_DIR) / "tests")) {
    std::string text = ReadFile(f);
    bool subset = false;
    EXPECT_EQ(TreeAnswer(text, &subset), YamlCppAnswer(text)) << f;
    ++n;
  }
  EXPECT_GT(n, 10u);
}

// Texts at the subset's edges, each in it or not: the answer is yaml-cpp's either way.
TEST(YamlTree, CraftedTextsAnswerAsYamlCpp) {
  const std::vector<std::string> texts = {
      "a: 1\n", "a: 1", "a: ~\nb: null\nc: Null\nd: NULL\ne: 'null'\nf: nulls\n",
      "a:\n  b: c\n  d:\n    - x\n    - y\n", "a:\n- x\n- y\nb: z\n", "- a\n- b: c\n  d: e\n- f\n",
      "a: 'it''s'\nb: \"q\\\"x\\\\y\\n\\t\"\n", "a: 'one\n  two\n\n  three'\n", "a: \"one\n  two \n   three\"\n",
      "a: |\n  one\n  two\n\n", "a: |-\n  one\n   two\n", "a: |+\n  one\n\n\nb: 1\n", "a: >\n  one\n  two\n\n  three\n",
      "a: >-\n  one\n    more\n  two\n", "a: |2\n    indented\n  base\n", "- m: |\n    x\n  n: 1\n",
      "a: >\n\n  lead\n", "a: |\n   \n  x\n", "a: |\n  x\n  ", "a: |\n  x", "a: |\n", "a: [x, 'y', \"z\", [1, 2], {k: v}]\n",
      "a: { k: v, 'q': \"w\" }\n", "a: []\nb: {}\n", "a: [x,]\n", "a: [x\n  , y]\n", "a: b: c\n", "a:\nb: 1\n", "a:\n",
      "a: x # c\nb: 'y' # d\n", "a: x#y\n", "# only a comment\n", "", "a: &r 1\nb: *r\n", "a: !t x\n", "? a\n: b\n",
      "---\na: 1\n", "a: 1\n...\n", "%YAML 1.2\n---\na: 1\n", "a:\tb\n", "a: b\r\n", "\xef\xbb\xbf" "a: 1\n", "a: \xff\n",
      "a: caf\xc3\xa9\nb: \xe2\x80\x9cq\xe2\x80\x9d x\n", "a: plain\n  continued\n", "a: plain\n\n  # comment\nb: 1\n",
      "a:\n  - x\n  -\n    y\n", "a:\n  -\n  - y\n", "  a: 1\n", "a: 1\n b: 2\n", "a: 1\n  b: 2\n", "- - x\n",
      "a: 'unclosed\n", "a: \"bad \\q\"\n", "a: -1\nb: - x\n", "a: x: y\n", "key with spaces: v\n'quoted key': v\n\"dq\": v\n",
      "a: b\na: c\n", "a: 0.5\nb: 1e3\nc: '3'\n", "a: |\n  x\n# comment\nb: 1\n", "a: |\n  x\n  # not a comment\n",
      "a: |\n    deeper\n  shallower\n", "a:\n  b: |\n    x\n  c: y\n", "a: >\n  x\n\n\n  y\n", "a: >\n  x\n   more\n  y\n",
      "a: |-\n\n", "a: >+\n  x\n\n", "a: 'x'y\n", "a: [x]y\n", "a: \"x\\\n  y\"\n", "a: \"\\u00e9\"\n", "a: {x}\n", "a: {x: }\n",
      "a: [a: b]\n", "a: [x, ? y]\n", "- x\n  - y\n", "a:\n  - x\n - y\n",
      "a: |\n  x\ty\n  \t\n", "a: |\n \tx\n", "a: |\n  x\n\tb: 1\n", "a: >\n  x\n  \ty\n  z\n", "a: >\n  x\n\n  \ty\n",
      "a: |\n\tx\n", "a: 'x\ty'\n", "a: x\t# c\n", "a: 'x\t\n\t\ty'\n", "'k\t': 'v'\t\n", "a:\t'x'\n", "a: [x, '\t']\n", "a: 'x'\t\n", "- |\n  x\n- >\n  y\n  z\n",
      // Keys, nulls, comments, indicators, folding and chomping, flow collections.
      "~: x\n", "null: y\nNULL: z\n", "'': e\n", "a: ''\nb: \"\"\n", "- ~\n- null\n- x\n", "a  : b\n", "a: b #c: d\n",
      "a: |+\n  x\n\n", "a: [ 'a, b', c ]\n", "\"a\\\"b\": 1\n", "a#b: c\n", "- 'x': y\n  z: w\n", "a: # c\n  b: 1\n",
      "a: 'b'   \n", "a:   \n  - x\n", "a:\n  - b\n  # comment\n  - c\n", "a:\n- x\n  y\n", "a: >\n  folded\n  # not comment\n",
      "a: >-\n  one\n\n\n  two\n  three\n", "a: |-\n  trail  \n", "a: [x, [y, [z]], {k: [1]}]\n", "a: {k: 'v, w'}\n",
      "- - x\n", "a:\n  b:\n    c:\n      - d\n      - e: f\n        g: h\n", "k: v\n\n\n\nk2: v2\n", "a: 1 # x\n# y\nb: 2\n",
      "a: \"x\\ty\\\\z\"\n", "a: 'x''''y'\n", "a: -x\nb: --y\n", "a: x:y\n", "a: http://x.y/z\n", "a: 'a: b'\n",
      "a: >2\n   x\n  y\n", "a: |1\n  x\n", "a: |\n    x\n  y\n", "- >\n x\n- y\n", "a:\n  - |\n    x\n  - y\n",
      "a: x\n  # deeper comment\nb: y\n", "a: 'x\n\n  y'\n", "a: \"x \n  y\"\n", "a: 'x\n  \n  y  '\n", "a: |\n  x\n\n  y\n\n\n",
      "a: >\n  x\n\n   y\n  z\n", "a: |2-\n    x\n", "a: |-2\n    x\n", "a: >+\n\n  x\n", "a:\n  |\n   x\n", "a:\n  'q'\n", "a:\n  plain\n",
      "- a\n-  b\n-   c: d\n    e: f\n", "[a, b]\n", "{a: b}\n", "a: [a,b]\n", "a: [ ]\n", "a: { }\n", "a: [\"x\", 'y' ]\n",
  };
  for (const std::string& text : texts) {
    bool subset = false;
    EXPECT_EQ(TreeAnswer(text, &subset), YamlCppAnswer(text)) << "text: " << text;
  }
}

// Random documents in and around the subset (nested maps and sequences, every scalar style, block
// scalars with their indicators, odd words, a byte inserted here and there): the answer is yaml-cpp's
// on each, and a good share lies in the subset.
std::string RandomScalar(std::mt19937& rng, int indent) {
  static const std::vector<std::string> kWords = {"a", "b c", "x-y", "null", "~", "Null", "1", "0.5", "-3", "it's",
                                                  "q\"x", "#h", "k#", "x:y", "a: b", "http://z", "caf\xc3\xa9", "\\t",
                                                  "  ", "", ":", "-", "- x", "[x]", "{k: v}", "'s'", "\"d\""};
  auto pick = [&](const std::vector<std::string>& v) { return v[rng() % v.size()]; };
  const std::string w = pick(kWords);
  switch (rng() % 10) {
    case 0: case 1: case 2: return w;
    case 3: case 4: {
      std::string q;
      for (char c : w) q += c == '\'' ? std::string("''") : std::string(1, c);
      return "'" + q + "'";
    }
    case 5: {
      std::string q;
      for (char c : w) q += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
      return "\"" + q + "\"";
    }
    case 6: {
      std::string out = "[";
      for (unsigned i = rng() % 4; i > 0; --i) out += pick({"x", "'y, z'", "\"q\"", "1", "[a]", "{k: v}", ""}) + (i > 1 ? ", " : "");
      return out + "]";
    }
    case 7: return "{" + pick({"", "k: v", "'q': x, a: [1]", "b: {c: d}"}) + "}";
    default: {
      std::string out = pick({"|", "|-", "|+", ">", ">-", ">+", "|2", ">1", "|-1"});
      const std::string base(static_cast<size_t>(indent + 2), ' ');
      for (unsigned i = rng() % 5; i > 0; --i) {
        switch (rng() % 6) {
          case 0: out += "\n"; break;
          case 1: out += "\n" + base + " " + pick(kWords); break;
          case 2: out += "\n" + std::string(rng() % static_cast<unsigned>(indent + 5), ' '); break;
          case 3: out += "\n" + base + "\t" + pick(kWords); break;
          default: out += "\n" + base + pick(kWords); break;
        }
      }
      return out;
    }
  }
}

std::string RandomNode(std::mt19937& rng, int indent, int depth) {
  const unsigned r = rng() % 20;
  if (depth > 3 || r < 6) return " " + RandomScalar(rng, indent);
  std::string out;
  if (r < 13) {
    for (unsigned i = 1 + rng() % 3; i > 0; --i) {
      static const std::vector<std::string> kKeys = {"k", "id", "t x", "'q k'", "\"d\"", "null", "a#b", "~"};
      out += "\n" + std::string(static_cast<size_t>(indent + 2), ' ') + kKeys[rng() % kKeys.size()] + ":" +
             RandomNode(rng, indent + 2, depth + 1);
    }
    return out;
  }
  const int seq = indent + static_cast<int>((rng() % 3) * 2);
  for (unsigned i = 1 + rng() % 3; i > 0; --i) out += "\n" + std::string(static_cast<size_t>(seq), ' ') + "-" + RandomNode(rng, seq, depth + 1);
  return out;
}

// A hostile nesting depth leaves the subset (the reader recurses per collection) and gets yaml-cpp's
// answer, not a stack overflow: 200,000 flow brackets on one line, and 3,000 block maps.
TEST(YamlTree, DeepNestingLeavesTheSubset) {
  const std::string flow = "a: " + std::string(200000, '[') + std::string(200000, ']') + "\n";
  std::string block;
  for (int i = 0; i < 3000; ++i) block += std::string(static_cast<size_t>(i), ' ') + "k" + std::to_string(i) + ":\n";
  for (const std::string* text : std::vector<const std::string*>{&flow, &block}) {
    bool subset = true;
    EXPECT_EQ(TreeAnswer(*text, &subset), YamlCppAnswer(*text));
    EXPECT_FALSE(subset);
  }
  // Rule files nest a few levels: 20 stays in the subset.
  const std::string shallow = "a: " + std::string(20, '[') + std::string(20, ']') + "\n";
  bool subset = false;
  EXPECT_EQ(TreeAnswer(shallow, &subset), YamlCppAnswer(shallow));
  EXPECT_TRUE(subset);
}

TEST(YamlTree, RandomTextsAnswerAsYamlCpp) {
  std::mt19937 rng(20261128);
  int in_subset = 0;
  const int n = 2000;
  for (int d = 0; d < n; ++d) {
    std::string text;
    for (unsigned k = 1 + rng() % 4; k > 0; --k) {
      static const std::vector<std::string> kTop = {"id", "category", "match", "examples", "x"};
      text += kTop[rng() % kTop.size()] + ":" + RandomNode(rng, 0, 1) + "\n";
      if (rng() % 5 == 0) text += "# comment\n";
    }
    if (rng() % 7 == 0) {
      static const std::vector<std::string> kNoise = {" ", "\n", "  ", "-", ":", "'", "\t", "#"};
      text.insert(rng() % text.size(), kNoise[rng() % kNoise.size()]);
    }
    bool subset = false;
    ASSERT_EQ(TreeAnswer(text, &subset), YamlCppAnswer(text)) << "text: " << text;
    in_subset += subset;
  }
  EXPECT_GT(in_subset, n / 5);
}

// The reader checks a text's bytes eight at a time while they are printable ASCII or line breaks
// (PlainBytes in yaml_tree.cc): every other byte, at every place in a word, must still send the text
// to yaml-cpp (a control byte, DEL, a byte of invalid UTF-8 or one it might break a line at), and
// what it reads must still be yaml-cpp's tree.
TEST(YamlTree, EveryByteAtEveryPlaceOfAWord) {
  const std::vector<std::string> inserts = {"\xc3\xa9", "\xe2\x80\x9c", "\xf0\x9f\x98\x80", "\xc2\x85", "\xe2\x80\xa8",
                                            "\xc3", "\xe2\x80", "\xed\xa0\x80", "\xc0\xaf"};
  std::vector<std::string> pieces = inserts;
  for (int b = 0; b < 256; ++b) pieces.push_back(std::string(1, static_cast<char>(b)));
  for (const std::string& piece : pieces) {
    const unsigned char b = static_cast<unsigned char>(piece[0]);
    const bool one_byte = piece.size() == 1;
    // Bytes the reader may read: printable ASCII, and tabs and line breaks (which it judges itself).
    const bool readable = !one_byte || (b >= 0x20 && b < 0x7f) || b == '\t' || b == '\n';
    for (size_t at = 0; at < 17; ++at) {
      for (const std::string& head : {std::string("a: 'abcdefghijklmnopqrstuvwxyz"), std::string("ab: 'abcdefghijklmnopqrstuvwxyz")}) {
        std::string text = head;
        text.insert(4 + at, piece);
        text += "'\nb: [x, y]\n";
        bool subset = false;
        ASSERT_EQ(TreeAnswer(text, &subset), YamlCppAnswer(text)) << "byte " << int(b) << " at " << at;
        if (!readable) {
          EXPECT_FALSE(subset) << "byte " << int(b) << " at " << at;
        }
      }
    }
  }
  // Words of printable text and line breaks only are read, wherever the lines break.
  YamlTree tree;
  for (size_t width = 1; width < 20; ++width) {
    std::string text;
    for (int k = 0; k < 6; ++k) text += "k" + std::to_string(k) + ": " + std::string(width, 'v') + "\n";
    EXPECT_TRUE(ReadYamlSubset(text, &tree)) << text;
  }
}

// The reader must take the constructs the rule files are written in (else the point is lost), and
// leave aside those it does not implement.
TEST(YamlTree, SubsetCoversTheRuleConstructsAndNoMore) {
  YamlTree tree;
  for (const char* in : {"a: 1\n", "a: |\n  x\n", "a: >-\n  x\n", "a:\n- x\n", "- a: 'b'\n  c: [d, e]\n", "a: { k: v }\n",
                         "a: 'x\n  y'\n", "a: |2\n    x\n"}) {
    EXPECT_TRUE(ReadYamlSubset(in, &tree)) << in;
  }
  for (const char* out : {"a: &r 1\nb: *r\n", "a: !t x\n", "? a\n: b\n", "---\na: 1\n", "a:\tb\n", "a:\n", "a: plain\n  continued\n",
                          "a: [x\n  , y]\n", "a: b: c\n", "a: 'unclosed\n", "  a: 1\n"}) {
    EXPECT_FALSE(ReadYamlSubset(out, &tree)) << out;
  }
}

TEST(YamlTree, NodesAnswerAsYamlCppNodes) {
  YamlTree tree;
  LoadYamlTree("a: x\nb: [1, 2]\nc:\n  d: e\n", &tree);
  YamlNode root = tree.Root();
  ASSERT_TRUE(root.IsMap());
  EXPECT_EQ(root.size(), 3u);
  EXPECT_EQ(root["a"].Scalar(), "x");
  EXPECT_EQ(root["b"].size(), 2u);
  EXPECT_EQ(root["c"]["d"].Mark().line, 3);
  YamlNode missing = root["zz"];
  EXPECT_FALSE(missing);
  EXPECT_THROW(missing.IsScalar(), YAML::InvalidNode);
  EXPECT_THROW(root["a"]["k"], YAML::BadSubscript);
  EXPECT_FALSE(root["b"]["k"]);
  EXPECT_TRUE(YamlNode());
  EXPECT_TRUE(YamlNode().IsNull());
  EXPECT_EQ(YamlNode().Mark().line, -1);
  EXPECT_FALSE(YamlNode()["k"]);
  double d = 0;
  int i = 0;
  EXPECT_TRUE(DecodeYaml(root["b"]["k"] ? root["b"] : tree.Root()["a"], &d) == false);
  YamlTree nums;
  LoadYamlTree("a: 0.25\nb: 7\nc: x\n", &nums);
  EXPECT_TRUE(DecodeYaml(nums.Root()["a"], &d));
  EXPECT_EQ(d, 0.25);
  EXPECT_TRUE(DecodeYaml(nums.Root()["b"], &i));
  EXPECT_EQ(i, 7);
  EXPECT_FALSE(DecodeYaml(nums.Root()["c"], &i));
}

// ForEachRepeatedKey (rule files' duplicate-key check) against the same walk through YamlNode's
// iteration, the way the check was written before it walked the tree's items: the same repeats, with
// the same places, in the same order, on texts with repeats at several depths, inside sequences and
// flow collections, past 32 keys, through an alias, and on every rule file.
std::vector<std::string> RepeatsByIteration(const YamlNode& node) {
  std::vector<std::string> out;
  std::function<void(const YamlNode&)> walk = [&](const YamlNode& n) {
    if (n.IsSequence()) {
      for (const YamlNode& item : n) walk(item);
      return;
    }
    if (!n.IsMap()) return;
    std::vector<std::pair<std::string, YAML::Mark>> seen;
    for (const auto& kv : n) {
      if (kv.first.IsScalar()) {
        const std::string& key = kv.first.Scalar();
        auto first = std::find_if(seen.begin(), seen.end(), [&](const auto& s) { return s.first == key; });
        if (first != seen.end()) {
          out.push_back(key + " " + MarkText(first->second) + " " + MarkText(kv.first.Mark()));
        } else {
          seen.emplace_back(key, kv.first.Mark());
        }
      }
      walk(kv.second);
    }
  };
  walk(node);
  return out;
}

std::vector<std::string> RepeatsOfTree(const YamlNode& node) {
  std::vector<std::string> out;
  ForEachRepeatedKey(node, [&](const std::string& key, const YAML::Mark& first, const YAML::Mark& again) {
    out.push_back(key + " " + MarkText(first) + " " + MarkText(again));
  });
  return out;
}

TEST(YamlTree, RepeatedKeysAsTheIterationFindsThem) {
  std::string wide = "w:\n";
  for (int k = 0; k < 40; ++k) wide += "  k" + std::to_string(k) + ": " + std::to_string(k) + "\n";
  wide += "  k3: again\n  k37: again\n  k3: thrice\n  k39: { a: 1, a: 2 }\n";
  const std::vector<std::string> texts = {
      "a: 1\nb: 2\na: 3\n",
      "a:\n  x: 1\n  x: 2\nb: 2\na: 3\nb: [ {c: 1, c: 2}, {c: 3} ]\n",
      "- a: 1\n  a: 2\n- b: {x: 1, y: 2, x: 3}\n- [ {z: 1, z: 1} ]\n",
      "top:\n  - inner: &anchor\n      q: 1\n      q: 2\n  - again: *anchor\ntop: 2\n",
      "? [1, 2]\n: x\n? [1, 2]\n: y\nk: 1\n\"k\": 2\n'k': 3\n",
      "a: 1\nb:\n  a: 1\n  b:\n    a: 1\n    a: 2\n  a: 3\na: 4\n",
      wide,
  };
  size_t repeats = 0;
  for (const std::string& text : texts) {
    YamlTree tree;
    LoadYamlTree(text, &tree);
    const std::vector<std::string> want = RepeatsByIteration(tree.Root());
    EXPECT_EQ(RepeatsOfTree(tree.Root()), want) << text;
    repeats += want.size();
  }
  EXPECT_GE(repeats, 15u);
  for (const fs::path& f : YamlFiles(fs::path(TRIAGE_SOURCE_DIR) / "rules")) {
    YamlTree tree;
    LoadYamlTree(ReadFile(f), &tree);
    EXPECT_EQ(RepeatsOfTree(tree.Root()), RepeatsByIteration(tree.Root())) << f;
  }
}

}  // namespace
}  // namespace triage
