// The YAML documents of rule files as a light tree (Note: [Rule file YAML] in yaml_tree.cc): every node
// keeps its kind, its scalar and the mark (line, column) yaml-cpp gives it, in three flat arrays, so a
// file's tree is a few allocations instead of yaml-cpp's node graph. `YamlNode` is a handle into it
// that answers as `YAML::Node` does for what the rule readers ask (kinds, scalars, marks, lookups by
// key, iteration, the exceptions a missing or misused node throws); the rules read one of its trees
// whether the subset reader or yaml-cpp's parser made it.
#ifndef TRIAGE_ENGINE_YAML_TREE_H_
#define TRIAGE_ENGINE_YAML_TREE_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/node/type.h>

namespace triage {

class YamlNode;

// One document: nodes in the order they start, their children's indices (a map's as key, value,
// key, value...), and the scalars' text.
struct YamlTree {
  struct Item {
    YAML::NodeType::value type;
    YAML::Mark mark;
    uint32_t scalar = 0;  // index into `scalars` (scalars only)
    uint32_t first = 0;   // collections: their children are children[first, first + count)
    uint32_t count = 0;
  };
  std::vector<Item> items;
  std::vector<uint32_t> children;
  std::vector<std::string> scalars;
  bool has_root = false;  // the document's root is items[0]

  void clear() {
    items.clear();
    children.clear();
    scalars.clear();
    has_root = false;
  }
  // The document's root; without a document, YAML::Node()'s answer (a defined null node).
  YamlNode Root() const;
};

class YamlEntry;

// Calls report(key, first, again) for each scalar key that a map at or under `node` names a second
// (third...) time, with the marks of its first and of this place: depth first, a map's pairs in order,
// a pair's key before its value (an alias's node walked at each place it is used).
void ForEachRepeatedKey(const YamlNode& node,
                        const std::function<void(const std::string& key, const YAML::Mark& first, const YAML::Mark& again)>& report);

// A node of a YamlTree, or one of yaml-cpp's two nodes that belong to no tree: the default-constructed
// one (a defined null node without a mark, as `YAML::Node()`) and the invalid one a lookup of a missing
// key returns (false, and throws YAML::InvalidNode naming that key when asked anything else).
class YamlNode {
 public:
  YamlNode() = default;

  bool IsDefined() const { return valid_; }
  explicit operator bool() const { return IsDefined(); }
  bool operator!() const { return !IsDefined(); }

  YAML::NodeType::value Type() const {
    CheckValid();
    return tree_ ? item().type : YAML::NodeType::Null;
  }
  bool IsNull() const { return Type() == YAML::NodeType::Null; }
  bool IsScalar() const { return Type() == YAML::NodeType::Scalar; }
  bool IsSequence() const { return Type() == YAML::NodeType::Sequence; }
  bool IsMap() const { return Type() == YAML::NodeType::Map; }

  // A scalar's text; "" for any other node.
  const std::string& Scalar() const;
  YAML::Mark Mark() const {
    CheckValid();
    return tree_ ? item().mark : YAML::Mark::null_mark();
  }
  // A sequence's items or a map's pairs; 0 for other nodes.
  std::size_t size() const;

  // The value of the first pair whose key is a scalar equal to `key`; an invalid node if none (or
  // this is not a map). Throws YAML::BadSubscript on a scalar, as yaml-cpp does.
  YamlNode operator[](std::string_view key) const;
  // A sequence's item `i`, or an invalid node past its end (as yaml-cpp's); on a scalar, throws
  // YAML::BadSubscript. Meant for sequences: on a map it gives an invalid node (yaml-cpp would look
  // for a key equal to `i`).
  YamlNode operator[](std::size_t i) const;

  // Iteration as yaml-cpp's: a sequence's entries are its items, a map's have `first` and `second`.
  class Iterator;
  Iterator begin() const;
  Iterator end() const;

