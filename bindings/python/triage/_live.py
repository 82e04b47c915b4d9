"""What only a live exception has: the tensors in the failing frames, read as evidence.

A log says `mat1 and mat2 shapes cannot be multiplied (4x57600 and 64x10)`; the live frame also has the
Linear module (`self`) and the tensor it was given (`input`). The checks below compare the two the way
the probes would (same probe names, so the rules' `test: {probe: ...}` hypotheses are marked), but
without running anything: they only read attributes of objects that already exist. A check that cannot
tell says nothing. Nothing here imports torch; it is used only when the program already did.
"""
import sys

_FRAMES_SHOWN = 3
_TENSORS_PER_FRAME = 12


def _torch():
    return sys.modules.get("torch")


def describe(value):
    """'Tensor(4, 57600) float32 cpu' for a tensor, else None."""
    torch = _torch()
    if torch is None or not isinstance(value, torch.Tensor):
        return None
    try:
        shape = "(" + ", ".join(str(int(s)) for s in value.shape) + ")"
        dtype = str(value.dtype).replace("torch.", "")
        extra = " requires_grad" if value.requires_grad else ""
        return f"Tensor{shape} {dtype} {value.device}{extra}"
    except Exception:  # a tensor in a broken state must not break the diagnosis
        return None


def _module_desc(value):
    try:
        text = value.extra_repr()
        return f"{type(value).__name__}({text})" if text else type(value).__name__
    except Exception:
        return type(value).__name__


def _shape(t):
    return "(" + ", ".join(str(int(s)) for s in t.shape) + ")"


def _where(tb):
    code = tb.tb_frame.f_code
    return f"{code.co_filename}:{tb.tb_lineno} in {code.co_name}"


def frames(exc):
    """[(traceback entry, {name: value})] for the frames of exc's traceback that hold tensors or a module."""
    torch = _torch()
    out = []
    tb = exc.__traceback__
    while tb is not None:
        found = {}
        if torch is not None:
            try:
                for name, value in list(tb.tb_frame.f_locals.items()):
                    if isinstance(value, torch.Tensor) or (name == "self" and isinstance(value, torch.nn.Module)):
                        found[name] = value
                    if len(found) >= _TENSORS_PER_FRAME:
                        break
            except Exception:
                pass
        if found:
            out.append((tb, found))
        tb = tb.tb_next
    return out


def describe_frames(live):
    """The JSON-able view of frames(): the failing frame and the two that called it."""
    shown = []
    for tb, values in live[-_FRAMES_SHOWN:]:
        tensors = {}
        for name, value in values.items():
            desc = describe(value)
            if desc is None and name == "self":
                desc = _module_desc(value)
            if desc is not None:
                tensors[name] = desc
        shown.append({"where": _where(tb), "tensors": tensors})
    return shown


def _finding(probe, category, summary, facts, where):
    return {"probe": probe, "verdict": "confirmed", "category": category, "strength": 0.9,
            "summary": f"{summary} (live frame {where})", "facts": facts}


def _first_tensor(values, names=("input", "x", "inputs", "hidden_states")):
    torch = _torch()
    for name in names:
        v = values.get(name)
        if isinstance(v, torch.Tensor):
            return name, v
    return None, None


def _check_module(tb, values):
    """Compares a module (`self`) with the tensor it was handed in its own forward."""
    torch = _torch()
    nn = torch.nn
    module = values.get("self")
    if not isinstance(module, nn.Module):
        return []
    name, x = _first_tensor(values)
    if x is None:
        return []
    where = _where(tb)
    found = []
    kind = type(module).__name__
    weight = getattr(module, "weight", None)
    if isinstance(weight, torch.Tensor):
        if weight.device != x.device:
            found.append(_finding("device-audit", "device.input_weight_mismatch",
                                  f"{kind} weight is on {weight.device} but {name} is on {x.device}",
                                  [("weight device", str(weight.device)), (f"{name} device", str(x.device))], where))
        if x.is_floating_point() and weight.is_floating_point() and x.dtype != weight.dtype:
            found.append(_finding("dtype-audit", "dtype.mismatch",
                                  f"{kind} weight is {weight.dtype} but {name} is {x.dtype}",
                                  [("weight dtype", str(weight.dtype)), (f"{name} dtype", str(x.dtype))], where))
    if isinstance(module, nn.Linear) and x.dim() >= 1 and x.shape[-1] != module.in_features:
        found.append(_finding("shape-trace", "shape.matmul_mismatch",
                              f"{kind} expects {module.in_features} input features; {name} has shape {_shape(x)}",
                              [("in_features", str(module.in_features)), (f"{name}.shape", _shape(x))], where))
    conv = getattr(nn.modules.conv, "_ConvNd", None)
    if conv is not None and isinstance(module, conv):
        spatial = len(module.kernel_size)
        if x.dim() not in (spatial + 1, spatial + 2):
            found.append(_finding("shape-trace", "shape.input_rank",
                                  f"{kind} takes {spatial + 1}-D or {spatial + 2}-D input; {name} has shape {_shape(x)}",
                                  [(f"{name}.shape", _shape(x))], where))
        else:
            channels = x.shape[-(spatial + 1)]
            if channels != module.in_channels:
                found.append(_finding("shape-trace", "shape.channel_mismatch",
                                      f"{kind} expects {module.in_channels} channels; {name} has {channels} "
                                      f"(shape {_shape(x)})",
                                      [("in_channels", str(module.in_channels)), (f"{name}.shape", _shape(x))], where))
    if isinstance(module, nn.Embedding) and not x.is_floating_point() and x.numel() > 0:
        try:
            low, high = int(x.min()), int(x.max())
        except Exception:  # e.g. a CUDA tensor after a device-side assert: cannot be read any more
            low = high = None
        if high is not None and (high >= module.num_embeddings or low < 0):
            found.append(_finding("index-range", "index.out_of_range",
                                  f"Embedding has {module.num_embeddings} rows; {name} holds indices {low}..{high}",
                                  [("num_embeddings", str(module.num_embeddings)), (f"{name} range", f"{low}..{high}")],
                                  where))
    return found


def _check_loss(tb, values):
    """cross_entropy / nll_loss frames: class targets against the width of the scores."""
    torch = _torch()
    if tb.tb_frame.f_code.co_name not in ("cross_entropy", "nll_loss"):
        return []
    scores, target = values.get("input"), values.get("target")
    if not isinstance(scores, torch.Tensor) or not isinstance(target, torch.Tensor):
        return []
    if target.is_floating_point() or scores.dim() < 1 or target.numel() == 0:
        return []
    classes = scores.shape[1] if scores.dim() >= 2 else scores.shape[0]
    try:
        low, high = int(target.min()), int(target.max())
    except Exception:
        return []
    ignore = values.get("ignore_index", -100)
    if high >= classes or (low < 0 and low != ignore):
        return [_finding("label-range", "loss.target_out_of_range",
                         f"the scores have {classes} classes; target holds {low}..{high}",
                         [("classes", str(classes)), ("target range", f"{low}..{high}")], _where(tb))]
    return []


def evidence(live):
    """Confirmed findings from the live frames, innermost first (ProbeEvidence as dicts)."""
    if _torch() is None:
        return []
    found = []
    for tb, values in reversed(live):
        try:
            found.extend(_check_module(tb, values))
            found.extend(_check_loss(tb, values))
        except Exception:  # reading a frame must never turn into a second error
            continue
    return found
