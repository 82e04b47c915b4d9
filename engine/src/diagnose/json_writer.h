// The one JSON writer: every JSON the engine and its programs print (the report's output contract,
// a rule load's problems, probe evidence) is written through JsonObject, with strings escaped by
// AppendJsonString (escape.h).
#ifndef TRIAGE_ENGINE_JSON_WRITER_H_
#define TRIAGE_ENGINE_JSON_WRITER_H_

#include <string>
#include <string_view>
#include <vector>

#include "diagnose/escape.h"
#include "triage/locale_free.h"

namespace triage {

// Writes one JSON object to *out: '{' when constructed, '}' when destroyed; members in call order.
class JsonObject {
 public:
  explicit JsonObject(std::string* out) : out_(out) { out_->push_back('{'); }
  ~JsonObject() { out_->push_back('}'); }
  JsonObject(const JsonObject&) = delete;
  JsonObject& operator=(const JsonObject&) = delete;

  // Starts a member; its value is what the caller appends to out() next.
  void Key(std::string_view k) {
    if (!first_) out_->push_back(',');
    first_ = false;
    AppendJsonString(out_, k);
    out_->push_back(':');
  }
  void Str(std::string_view k, std::string_view v) { Key(k); AppendJsonString(out_, v); }
  void Int(std::string_view k, long long v) { Key(k); *out_ += std::to_string(v); }
  void Bool(std::string_view k, bool v) { Key(k); *out_ += v ? "true" : "false"; }
  // A finite number, as printf's "%.3f" (the report's confidences) or "%.<precision>g" prints it in
  // the "C" locale (locale_free.h).
  void Num(std::string_view k, double v, NumberStyle style = NumberStyle::kFixed, int precision = 3) {
    Key(k);
    AppendNumber(out_, v, style, precision);
  }
  void StrList(std::string_view k, const std::vector<std::string>& v) {
    Key(k);
    out_->push_back('[');
    for (size_t i = 0; i < v.size(); ++i) {
      if (i) out_->push_back(',');
      AppendJsonString(out_, v[i]);
    }
    out_->push_back(']');
  }
  std::string* out() const { return out_; }

 private:
  std::string* out_;
  bool first_ = true;
};

// Writes `items` as the member `key` of `obj`: an array with one object per item, filled by write(o, item).
template <typename T, typename F>
void List(JsonObject& obj, std::string_view key, const std::vector<T>& items, F write) {
  std::string* out = obj.out();
  obj.Key(key);
  out->push_back('[');
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out->push_back(',');
    JsonObject o(out);
    write(o, items[i]);
  }
  out->push_back(']');
}

}  // namespace triage

#endif  // TRIAGE_ENGINE_JSON_WRITER_H_