 private:
  friend struct YamlTree;
  friend class YamlEntry;
  friend void ForEachRepeatedKey(const YamlNode& node,
                                 const std::function<void(const std::string&, const YAML::Mark&, const YAML::Mark&)>& report);
  YamlNode(const YamlTree* tree, uint32_t index) : tree_(tree), index_(index) {}
  static YamlNode Invalid(std::string key) {
    YamlNode n;
    n.valid_ = false;
    n.invalid_key_ = std::move(key);
    return n;
  }
  void CheckValid() const {
    if (!valid_) throw YAML::InvalidNode(invalid_key_);
  }
  const YamlTree::Item& item() const { return tree_->items[index_]; }

  const YamlTree* tree_ = nullptr;
  uint32_t index_ = 0;
  bool valid_ = true;
  std::string invalid_key_;
};

// What iterating a node yields: the item of a sequence (its `first` and `second` invalid), or a map's
// pair (the entry itself invalid), as yaml-cpp's iterator_value.
class YamlEntry : public YamlNode {
 public:
  YamlNode first = YamlNode::Invalid("");
  YamlNode second = YamlNode::Invalid("");

 private:
  friend class YamlNode::Iterator;
  YamlEntry() : YamlNode(YamlNode::Invalid("")) {}
  explicit YamlEntry(const YamlNode& item) : YamlNode(item) {}
};

class YamlNode::Iterator {
 public:
  YamlEntry operator*() const;
  Iterator& operator++() {
    i_ += map_ ? 2 : 1;
    return *this;
  }
  bool operator!=(const Iterator& o) const { return i_ != o.i_; }
  bool operator==(const Iterator& o) const { return i_ == o.i_; }

 private:
  friend class YamlNode;
  Iterator(const YamlTree* tree, uint32_t i, bool map) : tree_(tree), i_(i), map_(map) {}
  const YamlTree* tree_;
  uint32_t i_;  // index into tree_->children
  bool map_;
};

// Builds a YamlTree from start/end events, as yaml-cpp's node builder does from its parser's.
class YamlTreeBuilder {
 public:
  explicit YamlTreeBuilder(YamlTree* tree) : tree_(tree) { tree_->clear(); }
  uint32_t Scalar(const YAML::Mark& mark, std::string value);
  uint32_t Null(const YAML::Mark& mark);
  uint32_t StartSequence(const YAML::Mark& mark) { return Start(YAML::NodeType::Sequence, mark); }
  uint32_t StartMap(const YAML::Mark& mark) { return Start(YAML::NodeType::Map, mark); }
  void End();
  // An alias: the node `index` again, shared as yaml-cpp shares it.
  void Alias(uint32_t index) { Add(index); }

 private:
  uint32_t Start(YAML::NodeType::value type, const YAML::Mark& mark);
  uint32_t New(YAML::NodeType::value type, const YAML::Mark& mark);
  void Add(uint32_t index);

  YamlTree* tree_;
  std::vector<uint32_t> pending_;  // children of the open collections, innermost last
  std::vector<std::pair<uint32_t, std::size_t>> open_;  // each open collection and where its children start
};

// Parses the first document of `text` into `tree` as YAML::Load would (the same nodes, scalars and
// marks; the same exceptions): by the subset reader when the text lies in its subset, else by yaml-cpp.
void LoadYamlTree(const std::string& text, YamlTree* tree);
// The two ways, for tests: the subset reader (false, `tree` unspecified, where the text is outside
// its subset) and yaml-cpp's parser driven through its event API.
bool ReadYamlSubset(const std::string& text, YamlTree* tree);
void ParseYamlWithYamlCpp(const std::string& text, YamlTree* tree);

// yaml-cpp's conversions of a scalar (YAML::convert<T>::decode), for the same answers, read in the
// "C" locale whatever the process's global locale (Note: [Numbers in the C locale] in yaml_tree.cc).
bool DecodeYaml(const YamlNode& node, double* out);
bool DecodeYaml(const YamlNode& node, int* out);

}  // namespace triage

#endif  // TRIAGE_ENGINE_YAML_TREE_H_
