// Environment facts (log/env_facts.h) and the YAML conditions that read them and the input
// (Note: [Conditions]: `unless:`, `needs:`, a hypothesis' `when:` mapping and `first:`), and ctx.facts.
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "log/env_facts.h"
#include "lua_test_rules.h"
#include "triage/tools.h"
#include "triage/triage.h"
#include "source_paths.h"

namespace triage {
namespace {

using lua_test::kMatmul;
using lua_test::MatmulRule;

std::string FactsOf(const std::string& text) {
  EnvFacts f;
  f.Feed(text);
  f.Finish();
  std::string out;
  for (const auto& [name, value] : f.Values()) out += name + "=" + value + " ";
  return out;
}

// Lines as the corpus logs print them (Ultralytics' banner, a Windows traceback, a macOS one, a
// script's own device check, collect_env, nvidia-smi's header).
TEST(EnvFacts, ReadsWhatTheLinesState) {
  EXPECT_EQ(FactsOf("Ultralytics YOLOv8.1.3 \xF0\x9F\x9A\x80 Python-3.10.11 torch-2.1.0+cpu\n"),
            "build=cpu python=3.10 ");
  EXPECT_EQ(FactsOf("ERROR: torch-2.1.2+cu121-cp311-cp311-win_amd64.whl is not a supported wheel on this platform.\n"),
            "build=cuda torch_cuda=12.1 ");
  EXPECT_EQ(FactsOf("  File \"C:\\Users\\alice\\projects\\digits\\train.py\", line 11, in <module>\n"), "os=windows ");
  EXPECT_EQ(FactsOf("File \"/Users/ruixingw/mace/.venv/lib/python3.12/site-packages/mace/modules/models.py\", line 569"),
            "os=macos python=3.12 ");
  EXPECT_EQ(FactsOf("torch.cuda.is_available(): False\n"), "cuda_available=false ");
  EXPECT_EQ(FactsOf("Is CUDA available: True\nCUDA used to build PyTorch: 11.8\n"),
            "build=cuda cuda_available=true torch_cuda=11.8 ");
  EXPECT_EQ(FactsOf("| NVIDIA-SMI 535.104.05             Driver Version: 535.104.05   CUDA Version: 12.2     |\n"),
            "driver=535.104.05 driver_cuda=12.2 ");
  EXPECT_EQ(FactsOf("Using device: mps\n"), "device=mps ");
  EXPECT_EQ(FactsOf("train.py --model_name_or_path t5-base --fp16 --num_workers 4\n"), "num_workers=4 precision=fp16 ");
  EXPECT_EQ(FactsOf("accelerate launch --mixed_precision=\"bf16\" train.py\n"), "precision=bf16 ");
  EXPECT_EQ(FactsOf("Using 16bit None Automatic Mixed Precision (AMP)\n"), "precision=fp16 ");
  EXPECT_EQ(FactsOf("Using native 16bit precision.\n"), "precision=fp16 ");
  // the AMP mixin of Lightning 0.x up to 0.7 (trainer/auto_mix_precision.py, `log.info('Using 16bit precision.')`), as
  // Lightning-AI/pytorch-lightning#1844 shows it behind an absl prefix
  EXPECT_EQ(FactsOf("I0515 10:03:17.552285 12848 auto_mix_precision.py:52] Using 16bit precision.\n"), "precision=fp16 ");
  EXPECT_EQ(FactsOf("this run will NOT use 16 bit precision\n"), "");
  EXPECT_EQ(FactsOf("Using amp fp16 backend\n"), "precision=fp16 ");
  EXPECT_EQ(FactsOf("Using bfloat16 Automatic Mixed Precision (AMP)\n"), "precision=bf16 ");
}

// The fp16 evidence that is neither a flag nor a banner: a skipped step reported by a loss scaler that exists only
// for float16 (apex amp, apex's and DeepSpeed's FP16_Optimizer), and DeepSpeed's 2025 printout of its pydantic
// precision settings, each as its source formats it. DeepSpeed ZeRO's OVERFLOW line, which ZeRO-3 also printed
// under bf16 (DeepSpeed#2911), and a disabled precision model state nothing.
TEST(EnvFacts, ReadsFloat16OnlyScalersAndDeepSpeedPrecisionModels) {
  const char* const kFp16[] = {
      "Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 32768.0",
      "Gradient overflow, skipping update",
      "Grad overflow on iteration 212",
      "OVERFLOW! Skipping step. Attempted loss scale: 4294967296",
      "[Rank 0] Overflow detected. Skipping step. Attempted loss scale: 65536, reducing to 32768.0",
      "  float16_config ............... enabled=True auto_cast=False loss_scale=0.0 initial_scale_power=16",
  };
  for (const char* line : kFp16) EXPECT_EQ(FactsOf(std::string(line) + "\n"), "precision=fp16 ") << line;
  EXPECT_EQ(FactsOf("  bfloat16_config .............. enabled=True immediate_grad_update=False\n"), "precision=bf16 ");
  for (const char* line : {"[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, reducing to 32768",
                           "  float16_config ............... enabled=False auto_cast=False loss_scale=0.0"}) {
    EXPECT_EQ(FactsOf(std::string(line) + "\n"), "") << line;
  }
}

// More ways a log states the run's precision, each as its source prints it: Lightning 2.1+'s banner ("16-bit"), its
// warning about the legacy value (both forms, lightning_fabric/connector.py), accelerate's state line, a DeepSpeed
// config logged as a dict, apex's banner, a dtype set to torch's half types; and Lightning's fallback from fp16 AMP on
// a CPU, which names 16 but trains in bf16. O0, a float32 dtype and a disabled DeepSpeed section state nothing.
TEST(EnvFacts, ReadsMoreStatementsOfThePrecision) {
  const char* const kFp16[] = {
      "Using 16-bit Automatic Mixed Precision (AMP)",
      "lightning_fabric/connector.py:571: `precision=16` is supported for historical reasons but its usage is discouraged. Please set your precision to 16-mixed instead!",
      "lightning_fabric/connector.py:554: UserWarning: 16 is supported for historical reasons but its usage is discouraged. Please set your precision to 16-mixed instead!",
      "Mixed precision type: fp16",
      "ds_config: {'fp16': {'enabled': True, 'loss_scale': 0}, 'zero_optimization': {'stage': 2}}",
      "Selected optimization level O1:  Insert automatic casts around Pytorch functions and Tensor methods.",
      "model = AutoModelForCausalLM.from_pretrained(path, torch_dtype=torch.float16)",
      "Instantiating LlamaForCausalLM model under default dtype torch.float16.",
  };
  for (const char* line : kFp16) EXPECT_EQ(FactsOf(std::string(line) + "\n"), "precision=fp16 ") << line;
  const char* const kBf16[] = {
      "accelerator_connector.py:556: You passed `Trainer(accelerator='cpu', precision='16-mixed')` but AMP with fp16 is not supported on CPU. Using `precision='bf16-mixed'` instead.",
      "UserWarning: You passed `Trainer(accelerator='cpu', precision=16)` but native AMP is not supported on CPU. Using `precision='bf16'` instead.",
      "Mixed precision type: bf16",
      "lightning_fabric/connector.py:563: `precision='bf16'` is supported for historical reasons but its usage is discouraged. Please set your precision to bf16-mixed instead!",
      "Instantiating Qwen2ForCausalLM model under default dtype torch.bfloat16.",
  };
  for (const char* line : kBf16) EXPECT_EQ(FactsOf(std::string(line) + "\n"), "precision=bf16 ") << line;
  for (const char* line : {"Selected optimization level O0:  Pure FP32 training.", "Mixed precision type: no",
                           "ds_config: {'bf16': {'enabled': False}, 'zero_optimization': {'stage': 3}}",
                           "model = AutoModel.from_pretrained(path, torch_dtype=torch.float32)"}) {
    EXPECT_EQ(FactsOf(std::string(line) + "\n"), "") << line;
  }
}

// A training script's AMP switch is an fp16 run (torch.cuda.amp's autocast is float16 on CUDA); a value that turns it
// off, a bf16 dtype on the same line (timm's --amp-dtype) and the dtype option alone are not (command lines of the
// D-FINE and timm threads, rules/README.md "Wordings across releases": precision fact).
TEST(EnvFacts, ReadsAScriptsAmpSwitchAsFp16) {
  for (const char* line :
       {"CUDA_VISIBLE_DEVICES=0 torchrun --master_port=25350 --nproc_per_node=1 train.py -c configs/dfine/objects365/dfine_hgnetv2_${model}_obj365.yml --use-amp --seed=0 -t dfine_{model}_obj2coco.pth",
        "python train.py /data/imagenet --model resnet50 --amp", "python main.py --use_amp --epochs 10",
        "python train.py --amp=True"}) {
    EXPECT_EQ(FactsOf(std::string(line) + "\n"), "precision=fp16 ") << line;
  }
  for (const char* line : {"python train.py --amp False", "python train.py --amp 0",
                           "python train.py --model vit_base --amp --amp-dtype bfloat16",
                           "python train.py --amp-dtype float16", "python train.py --ampere-only"}) {
    EXPECT_EQ(FactsOf(std::string(line) + "\n"), "") << line;
  }
}

// Note: [App fact]: the app's code folder in a frame or log line, or a line only the app prints (lines as the
// corpus logs print them: ComfyUI#5278's traceback, sd-webui-controlnet#2105's portable web UI, Fooocus' log,
// sd-scripts' LoRA trainer).
TEST(EnvFacts, ReadsTheAppFromItsCodePathsAndItsOwnLines) {
  const std::pair<const char*, const char*> kCases[] = {
      {"  File \"C:\\ComfyUI_windows_portable\\ComfyUI\\execution.py\", line 317, in execute\n", "app=comfyui os=windows "},
      {"2024-12-16 17:10:56,767 - root - ERROR - !!! Exception during processing !!! Allocation on device \n", "app=comfyui "},
      {"  File \"H:\\AI-ComfyUI\\python_embeded\\Lib\\site-packages\\torch\\nn\\modules\\conv.py\", line 554\n",
       "app=comfyui os=windows "},
      {"Error occurred when executing INPAINT_LoadFooocusInpaint:\n", "app=comfyui "},
      // ComfyUI's executor after an out-of-memory error (execution.py, 2024+)
      {"Got an OOM, unloading all loaded models.\n", "app=comfyui "},
      // ComfyUI's start-up line, as pasted under an fp8 error (kijai/ComfyUI-HunyuanVideoWrapper#381)
      {"ComfyUI version: 0.3.14\n", "app=comfyui "},
      {"      File \"F:\\sd.webui\\webui\\modules\\sd_hijack_optimizations.py\", line 518, in forward\n",
       "app=webui os=windows "},
      {"  File \"D:\\Fooocus_win64\\Fooocus\\modules\\async_worker.py\", line 913, in worker\n", "app=fooocus os=windows "},
      {"  File \"/home/u/kohya_ss/sd-scripts/train_network.py\", line 1012, in train\n", "app=kohya os=linux "},
      // A ComfyUI log naming the web UI's models folder as an extra search path states no second app.
      {"  File \"F:\\AI\\ComfyUI\\comfy\\sd.py\", line 1\n"
       "Adding extra search path checkpoints F:\\AI\\Automatic1111\\stable-diffusion-webui\\models/Stable-diffusion\n",
       "app=comfyui os=windows "},
      // The app's name alone (a model or a node named after it) states nothing.
      {"Loading ComfyUI-style workflow json\n", ""},
  };
  for (const auto& [text, want] : kCases) EXPECT_EQ(FactsOf(text), want) << text;
}

TEST(EnvFacts, AssertsOnlyWhatALineSaysIsOn) {
  // A flag or option turned off states nothing, and `--fp16_full_eval` is another option.
  EXPECT_EQ(FactsOf("fp16: False\nbf16=False\n--fp16 false\n--fp16_full_eval\n"), "");
  // A Windows path written with forward slashes is not a macOS /Users/ path.
  EXPECT_EQ(FactsOf("  File \"C:/Users/bob/train.py\", line 3\n"), "os=windows ");
  // A URL is no drive letter.
  EXPECT_EQ(FactsOf("see https://pytorch.org/get-started/locally/\n"), "");
}

TEST(EnvFacts, AFactStatedTwoWaysIsUnknown) {
  EnvFacts f;
  f.Feed("torch 2.1.0+cu118\ntorchaudio 2.1.0+cpu\n  File \"/home/u/train.py\", line 1\n");
  f.Finish();
  EXPECT_EQ(f.Get("build"), nullptr);
  ASSERT_NE(f.Get("os"), nullptr);
  EXPECT_EQ(f.Get("os")->value, "linux");
  EXPECT_EQ(f.Get("os")->text, "  File \"/home/u/train.py\", line 1");
}

TEST(EnvFacts, LinesSplitAcrossFeedsAndAnUnendedLastLine) {
  EnvFacts f;
  f.Feed("torch 2.0.1+cu");
  f.Feed("117\nPython 3.");
  f.Feed("11.4");
  EXPECT_EQ(f.Get("python"), nullptr);  // the last line is not read before Finish
  f.Finish();
  ASSERT_NE(f.Get("build"), nullptr);
  EXPECT_EQ(f.Get("torch_cuda")->value, "11.7");
  EXPECT_EQ(f.Get("python")->value, "3.11");
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Note: [Facts prefilter] in env_facts.cc: every text AddLine checks for is listed with its pair, and
// each one, at every place of lines of one to three 32-byte blocks, is found by the pair fingerprint, in
// the AVX2 loop and in the portable one. Fails with a `Has(line, ...)` text left out of the list, a pair's
// place or bucket wrong, or a block's last pair (the one that reads the next block's first byte) missed.
TEST(EnvFacts, EveryCheckedTextPassesThePrefilter) {
  const std::vector<std::string> listed = internal::FactsPrefilterTexts();
  const std::set<std::string> texts(listed.begin(), listed.end());
  const std::string source = ReadAll(std::string(TRIAGE_SOURCE_DIR) + "/engine/src/log/env_facts.cc");
  const std::regex has(R"re(Has\(line, "((?:[^"\\]|\\.)*)"\))re");
  int checks = 0;
  for (std::sregex_iterator it(source.begin(), source.end(), has), end; it != end; ++it, ++checks) {
    const std::string text = std::regex_replace((*it)[1].str(), std::regex(R"(\\\\)"), "\\");
    // "ROCM" is checked only inside the block of "used to build PyTorch:", which has its pair.
    if (text == "ROCM") continue;
    EXPECT_TRUE(texts.count(text)) << "AddLine checks for \"" << text << "\", which the prefilter does not list";
  }
  EXPECT_GE(checks, 30);
  for (const std::string& text : texts) {
    for (size_t width : {31, 32, 33, 63, 64, 65, 96, 97}) {
      for (size_t place = 0; place + text.size() <= width; ++place) {
        std::string line(width, 'x');
        line.replace(place, text.size(), text);
        for (bool portable : {false, true}) {
          ASSERT_EQ(internal::FactsPrefilterHit(std::string(width, 'x'), portable), width);
          const size_t hit = internal::FactsPrefilterHit(line, portable);
          EXPECT_TRUE(hit >= place && hit < place + text.size())
              << text << " at " << place << " of " << width << (portable ? " (portable)" : "") << ": " << hit;
        }
      }
    }
  }
}

// Note: [Facts prefilter]: the pairs and buckets leave training progress lines alone (the lines of
// tests/bench/gen_kinds.py's Hugging Face, key=value and tqdm logs), so the facts reader skips them whole.
// Fails with the pairs of main at 8aa5609f ("16_config", "verflow" and "VERFLOW" at 2 in buckets 4 and 5:
// "os" of "loss", "_n" of "grad_norm" and more passed), which sent every such line to AddLine.
TEST(EnvFacts, ProgressLinesPassNoPair) {
  const char* lines[] = {
      "{'loss': 2.5469, 'grad_norm': 0.757770, 'learning_rate': 9.9995e-04, 'epoch': 0.00}",
      "{'loss': 0.0286, 'grad_norm': 2.376439, 'learning_rate': 2.5000e-04, 'epoch': 3.00}",
      "2024-03-01 00:00:01,001 INFO trainer.py:214] [1/5000] loss=2.50150 grad_norm=2.3318 lr=0.001000 samples/s=893.3",
      "Epoch 0:   0%|          | 1/5000 [00:01<23:19, 42.75it/s, loss=2.502]",
      "Epoch 3:  97%|#########7| 4850/5000 [01:55<00:03, 41.99it/s, loss=0.0317]",
  };
  for (const char* line : lines) {
    for (bool portable : {false, true}) {
      EXPECT_EQ(internal::FactsPrefilterHit(line, portable), std::strlen(line))
          << line << (portable ? " (portable)" : "");
    }
  }
}

// The facts of every corpus log outside the held-out split, fed in pieces through the prefilter, and
// read line by line through it (ReadLine, the engine's read lines past the head), are those of AddLine on
// each of its lines: the same values and the same first texts.
TEST(EnvFacts, FeedReadsWhatEveryLineReads) {
  namespace fs = std::filesystem;
  const fs::path corpus = fs::path(TRIAGE_SOURCE_DIR) / "corpus";
  int logs = 0, stated = 0;
  for (auto it = fs::recursive_directory_iterator(corpus); it != fs::recursive_directory_iterator(); ++it) {
    if (it->is_directory() && it->path().filename() == "heldout" && it->path().parent_path() == corpus) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->path().filename() != "log.txt") continue;
    const std::string text = ReadAll(it->path().string());
    EnvFacts fed, read, each;
    for (size_t at = 0; at < text.size(); at += 4093) fed.Feed(std::string_view(text).substr(at, 4093));
    fed.Finish();
    for (size_t at = 0; at < text.size();) {
      size_t nl = text.find('\n', at);
      if (nl == std::string::npos) nl = text.size();
      read.ReadLine(std::string_view(text).substr(at, nl - at));
      each.AddLine(std::string_view(text).substr(at, nl - at));
      at = nl + 1;
    }
    ++logs;
    for (const std::string& name : EnvFacts::Names()) {
      const EnvFact* b = each.Get(name);
      for (const EnvFacts* facts : {&fed, &read}) {
        const char* how = facts == &fed ? " (fed)" : " (read)";
        const EnvFact* a = facts->Get(name);
        ASSERT_EQ(a == nullptr, b == nullptr) << it->path() << " " << name << how;
        if (a == nullptr) continue;
        EXPECT_EQ(a->value, b->value) << it->path() << " " << name << how;
        EXPECT_EQ(a->text, b->text) << it->path() << " " << name << how;
      }
      if (b != nullptr) ++stated;
    }
  }
  EXPECT_GT(logs, 500);
  EXPECT_GT(stated, 500);
}

std::string Problems(const LoadResult& r) {
  std::string out;
  for (const Problem& p : r.problems) out += p.ToString() + "\n";
  return out;
}

// A two-hypothesis matmul rule whose hypotheses carry `extra_first` and `extra_second` keys.
std::string TwoReadings(const std::string& top, const std::string& first, const std::string& second) {
  return std::string(R"(id: two
category: shape.matmul_mismatch
title: matmul
match:
  message: 'mat1 and mat2 shapes cannot be multiplied'
)") + top + R"(explain: 'x'
hypotheses:
  - id: general
)" + first + R"(    text: 'general'
    test: t
    fix: f
  - id: windows-only
)" + second + R"(    text: 'windows'
    test: t
    fix: f
verify: ok
examples:
  - match: 'RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x57600 and 64x128)'
)";
}

std::vector<std::string> HypothesisIds(const std::string& rule_yaml, const std::string& log, std::string* evidence = nullptr) {
  LoadResult r = LoadRulesFromStrings({{"two.yaml", rule_yaml}});
  EXPECT_TRUE(r.ok()) << Problems(r);
  const Report rep = Engine(r.rules).DiagnoseText(log);
  std::vector<std::string> ids;
  for (const Diagnosis& d : rep.diagnoses) {
    if (d.rule != "two") continue;
    for (const Hypothesis& h : d.hypotheses) {
      ids.push_back(h.id);
      if (evidence && h.id == "windows-only") *evidence = h.evidence;
    }
  }
  return ids;
}

const char kWindowsLog[] =
    "Traceback (most recent call last):\n"
    "  File \"C:\\Users\\alice\\projects\\digits\\train.py\", line 11, in <module>\n"
    "    out = model(x)\n"
    "RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x57600 and 64x128)\n";

TEST(Conditions, FirstMovesAHypothesisAheadWhenItsFactHolds) {
  const std::string rule = TwoReadings("", "", "    first: { facts: { os: windows } }\n");
  std::string evidence;
  EXPECT_EQ(HypothesisIds(rule, kWindowsLog, &evidence), (std::vector<std::string>{"windows-only", "general"}));
  EXPECT_EQ(evidence, "the input shows os windows (`  File \"C:\\Users\\alice\\projects\\digits\\train.py\", line 11, in <module>`)");
  EXPECT_EQ(HypothesisIds(rule, kMatmul), (std::vector<std::string>{"general", "windows-only"}));
  // A list of conditions: any one holding moves it.
  const std::string either = TwoReadings("", "", "    first: [{ facts: { os: macos } }, { message: '4x57600' }]\n");
  EXPECT_EQ(HypothesisIds(either, kMatmul), (std::vector<std::string>{"windows-only", "general"}));
  EXPECT_EQ(HypothesisIds(TwoReadings("", "", "    first: [{ facts: { os: macos } }, { message: '4x9999' }]\n"), kMatmul),
            (std::vector<std::string>{"general", "windows-only"}));
}

TEST(Conditions, WhenMappingKeepsAHypothesisOnlyWhereItHolds) {
  const std::string only = TwoReadings("", "", "    when: { facts: { os: [windows] } }\n");
  EXPECT_EQ(HypothesisIds(only, kWindowsLog), (std::vector<std::string>{"general", "windows-only"}));
  EXPECT_EQ(HypothesisIds(only, kMatmul), (std::vector<std::string>{"general"}));
  // `!value`: left out only where the input states that value; an unknown fact keeps it.
  const std::string not_windows = TwoReadings("", "    when: { facts: { os: '!windows' } }\n", "");
  EXPECT_EQ(HypothesisIds(not_windows, kWindowsLog), (std::vector<std::string>{"windows-only"}));
  EXPECT_EQ(HypothesisIds(not_windows, kMatmul), (std::vector<std::string>{"general", "windows-only"}));
  // A negation that holds is no evidence: a Linux path says nothing for the reading kept off Windows.
  const std::string linux_log = std::string("  File \"/home/u/train.py\", line 3, in <module>\n") + kMatmul + "\n";
  LoadResult r = LoadRulesFromStrings({{"two.yaml", not_windows}});
  ASSERT_TRUE(r.ok());
  const Report rep = Engine(r.rules).DiagnoseText(linux_log);
  ASSERT_FALSE(rep.diagnoses.empty());
  ASSERT_EQ(rep.diagnoses[0].hypotheses.size(), 2u);
  EXPECT_EQ(rep.diagnoses[0].hypotheses[0].evidence, "");
}

TEST(Conditions, UnlessAndNeedsReadTheMessageAndTheInput) {
  EXPECT_EQ(HypothesisIds(TwoReadings("unless: { input: 'Loss is nan' }\n", "", ""), kMatmul).size(), 2u);
  EXPECT_TRUE(HypothesisIds(TwoReadings("unless: { message: '4x57600' }\n", "", ""), kMatmul).empty());
  EXPECT_TRUE(HypothesisIds(TwoReadings("unless: { input: '64x128' }\n", "", ""), kMatmul).empty());
  EXPECT_TRUE(HypothesisIds(TwoReadings("needs: { message: '4x9999' }\n", "", ""), kMatmul).empty());
  EXPECT_EQ(HypothesisIds(TwoReadings("needs: { facts: { os: windows } }\n", "", ""), kWindowsLog).size(), 2u);
  EXPECT_TRUE(HypothesisIds(TwoReadings("needs: { facts: { os: windows } }\n", "", ""), kMatmul).empty());
}

// Note: [Facts from the head and the read lines] (diagnose/engine.cc): a line no rule reads states a fact
// only inside the input's first MiB; past it, the lines the engine reads (a traceback's frames) still do.
TEST(Conditions, FactsPastTheFirstMiBComeOnlyFromTheLinesTheEngineReads) {
  std::string filler;
  while (filler.size() < (size_t{1} << 20) + 4096) filler += "epoch 3 batch 17 done in 0.25 s\n";
  const std::string mac_line = "cache at /Users/alice/Library/Caches/digits\n";
  const std::string rule = TwoReadings("needs: { facts: { os: macos } }\n", "", "");
  EXPECT_EQ(HypothesisIds(rule, mac_line + filler + kMatmul).size(), 2u);  // in the head: read
  EXPECT_TRUE(HypothesisIds(rule, filler + mac_line + kMatmul).empty());   // past it, a skipped line: not read
  const std::string windows = TwoReadings("needs: { facts: { os: windows } }\n", "", "");
  EXPECT_EQ(HypothesisIds(windows, filler + kWindowsLog).size(), 2u);  // past it, a traceback's frame: read
}

TEST(Conditions, ACheckWithWhenIsShownOnlyWhereItHolds) {
  const std::string rule = TwoReadings("checks:\n  - 'nvidia-smi'\n  - { text: 'df -h /dev/shm', when: { facts: { os: '!windows' } } }\n", "", "");
  LoadResult r = LoadRulesFromStrings({{"two.yaml", rule}});
  ASSERT_TRUE(r.ok()) << Problems(r);
  const Report windows = Engine(r.rules).DiagnoseText(kWindowsLog);
  ASSERT_FALSE(windows.diagnoses.empty());
  EXPECT_EQ(windows.diagnoses[0].checks, (std::vector<std::string>{"nvidia-smi"}));
  const Report plain = Engine(r.rules).DiagnoseText(kMatmul);
  ASSERT_FALSE(plain.diagnoses.empty());
  EXPECT_EQ(plain.diagnoses[0].checks, (std::vector<std::string>{"nvidia-smi", "df -h /dev/shm"}));
}

TEST(Conditions, LuaSeesTheFactsAsCtxFacts) {
  LoadResult r = LoadRulesFromStrings(
      {{"r.yaml", MatmulRule("r", "score: 'lua: facts.os == \"windows\" and 0.5 or nil'\n")}});
  ASSERT_TRUE(r.ok()) << Problems(r);
  const Report windows = Engine(r.rules).DiagnoseText(kWindowsLog);
  ASSERT_FALSE(windows.diagnoses.empty());
  const Report plain = Engine(r.rules).DiagnoseText(kMatmul);
  ASSERT_FALSE(plain.diagnoses.empty());
  EXPECT_LT(windows.diagnoses[0].confidence, plain.diagnoses[0].confidence);
}

TEST(Conditions, LintRefusesUnknownFactsMixedNegationsAndBadPatterns) {
  auto load = [](const std::string& top) { return LoadRulesFromStrings({{"two.yaml", TwoReadings(top, "", "")}}); };
  LoadResult unknown = load("unless: { facts: { gpu: a100 } }\n");
  EXPECT_FALSE(unknown.ok());
  EXPECT_NE(Problems(unknown).find("unknown fact 'gpu'"), std::string::npos) << Problems(unknown);
  LoadResult mixed = load("unless: { facts: { os: [windows, '!linux'] } }\n");
  EXPECT_FALSE(mixed.ok());
  EXPECT_NE(Problems(mixed).find("mixes values and !values"), std::string::npos) << Problems(mixed);
  LoadResult regex = load("needs: { input: 'a(b' }\n");
  EXPECT_FALSE(regex.ok());
  EXPECT_NE(Problems(regex).find("needs.input"), std::string::npos) << Problems(regex);
  LoadResult empty = load("unless: {}\n");
  EXPECT_FALSE(empty.ok());
  // Note: [Call-site evidence]: `frames:` patterns are checked like the others.
  LoadResult frames = load("needs: { frames: 'in (embedding' }\n");
  EXPECT_FALSE(frames.ok());
  EXPECT_NE(Problems(frames).find("needs.frames"), std::string::npos) << Problems(frames);
}

// Note: [Call-site evidence] (diagnose/ranker.cc): `frames:` reads each frame of the incident's traceback as
// `FILE in FUNCTION: SOURCE`; a message with no traceback has no frame to read.
TEST(Conditions, FramesReadTheTracebackNotTheMessage) {
  const std::string log = std::string(
      "Traceback (most recent call last):\n"
      "  File \"/home/u/train.py\", line 11, in forward\n"
      "    out = self.fc(self.emb(x))\n") + kMatmul + "\n";
  std::string evidence;
  const std::string source = TwoReadings("", "", "    first: { frames: ': .*\\.emb\\(' }\n");
  EXPECT_EQ(HypothesisIds(source, log, &evidence), (std::vector<std::string>{"windows-only", "general"}));
  EXPECT_EQ(evidence, "the error was raised inside `out = self.fc(self.emb(x))` at train.py:11");
  EXPECT_EQ(HypothesisIds(TwoReadings("", "", "    first: { frames: 'train\\.py in forward' }\n"), log),
            (std::vector<std::string>{"windows-only", "general"}));
  EXPECT_EQ(HypothesisIds(source, kMatmul), (std::vector<std::string>{"general", "windows-only"}));
  // The message is not a frame: a pattern only the message matches does not hold.
  EXPECT_EQ(HypothesisIds(TwoReadings("", "", "    first: { frames: 'shapes cannot be multiplied' }\n"), log),
            (std::vector<std::string>{"general", "windows-only"}));
}

}  // namespace
}  // namespace triage
