-- Lua for rule lightning-api-removed (rules/LUA_API.md, API version 1).
-- Each removed Lightning name with its successor and the release that removed or moved it.

local successors = {
  gpus = { "accelerator=\"gpu\", devices=N", "removed in 2.0" },
  tpu_cores = { "accelerator=\"tpu\", devices=N", "removed in 2.0" },
  ipus = { "accelerator=\"ipu\", devices=N", "removed in 2.0" },
  num_processes = { "accelerator=\"cpu\", devices=N", "removed in 2.0" },
  auto_select_gpus = { "devices=\"auto\" or an explicit list", "removed in 2.0" },
  resume_from_checkpoint = { "trainer.fit(model, ckpt_path=...)", "removed in 2.0" },
  amp_backend = { "precision=\"16-mixed\"", "apex support removed in 2.0" },
  amp_level = { "precision=\"16-mixed\"", "apex support removed in 2.0" },
  move_metrics_to_cpu = { "nothing: drop the argument", "removed in 2.0" },
  multiple_trainloader_mode = { "CombinedLoader(..., mode=...)", "removed in 2.0" },
  auto_scale_batch_size = { "Tuner(trainer).scale_batch_size(model)", "removed in 2.0" },
  auto_lr_find = { "Tuner(trainer).lr_find(model)", "removed in 2.0" },
  replace_sampler_ddp = { "use_distributed_sampler=", "renamed in 2.0" },
  progress_bar_refresh_rate = { "a TQDMProgressBar(refresh_rate=N) callback", "removed in 1.x" },
  weights_summary = { "enable_model_summary= or a ModelSummary callback", "removed in 1.x" },
  checkpoint_callback = { "enable_checkpointing=", "removed in 1.x" },
  flush_logs_every_n_steps = { "the logger's own flush setting", "removed in 1.x" },
  terminate_on_nan = { "detect_anomaly=True, or a check in training_step", "removed in 1.x" },
  stochastic_weight_avg = { "a StochasticWeightAveraging callback", "removed in 1.x" },
  log_gpu_memory = { "a DeviceStatsMonitor callback", "removed in 1.x" },
  process_position = { "a TQDMProgressBar(process_position=N) callback", "removed in 1.x" },
  prepare_data_per_node = { "the DataModule's prepare_data_per_node attribute", "removed in 1.x" },
  distributed_backend = { "strategy=", "removed in 1.x" },
  training_epoch_end = { "on_train_epoch_end, with the step outputs collected on self", "removed in 2.0" },
  validation_epoch_end = { "on_validation_epoch_end, with the step outputs collected on self", "removed in 2.0" },
  test_epoch_end = { "on_test_epoch_end, with the step outputs collected on self", "removed in 2.0" },
  ["pytorch_lightning.utilities.distributed"] = { "from pytorch_lightning.utilities import rank_zero_only", "moved in 1.8, module removed in 2.0" },
  ["pytorch_lightning.metrics"] = { "the torchmetrics package", "moved out in 1.3, removed in 1.5" },
  ["pytorch_lightning.trainer.supporters"] = { "from pytorch_lightning.utilities import CombinedLoader", "moved in 2.0" },
}

function successor(ctx)
  local entry = successors[ctx.captures.name or ""]
  if not entry then return { replacement = "its successor in Lightning's upgrade guide", release = "a newer release" } end
  return { replacement = entry[1], release = entry[2] }
end

function test_trainer_argument()
  local v = successor({ captures = { name = "gpus" } })
  assert(v.replacement == 'accelerator="gpu", devices=N' and v.release == "removed in 2.0")
end

function test_module_path()
  local v = successor({ captures = { name = "pytorch_lightning.utilities.distributed" } })
  assert(v.release == "moved in 1.8, module removed in 2.0")
end

function test_unknown_name()
  assert(successor({ captures = { name = "nothing" } }).release == "a newer release")
end
