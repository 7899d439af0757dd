"""The causal language model of `lm-crs`: a model folder, a Hub id (from the Hugging Face cache when offline)
or, by default, the packaged SmolLM2-135M-Instruct converted once from its GGUF (`synth.llm.hf_models`);
checked to be causal before its weights load; bf16 on a GPU, fp32 on a CPU; a LoRA adapter (peft) or every
weight to train."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from synth.errors import SynthError

PACKAGED_DEFAULT = "smollm2-135m"
LM_HINT = "lm-crs needs the 'lm' extra: pip install 'synth-crs[lm]'"
LORA_DROPOUT = 0.05


@dataclass
class LoadedLm:
    model: Any
    tokenizer: Any
    device: str


def model_name(spec: str | None) -> str:
    """How results and cache keys name the model: the spec as given, or the packaged default."""
    return spec or f"packaged:{PACKAGED_DEFAULT}"


def load_lm(spec: str | None, *, progress: bool) -> LoadedLm:
    """The tokenizer and the causal LM of `spec` on the GPU when there is one; SynthError in one line when it
    cannot be found offline or is not a causal LM."""
    try:
        import torch
        import transformers
        from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES
    except ImportError:
        raise SynthError(LM_HINT) from None
    if not progress:
        transformers.utils.logging.disable_progress_bar()
    source = _source(spec)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    try:
        config = transformers.AutoConfig.from_pretrained(source)
        if config.is_encoder_decoder or config.model_type not in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES:
            raise SynthError(f"--lm-model {model_name(spec)}: a '{config.model_type}' model is not a causal "
                             "language model; lm-crs needs a decoder-only one (SmolLM2, Qwen2.5, Llama, ...)")
        tokenizer = transformers.AutoTokenizer.from_pretrained(source)
        dtype = torch.bfloat16 if device == "cuda" else torch.float32
        model = transformers.AutoModelForCausalLM.from_pretrained(source, dtype=dtype).to(device)
    except (OSError, ValueError) as exc:
        raise SynthError(f"--lm-model {model_name(spec)}: cannot load it ({_first_line(exc)}); give a model "
                         "folder, or a Hub id that is in the Hugging Face cache when offline") from None
    tokenizer.padding_side = "right"  # training; generation pads on the left itself
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    model.eval()
    return LoadedLm(model, tokenizer, device)


def with_lora(model: Any, rank: int) -> Any:
    """`model` wrapped in a fresh LoRA adapter of rank `rank` on every linear layer (its weights frozen)."""
    from peft import LoraConfig, get_peft_model

    config = LoraConfig(r=rank, lora_alpha=2 * rank, lora_dropout=LORA_DROPOUT, target_modules="all-linear",
                        task_type="CAUSAL_LM")
    return get_peft_model(model, config)


def trained_weights(model: Any, lora: bool) -> dict[str, Any]:
    """The weights a fit changed, on the CPU: the adapter's, or every weight."""
    if lora:
        from peft import get_peft_model_state_dict

        weights = get_peft_model_state_dict(model)
    else:
        weights = model.state_dict()
    return {name: tensor.detach().cpu() for name, tensor in weights.items()}


def load_trained_weights(model: Any, weights: dict[str, Any], lora: bool) -> None:
    if lora:
        from peft import set_peft_model_state_dict

        set_peft_model_state_dict(model, weights)
    else:
        model.load_state_dict(weights)


def _source(spec: str | None) -> str:
    """A folder or Hub id for transformers; no spec: the packaged SmolLM2, converted from its GGUF once."""
    if spec is None:
        from synth.llm.gguf_models import PACKAGED, materialize_packaged
        from synth.llm.hf_models import convert_gguf

        return str(convert_gguf(materialize_packaged(PACKAGED[PACKAGED_DEFAULT]).path))
    if spec.count("/") <= 1 and not spec.startswith((".", "/", "~")):
        return spec  # NAME or OWNER/NAME on the Hub (a folder of that name first)
    path = Path(spec).expanduser()
    if not path.is_dir():
        raise SynthError(f"--lm-model {spec}: no such model folder")
    return str(path)


def _first_line(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
