"""Where the safetensors model of the vllm backend comes from (vLLM serves Hugging Face folders, not GGUF).

`--model` for `--backend vllm`:
  1. a local Hugging Face model folder (config.json beside the weights);
  2. a GGUF file or `packaged:NAME`: converted once with transformers into the cache (dequantised, so a
     small model is best: this is how the tests run vLLM offline);
  3. no model: the official Qwen2.5-1.5B-Instruct when the Hub answers or has it cached, else the
     packaged SmolLM2 converted as in 2;
  4. anything else is a Hub repo id, which vLLM downloads itself.
"""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path

from synth.errors import SynthError
from synth.llm.gguf_models import PACKAGED, cache_dir, hub_reachable, materialize_packaged

log = logging.getLogger(__name__)
DEFAULT_HF_MODEL = "Qwen/Qwen2.5-1.5B-Instruct"
OFFLINE_FALLBACK = "smollm2-135m"


def converted_dir(gguf: Path) -> Path:
    """The cache folder a GGUF file is converted into."""
    return cache_dir().parent / "hf-models" / gguf.name.removesuffix(".gguf")


def convert_gguf(gguf: Path) -> Path:
    """A Hugging Face folder (safetensors, tokenizer, chat template) made from `gguf` once, then reused (by
    vLLM and by the `lm-crs` benchmark baseline)."""
    dest = converted_dir(gguf)
    if (dest / "config.json").is_file():
        return dest
    try:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer, GgufConfig
    except ImportError:
        raise SynthError("converting a GGUF into a Hugging Face folder needs transformers and torch: pip install "
                         "'synth-crs[vllm]' or 'synth-crs[lm]'") from None
    log.info("converting %s into %s (once)", gguf, dest)
    tmp = dest.with_name(dest.name + ".partial")
    try:
        tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
        model = AutoModelForCausalLM.from_pretrained(
            str(gguf.parent), gguf_file=gguf.name, dtype=torch.bfloat16,
            quantization_config=GgufConfig(gguf_file=gguf.name, dequantize=True),
        )
    except (ValueError, OSError, RuntimeError, ImportError) as exc:
        raise SynthError(f"cannot convert {gguf} into a Hugging Face folder: {exc}") from None
    # dequantised weights are plain tensors: save them as such, not as a GGUF-quantised model
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    if not tokenizer.chat_template:
        raise SynthError(f"{gguf} carries no chat template; pass a Hugging Face model folder instead")
    shutil.rmtree(tmp, ignore_errors=True)
    model.save_pretrained(tmp)
    tokenizer.save_pretrained(tmp)
    os.replace(tmp, dest)
    return dest


def resolve_hf_model(spec: str | None) -> Path | str:
    """A local folder for vLLM, or a Hub repo id it downloads itself."""
    if spec is None or spec == "default":
        from huggingface_hub import try_to_load_from_cache

        if hub_reachable() or isinstance(try_to_load_from_cache(DEFAULT_HF_MODEL, "config.json"), str):
            return DEFAULT_HF_MODEL
        log.info("the Hub is unreachable; vLLM gets the packaged %s, converted", OFFLINE_FALLBACK)
        return convert_gguf(materialize_packaged(PACKAGED[OFFLINE_FALLBACK]).path)
    if spec.startswith("packaged:"):
        name = spec.removeprefix("packaged:")
        if name not in PACKAGED:
            raise SynthError(f"unknown packaged model '{name}'; known: {', '.join(PACKAGED)}")
        return convert_gguf(materialize_packaged(PACKAGED[name]).path)
    path = Path(spec).expanduser()
    if path.is_file() and path.suffix == ".gguf":
        return convert_gguf(path)
    if path.is_dir():
        if not (path / "config.json").is_file():
            raise SynthError(f"--model {spec}: a folder for vLLM needs config.json (a Hugging Face model folder)")
        return path
    if spec.count("/") == 1 and not spec.startswith((".", "/", "~")):
        return spec  # OWNER/NAME on the Hub
    raise SynthError(f"model not found: {spec}")
